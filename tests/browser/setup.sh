#!/usr/bin/env bash
# Makes headless Chromium and its WebDriver available for the browser test (tests/browser.rs)
# and prints two lines on stdout: the path of chromium, then the path of chromedriver
# (messages go to stderr).
#
#   tests/browser/setup.sh      # installs Debian's chromium and chromium-driver once (as root)
#
# Idempotent: when both are on the PATH it only prints them. Another process may be running
# apt at the same time: a locked apt is waited for and tried again (up to about 10 minutes).
# Environment:
#   CHROMIUM, CHROMEDRIVER   use these binaries instead (nothing is installed)
set -euo pipefail

find_bins() {
    chromium="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
    driver="${CHROMEDRIVER:-$(command -v chromedriver || command -v chromium-driver || true)}"
    [ -n "$chromium" ] && [ -x "$chromium" ] && [ -n "$driver" ] && [ -x "$driver" ]
}

if find_bins; then
    echo "$chromium"
    echo "$driver"
    exit 0
fi

install_help() {
    cat >&2 <<HELP
setup.sh: $1
The browser test needs headless Chromium and chromedriver. On Debian or Ubuntu, as root:
    apt-get update && apt-get install -y chromium chromium-driver
or point CHROMIUM and CHROMEDRIVER at installed binaries, then run the tests again.
HELP
    exit 1
}

command -v apt-get >/dev/null 2>&1 || install_help "no apt-get here, and chromium or chromedriver is missing"
[ "$(id -u)" = 0 ] || install_help "not root, so apt-get cannot install chromium"

# apt-get with retries while another apt holds its lock.
apt_retry() {
    local tries=0
    until DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=60 "$@" >&2; do
        tries=$((tries + 1))
        [ "$tries" -lt 10 ] || return 1
        echo "setup.sh: apt-get $1 failed (locked by another install?); trying again" >&2
        sleep 5
        find_bins && return 0
    done
}

echo "setup.sh: installing chromium and chromium-driver with apt-get (once)" >&2
apt_retry update -q || install_help "apt-get update failed (no network?)"
find_bins || apt_retry install -y -q --no-install-recommends chromium chromium-driver \
    || install_help "apt-get install chromium chromium-driver failed"
find_bins || install_help "chromium-driver installed, but chromium or chromedriver is not on the PATH"
echo "$chromium"
echo "$driver"
