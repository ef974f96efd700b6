#!/usr/bin/env bash
# Self-play games for fitting the evaluation (`wuzi-tune fit`): the current release build
# against itself at a fixed node budget (one side 10% more, so that the two games of an
# opening differ) from random openings (4 stones near the centre, each played with both
# colours), in every rule the weights distinguish.
#   usage: scripts/selfplay.sh OUTDIR [NODES] [GAMES_PER_RULE] [SEED]
# Writes OUTDIR/<rule>-<size>.txt (arena records) and .log. Nearly deterministic for a given build,
# node budget and seed (a replay of three generations differed in a few games of 20000).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/selfplay.sh OUTDIR [NODES] [GAMES_PER_RULE] [SEED]}
nodes=${2:-3000}
games=${3:-2000}
seed=${4:-1}
cargo build --release --bin pbrain-wuzi --bin wuzi-arena
mkdir -p "$out"
# A copy, so that rebuilding during the run does not change the player.
bot="$out/pbrain-selfplay"
cp target/release/pbrain-wuzi "$bot"
for spec in "freestyle 15" "freestyle 20" "standard 15" "renju 15"; do
    set -- $spec
    seed=$((seed + 1))
    target/release/wuzi-arena --engine a="$bot" --engine b="$bot" --rule "$1" --size "$2" \
        --info a:max_node="$nodes" --info b:max_node=$((nodes * 11 / 10)) --turn 30000 \
        --settle 0 --random-openings 4:$((games / 2)) --seed "$seed" -c 2 \
        --records "$out/$1-$2.txt" > "$out/$1-$2.log"
    tail -n 6 "$out/$1-$2.log"
done
