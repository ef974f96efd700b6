#!/usr/bin/env bash
# Builds Wuzi for the web into dist/web/: the engine compiled to WebAssembly (wuzi.wasm, from
# the web/ crate), the page that plays and analyses with it in a Web Worker (index.html and
# its scripts, from web/page/), and pbrain.mjs, the same module as a pbrain engine for Node
# (`node dist/web/pbrain.mjs`). Serve it with `python3 -m http.server -d dist/web`.
# Uses Debian's Rust 1.96 (rustc-web, cargo-web, rust-web-src: std is built for wasm32 with
# -Zbuild-std) and lld-22's wasm-ld, installed with apt-get (run as root); the rustup
# toolchain stays the default for everything else.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-dist/web}
TARGET=wasm32-unknown-unknown
LINKER=/usr/lib/llvm-22/bin/wasm-ld

# scripts/test-all.sh installs every script's packages=(...) list ahead of time.
packages=(rustc-web cargo-web rust-web-src lld-22)
bash scripts/apt-install.sh "${packages[@]}"

export RUSTC=/usr/bin/rustc
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=$LINKER
# The search recurses deeply: natively it runs on a 64 MB thread stack; here on the module's
# own stack, 32 MB instead of the default 1 MB.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C link-arg=-zstack-size=33554432"
/usr/bin/cargo build --release --locked -p wuzi-web \
    -Zbuild-std=std,panic_abort --target "$TARGET" --target-dir target/web

rm -rf "$OUT"
mkdir -p "$OUT"
cp "target/web/$TARGET/release/wuzi_web.wasm" "$OUT/wuzi.wasm"
cp web/page/* "$OUT/"
# The service worker's cache is named after the files it keeps: a rebuilt page replaces it.
version=$(cat "$OUT"/* | sha256sum | cut -c1-12)
sed -i "s/@VERSION@/$version/" "$OUT/sw.js"
size=$(stat -c %s "$OUT/wuzi.wasm")
gz=$(gzip -9 -c "$OUT/wuzi.wasm" | wc -c)
echo "built $OUT: wuzi.wasm $size bytes ($gz gzipped), $(ls "$OUT" | wc -l) files"
