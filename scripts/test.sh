#!/usr/bin/env bash
# Install everything the test suite needs on a fresh Debian machine, then run it all.
#   Debian packages: chromium + chromium-driver (browser tests), graphviz (graph layout),
#   python3-venv when this Python cannot make a virtual environment
#   Python: a virtual environment in .venv with the project and its [test] and [ray] extras
#   (EXTRAS=test,ray,jax for the [jax] extra too)
# It needs root or sudo for apt-get; the suite takes about 10 minutes on 2 cores (2 xdist workers).
# Extra arguments go to pytest (e.g. `bash scripts/test.sh -k planner -x`).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
command -v dot >/dev/null 2>&1 || need_apt+=(graphviz)
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -c "import ensurepip, venv" >/dev/null 2>&1 || need_apt+=(python3-venv)
if [ ${#need_apt[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "installing Debian packages: ${need_apt[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# EXTRAS=test,ray,jax (what .ci/run sets) also runs the StableHLO and `workbench capture` tests,
# which are skipped without jax
.venv/bin/python -m pip install -q -e ".[${EXTRAS:-test,ray}]"

export DASH_TEST_CHROMEPATH="${DASH_TEST_CHROMEPATH:-/usr/bin/chromium}"
export WORKBENCH_CACHE_DIR="${WORKBENCH_CACHE_DIR:-$PWD/.cache/workbench}"
# the suite keeps the quick probe's cpu profile: no calibration on first use (minutes)
export WORKBENCH_NO_CALIBRATE=1
# two pytest-xdist workers (WORKBENCH_TEST_WORKERS=0 runs in one process); the local Ray cluster's
# tests and each file with an expensive module fixture stay on one worker (tests/conftest.py)
workers="${WORKBENCH_TEST_WORKERS:-2}"
xdist=()
[ "$workers" != "0" ] && xdist=(-n "$workers" --dist loadgroup)
exec .venv/bin/python -m pytest --headless "${xdist[@]}" "$@"
