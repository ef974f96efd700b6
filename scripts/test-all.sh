#!/usr/bin/env bash
# Every test: the Rust test suite, then the Windows build under Wine (installs the Debian
# packages it needs with apt-get, so run it as root, as CI does).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release
bash scripts/test-windows.sh
