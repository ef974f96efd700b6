#!/usr/bin/env bash
# Builds the Windows engine: dist/windows/pbrain-wuzi.exe (64-bit, statically linked,
# stripped). scripts/package-gomocup.sh runs this and makes the zip an entrant submits.
# Uses Debian's Rust 1.96 (rustc-web/cargo-web) with -Zbuild-std and the mingw-w64 linker;
# the rustup toolchain stays the default for everything else.
#   --wine   also prepare Wine to run the exe (installs wine and a ProcessPrng stub DLL into
#            the Wine prefix's system32; see scripts/wine/bcryptprimitives.c)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-dist/windows}
TARGET=x86_64-pc-windows-gnu
# scripts/test-all.sh installs every script's packages=(...) list ahead of time.
packages=(rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 zip unzip)
[ "${1:-}" = "--wine" ] && packages+=(wine wine64)

bash scripts/apt-install.sh "${packages[@]}"

export RUSTC=/usr/bin/rustc
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
/usr/bin/cargo build --release --locked --bin pbrain-wuzi \
    -Zbuild-std=std,panic_abort --target "$TARGET" --target-dir target/windows

mkdir -p "$OUT"
exe="$OUT/pbrain-wuzi.exe"
x86_64-w64-mingw32-strip -o "$exe" "target/windows/$TARGET/release/pbrain-wuzi.exe"
echo "built $exe ($(stat -c %s "$exe") bytes)"
echo "imports: $(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/.*DLL Name: //p' | sort -u | tr '\n' ' ')"

if [ "${1:-}" = "--wine" ]; then
    export WINEDEBUG=-all WINEPREFIX=${WINEPREFIX:-$HOME/.wine-wuzi}
    [ -d "$WINEPREFIX" ] || wineboot -i >/dev/null 2>&1 || true
    # A new prefix keeps setting itself up after wineboot returns: wait for its server to
    # finish, or the first exe started may die as it starts (a broken pipe in CI once).
    wineserver -w || true
    sys32="$WINEPREFIX/drive_c/windows/system32"
    if [ ! -f "$sys32/bcryptprimitives.dll" ]; then
        x86_64-w64-mingw32-gcc -shared -O2 -o "$sys32/bcryptprimitives.dll" \
            scripts/wine/bcryptprimitives.c -ladvapi32
    fi
    echo "wine prefix ready: $WINEPREFIX"
fi
