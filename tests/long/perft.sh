#!/usr/bin/env bash
# Long game-tree counts, run before a release (several minutes on 2 cores; `cargo test` runs
# the shallow ones): English draughts from the start to depth 8 must give the published perft
# 1, 7, 49, 302, 1469, 7361, 36768, 179740, 845931 (a multi-jump is one move).
#
#   tests/long/perft.sh            # builds the release binary, then counts
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
cargo build --release --quiet
bin=target/release/rulebook

expect() { # FILE DEPTH NODES...
    local file=$1 depth=$2
    shift 2
    local want
    want="[$(IFS=,; echo "$*")]"
    local start end got
    start=$(date +%s.%N)
    got=$("$bin" count "$file" --depth "$depth" --json --threads 2 | tr -d ' ' |
        sed -n 's/.*"nodes":\(\[[0-9,]*\]\).*/\1/p')
    end=$(date +%s.%N)
    printf '%s depth %s: %s (%.1f s)\n' "$file" "$depth" "$got" "$(echo "$end - $start" | bc)"
    if [ "$got" != "$want" ]; then
        echo "expected $want" >&2
        exit 1
    fi
}

expect rules/classic/english_draughts.rules 8 1 7 49 302 1469 7361 36768 179740 845931
echo "all long counts agree"
