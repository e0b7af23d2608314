#!/usr/bin/env bash
# Builds the release wheel of the Python package `rulebook` for this machine's Linux and
# Python (one abi3 wheel serves CPython 3.9 and later) into target/wheels/.
#
#   python/build_wheels.sh            # the release profile (thin LTO, one codegen unit: slow)
#   PROFILE=dev python/build_wheels.sh  # the dev profile, as CI builds it (minutes less)
#
# It needs maturin (`pip install maturin`); the wheel's platform tag is the manylinux level
# this machine's glibc allows, checked by maturin's auditwheel pass.
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${PROFILE:-release}"
maturin build --profile "$profile" -m python/Cargo.toml -o "${CARGO_TARGET_DIR:-target}/wheels" "$@"
ls -l "${CARGO_TARGET_DIR:-target}"/wheels/rulebook-*.whl
