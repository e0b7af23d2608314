#!/bin/sh
# The compiler's two back ends measured on one rules file (issue 36, step 3): the same
# lowered guard parts run by the reference evaluator, the LIR's interpreter, native code
# compiled at load by Cranelift, and Rust source written per file and built by cargo.
# Prints the evaluators' nanoseconds per evaluation and what each build cost.
#
#     benches/lir_backends.sh rules/atlantis_rising.rules
set -eu
file=${1:?a rules file}
cd "$(dirname "$0")/.."
cargo build --release --example lir_speed
mkdir -p target/lirgen
target/release/examples/lir_speed --emit target/lirgen/gen.rs "$file"
echo "Rust source: $(wc -l < target/lirgen/gen.rs) lines"
# The build a user would wait for: the crate is built, only the file's source is new.
start=$(date +%s.%N)
cargo build --release --features lirgen --example lir_speed 2>&1 | tail -1
end=$(date +%s.%N)
echo "build of the generated source: $(echo "$end - $start" | bc) s (wall)"
target/release/examples/lir_speed "$file"
