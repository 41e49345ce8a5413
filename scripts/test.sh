#!/usr/bin/env bash
# Runs Raptor's whole test suite: the lit/FileCheck tests, then pytest.
# Assumes scripts/setup.sh has run (the Makefile's `test` target does both).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
. .venv/bin/activate

echo "== lit (FileCheck) =="
lit -sv tests/lit

echo "== pytest =="
set +e
# RAPTOR_TEST_WORKERS=2: one worker per core (11:36 instead of 21:41 on the
# 2-core machine); one process by default until a clean-clone CI run with
# two workers, which stalled in the Ray sweep tests, is understood.
python -m pytest -q -n "${RAPTOR_TEST_WORKERS:-0}" tests/python "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit "$status"
