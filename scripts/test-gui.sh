#!/usr/bin/env bash
# Drives the real Yixin-Board analysis GUI (tests/clients/yixin-board: built by its build.sh,
# played headless under Xvfb by its run.sh, every line logged) with the bot (release build), then checks
# the log with tests/gui.rs: no ERROR or UNKNOWN, every move request answered within the turn,
# yxstop answered at once, live marks while thinking, n-best lines, FORBID 0707. in renju.
# Installs the GUI's Debian packages with apt-get (root, as in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
# The cargo profile to build with: release by default; test-all.sh uses the test suite's (ci).
profile=${WUZI_PROFILE:-release}
client=${YIXIN_CLIENT:-tests/clients/yixin-board}
out=${YIXIN_RUN:-target/yixin-run}
cargo build --profile "$profile" --bin pbrain-wuzi
# The GUI's build.sh installs these itself, but without recovering from an interrupted dpkg.
# scripts/test-all.sh installs every script's packages=(...) list ahead of time.
packages=(libgtk2.0-dev xvfb xdotool imagemagick x11-utils)
bash scripts/apt-install.sh "${packages[@]}"
bash "$client/build.sh" target/yixin-board
# An 8 s turn: the analysis step's Escape comes 2.5 s after F11 and must meet a running search.
export YX_TURN=8
# The GUI itself now and then fails to open its window under Xvfb (GDK finds no screen, before
# it starts the engine); run.sh then stops with "window did not appear". Such a run is retried.
for attempt in 1 2 3; do
    rm -rf "$out"
    if YIXIN_DIST=target/yixin-board/dist bash "$client/run.sh" target/$profile/pbrain-wuzi \
        "$out" all 2>"$out.stderr"; then
        break
    fi
    cat "$out.stderr"
    grep -q "window did not appear" "$out.stderr" || exit 1
    echo "attempt $attempt: the GUI did not start; again"
done
cat "$out/steps.txt"
WUZI_GUI_RUN="$out" WUZI_GUI_TURN_MS=$((YX_TURN * 1000)) \
    cargo test --profile "$profile" --test gui -- --ignored --nocapture
echo "Yixin-Board: the GUI session passed (screenshots in $out)"
