#!/usr/bin/env bash
# Sets up Raptor's development environment in .venv: the pinned packages of
# requirements/lock.txt (MLIR 22 wheels, torch frontend, test tools), then an
# editable install of raptor itself, which configures and builds the C++
# (incrementally, with ccache when present) into build/.
# Safe to run again: packages are reinstalled only when the lock file changes.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
# Lets ccache reuse objects across checkouts of the project (e.g. CI clones).
export CCACHE_BASEDIR="$PWD"
if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv with $($python --version)"
  "$python" -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate

stamp=".venv/.raptor-lock-$(cat requirements/lock.txt requirements/oracles.txt | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "[setup] installing pinned packages (requirements/lock.txt)"
  python -m pip install --quiet --disable-pip-version-check --upgrade pip==25.3
  python -m pip install --quiet --disable-pip-version-check -r requirements/lock.txt
  python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements/oracles.txt
  rm -f .venv/.raptor-lock-*
  touch "$stamp"
fi

echo "[setup] building raptor (C++ dialects and passes, raptor-opt, Python extension)"
python -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps -e .
echo "[setup] ready: $(command -v raptor-opt), $(command -v raptor)"
