#!/usr/bin/env bash
# Builds the Gomocup package (scripts/package-gomocup.sh) and proves the exe inside it under
# Wine: unpacked from the zip as a manager does, every protocol fixture through the same fixture
# runner, then a short wuzi-arena match with the exe as one side.
set -euo pipefail
cd "$(dirname "$0")/.."
# The cargo profile to build with: release by default; test-all.sh uses the test suite's (ci).
profile=${WUZI_PROFILE:-release}
export WINEDEBUG=-all
export WINEPREFIX=${WINEPREFIX:-$PWD/target/wine-prefix}
bash scripts/package-gomocup.sh --wine
unpacked=target/gomocup-unzipped
rm -rf "$unpacked"
mkdir -p "$unpacked"
unzip -q dist/gomocup/pbrain-wuzi.zip -d "$unpacked"
exe="wine $unpacked/pbrain-wuzi.exe"
# One wineserver for the whole run (-p: it stays when no exe runs), so that no exe starts while
# the previous one's server is shutting down; it is stopped on the way out, pass or fail.
wineserver -p
trap 'wineserver -k || true' EXIT
# One start and END first, so that Wine's own first-run work is done before the fixtures.
printf 'END\n' | $exe >/dev/null
WUZI_ENGINE="$exe" cargo test --profile "$profile" --test fixtures
cargo build --profile "$profile" --bin pbrain-wuzi --bin wuzi-arena
out=$(target/$profile/wuzi-arena --engine linux=target/$profile/pbrain-wuzi --engine "windows=$exe" \
    --info all:max_node=5000 --turn 2000 --games 2)
echo "$out"
grep -q "^windows: 0 timeouts, 0 crashes, 0 illegal moves$" <<<"$out"
grep -q "in 2 games" <<<"$out"
echo "Windows exe: all fixtures and the arena match passed under Wine"
