#!/usr/bin/env bash
# Tests the web build (scripts/build-web.sh): the WebAssembly engine through the Node wrapper
# (bench signature and speed against native, every protocol fixture, a short wuzi-arena match
# against the native bot), the page's referee and records under Node's test runner, then the
# page itself in Debian's Chromium driven by playwright-core (tests/web/page.test.mjs; its
# screenshots go to target/web-test). Installs Chromium with apt-get (root, as in CI) and
# playwright-core with npm (tests/web/package-lock.json).
set -euo pipefail
cd "$(dirname "$0")/.."
# The cargo profile to build with: release by default; test-all.sh uses the test suite's (ci).
profile=${WUZI_PROFILE:-release}
bash scripts/build-web.sh
cargo build --profile "$profile" --bin pbrain-wuzi --bin wuzi-arena
web="node dist/web/pbrain.mjs"

# The bench: the same node count and signature as native, and the speed ratio.
native=$(target/$profile/pbrain-wuzi bench)
wasm=$($web bench)
sig() { sed -n 's/^Signature: //p' <<<"$1"; }
field() { sed -n "s/^$2: //p" <<<"$1"; }
echo "native: $(field "$native" 'Nodes searched') nodes, $(field "$native" 'Total time (ms)') ms, signature $(sig "$native")"
echo "web:    $(field "$wasm" 'Nodes searched') nodes, $(field "$wasm" 'Total time (ms)') ms, signature $(sig "$wasm")"
[ -n "$(sig "$native")" ] && [ "$(sig "$native")" = "$(sig "$wasm")" ] || {
    echo "the web build's bench differs from native" >&2
    exit 1
}
awk -v n="$(field "$native" 'Total time (ms)')" -v w="$(field "$wasm" 'Total time (ms)')" \
    'BEGIN { printf "web nodes/s against native on the bench: %.2f\n", n / w }'

WUZI_ENGINE="$web" cargo test --profile "$profile" --test fixtures
out=$(target/$profile/wuzi-arena --engine native=target/$profile/pbrain-wuzi --engine "web=$web" \
    --info all:max_node=5000 --turn 2000 --games 2)
echo "$out"
grep -q "^web: 0 timeouts, 0 crashes, 0 illegal moves$" <<<"$out"
grep -q "in 2 games" <<<"$out"

node --test tests/web/game.test.mjs
# scripts/test-all.sh installs every script's packages=(...) list ahead of time.
packages=(chromium)
bash scripts/apt-install.sh "${packages[@]}"
(cd tests/web && npm ci --no-audit --no-fund --loglevel=error)
node tests/web/page.test.mjs dist/web
echo "web build: bench, fixtures, arena match, referee and the page in Chromium passed"
