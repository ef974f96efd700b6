#!/usr/bin/env bash
# The cost of a node on game positions, counted by callgrind (instructions do not depend on
# the machine's load): the release build searches each position of scripts/profile-positions.txt
# to a fixed node budget through the protocol, one search after the other, and callgrind_annotate
# prints the functions' own instruction counts.
#   usage: scripts/profile.sh [NODES] [BINARY]     (default 100000 nodes, the release build)
#   WUZI_PROFILE_INFO="wuzi_nnue=1 ..." sends INFO wuzi_nnue 1 ... first (the network's cost).
# Needs valgrind. The pattern tables' build (pattern::build) is a fixed start-up cost.
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-100000}
bin=${2:-target/release/pbrain-wuzi}
[ $# -ge 2 ] || cargo build --release --bin pbrain-wuzi
out=$(mktemp -d)
coproc ENGINE { valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" "$bin" 2>/dev/null; }
send() { printf '%s\r\n' "$1" >&"${ENGINE[1]}"; }
boards=0
while IFS= read -r line; do
    case $line in '#'*|'') continue ;; esac
    send "$line"
    case $line in
    START*)
        read -r reply <&"${ENGINE[0]}"
        send "INFO max_node $nodes"
        for kv in ${WUZI_PROFILE_INFO:-}; do send "INFO ${kv/=/ }"; done
        ;;
    DONE)
        # The answer to the board is the first line that is a move; MESSAGE lines come before.
        while read -r reply <&"${ENGINE[0]}"; do
            reply=${reply%$'\r'}
            case $reply in MESSAGE*) last=$reply ;; [0-9]*,[0-9]*) break ;; esac
        done
        echo "$reply  ${last:-}" | cut -c1-120
        boards=$((boards + 1))
        ;;
    esac
done < scripts/profile-positions.txt
send END
wait "$ENGINE_PID" || true
callgrind_annotate "$out/callgrind.out" | grep -E '^ *[0-9,]+ \(' > "$out/own.txt"
head -n 20 "$out/own.txt"
# Instructions per node, less the tables' build.
awk -v n=$((boards * nodes)) '{ gsub(",", "", $1) }
    /PROGRAM TOTALS/ { total = $1 } /pattern::build/ { build = $1 }
    END { printf "instructions per node (%d nodes, without pattern::build): %.0f\n", n, (total - build) / n }' "$out/own.txt"
rm -rf "$out"
