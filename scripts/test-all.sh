#!/usr/bin/env bash
# Every test: the Rust test suite, the real Yixin-Board GUI driven headless, the Windows build
# under Wine, then the web build (Node and Chromium). Installs the Debian packages they need
# with apt-get, so run it as root, as CI does.
# All of it builds with the `ci` profile: release's optimisation without its link-time
# optimisation, which would make the suite's many test binaries take four minutes to build.
set -euo pipefail
cd "$(dirname "$0")/.."
export WUZI_PROFILE=ci
# The Debian packages of the scripts below (their `packages=(...)` lines), installed in the
# background while the Rust suite builds and runs: apt waits on the network and the disk, cargo
# on the CPU. Each script still runs its own apt-install, which then finds them in place (or
# installs them itself if this failed).
mapfile -t debs < <(sed -n 's/.*packages+\?=(\([^)]*\)).*/\1/p' scripts/test-gui.sh \
    scripts/build-windows.sh scripts/build-web.sh scripts/test-web.sh | tr ' ' '\n' | sort -u)
mkdir -p target
bash scripts/apt-install.sh "${debs[@]}" >target/apt-install.log 2>&1 &
apt_job=$!
cargo test --profile ci
wait "$apt_job" || echo "the background install failed (target/apt-install.log); each test installs its own"
bash scripts/test-gui.sh
bash scripts/test-windows.sh
bash scripts/test-web.sh
