#!/usr/bin/env bash
# The Gomocup entry in one command: builds the Windows exe (scripts/build-windows.sh, Debian's
# Rust and the mingw-w64 linker, installed with apt-get) and writes dist/gomocup/pbrain-wuzi.zip,
# the file an entrant submits: pbrain-wuzi.exe at the zip's root (managers load only files whose
# name starts with pbrain-). Fails if the exe passes Gomocup's 8 MB limit.
#   --wine   also prepare Wine to run the exe (for scripts/test-windows.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT=$((8 * 1024 * 1024))
bash scripts/build-windows.sh "$@"
exe=dist/windows/pbrain-wuzi.exe
size=$(stat -c %s "$exe")
if [ "$size" -gt "$LIMIT" ]; then
    echo "package-gomocup: $exe is $size bytes, over Gomocup's 8 MB ($LIMIT bytes)" >&2
    exit 1
fi
out=dist/gomocup
rm -rf "$out"
mkdir -p "$out"
cp "$exe" "$out/pbrain-wuzi.exe"
(cd "$out" && zip -q -X pbrain-wuzi.zip pbrain-wuzi.exe && rm pbrain-wuzi.exe)
zip_size=$(stat -c %s "$out/pbrain-wuzi.zip")
unzip -l "$out/pbrain-wuzi.zip"
echo "Gomocup package: $out/pbrain-wuzi.zip ($zip_size bytes; the exe $size bytes of the 8 MB allowed)"
