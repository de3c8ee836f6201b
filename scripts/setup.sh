#!/usr/bin/env bash
# Installs exactly what mur needs to build and test, with apt-get. Idempotent: a package that
# is already installed is skipped, and apt-get update runs only when something is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config ccache
  libcaf-dev librestinio-dev libasio-dev libfmt-dev libhttp-parser-dev
  nlohmann-json3-dev libyaml-cpp-dev libsodium-dev libcurl4-openssl-dev libcli11-dev libssl-dev
  iproute2
  catch2
  clang-14 libfuzzer-14-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: every package is present" >&2
fi

# Installs the Debian packages $2… when command $1 is not on PATH (whatever provides it).
install_for_command() {
  local cmd=$1
  shift
  command -v "$cmd" >/dev/null && return 0
  local SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: installing $*" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# Node >= 20 runs the interop, model and harness suites (tests/interop, tests/models, tests/harness).
install_for_command node nodejs npm
# Python 3 runs the agent programs of examples/harness and of some process tests (standard
# library only).
install_for_command python3 python3
# Chromium (headless) opens mur view's page in the browser test (tests/browser) and makes the
# screenshot docs/images/view.png.
install_for_command chromium chromium
