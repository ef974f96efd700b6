#!/usr/bin/env bash
# Every test: the Rust test suite, the real Yixin-Board GUI driven headless, then the Windows
# build under Wine, then the web build in Node and Chromium (installs the Debian packages they need with apt-get, so run it as root, as
# CI does).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release
bash scripts/test-gui.sh
bash scripts/test-windows.sh
bash scripts/test-web.sh
