#!/usr/bin/env bash
# apt-install.sh PACKAGE...: installs the Debian packages not yet installed (as root). A fresh
# machine may come with an interrupted dpkg run ("dpkg was interrupted, you must manually run
# 'dpkg --configure -a'") or with another apt user holding the lock: finish the former, wait for
# the latter, and try up to three times before giving up.
set -euo pipefail
missing=()
for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
for attempt in 1 2 3; do
    dpkg --configure -a || true
    if apt-get -o DPkg::Lock::Timeout=300 update -qq &&
        apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${missing[@]}" >/dev/null; then
        exit 0
    fi
    echo "apt-get failed (attempt $attempt); again"
    sleep 10
done
exit 1
