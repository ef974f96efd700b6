#!/usr/bin/env bash
# Every test: the Rust test suite, the real Yixin-Board GUI driven headless, the Windows build
# under Wine, then the web build (Node and Chromium). Installs the Debian packages they need
# with apt-get, so run it as root, as CI does.
# All of it builds with the `ci` profile: release's optimisation without its link-time
# optimisation, which would make the suite's many test binaries take four minutes to build.
set -euo pipefail
cd "$(dirname "$0")/.."
export WUZI_PROFILE=ci
cargo test --profile ci
bash scripts/test-gui.sh
bash scripts/test-windows.sh
bash scripts/test-web.sh
