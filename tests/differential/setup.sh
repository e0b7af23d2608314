#!/usr/bin/env bash
# Makes a Python with OpenSpiel (`import pyspiel`) available for the differential test and
# prints the path of that interpreter as the last line of stdout (messages go to stderr).
#
#   tests/differential/setup.sh            # creates target/ospiel-venv once, then reuses it
#
# Idempotent: when target/ospiel-venv already imports pyspiel it only prints the path.
# Environment:
#   PYTHON           the interpreter that creates the venv (default: python3, 3.9 or later)
#   OPEN_SPIEL_SPEC  what pip installs (default: open-spiel==2.0.2, the version the mappings in
#                    tests/differential/README.md were checked against)
#   OSPIEL_VENV      where the venv goes (default: <repo>/target/ospiel-venv)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${OSPIEL_VENV:-$root/target/ospiel-venv}"
spec="${OPEN_SPIEL_SPEC:-open-spiel==2.0.2}"
python="${PYTHON:-python3}"

has_pyspiel() {
    [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import pyspiel' >/dev/null 2>&1
}

if has_pyspiel; then
    echo "$venv/bin/python"
    exit 0
fi

install_help() {
    cat >&2 <<HELP
setup.sh: $1
The differential test needs OpenSpiel's Python package. Install it by hand with network access:
    $python -m venv $venv
    $venv/bin/pip install '$spec'
(or run tests/differential/setup.sh again once the network is available; on Debian/Ubuntu the
venv module is the package python3-venv).
HELP
    exit 1
}

mkdir -p "$(dirname "$venv")"
# One installer at a time (the tests of one `cargo test` may start together).
exec 9>"$(dirname "$venv")/.ospiel-venv.lock"
if command -v flock >/dev/null 2>&1; then
    flock 9
fi
if has_pyspiel; then # another installer finished while this one waited
    echo "$venv/bin/python"
    exit 0
fi

command -v "$python" >/dev/null 2>&1 || install_help "no '$python' found (set PYTHON)"
if [ ! -x "$venv/bin/python" ]; then
    echo "setup.sh: creating $venv" >&2
    "$python" -m venv "$venv" >&2 || install_help "'$python -m venv' failed"
fi
echo "setup.sh: installing $spec into $venv (once)" >&2
"$venv/bin/python" -m pip install --disable-pip-version-check --quiet "$spec" >&2 \
    || install_help "pip could not install $spec (no network?)"
has_pyspiel || install_help "$spec installed, but 'import pyspiel' fails"
echo "$venv/bin/python"
