#!/usr/bin/env bash
# Issue 36's target "speed independent of the order of a guard's parts and of unused
# variables", measured: the instructions (valgrind's callgrind, so the load of a shared
# machine does not matter) of `simulate --games 300 --seed 1` on Breakthrough as written and
# on benches/order/breakthrough_reordered.rules (the guard's parts in another order, each
# comparison's sides swapped, four variables never read). Both play the same games (their
# JSON summaries are compared first).
#
#   benches/order/compare.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
cargo build --release --quiet
bin="$root/target/release/rulebook"
a=rules/classic/breakthrough.rules
b=benches/order/breakthrough_reordered.rules
if [ "$("$bin" simulate "$a" --games 300 --seed 1 --json)" != "$("$bin" simulate "$b" --games 300 --seed 1 --json)" ]; then
    echo "the two files do not play the same games" >&2
    exit 1
fi
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" simulate "$1" \
        --games 300 --seed 1 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
x="$(count "$a")"
y="$(count "$b")"
printf '%s: %s instructions\n%s: %s instructions (%+.1f%%)\n' "$a" "$x" "$b" "$y" \
    "$(echo "($y - $x) * 100 / $x" | bc -l)"
