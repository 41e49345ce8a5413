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
# One worker per core of the 2-core CI machine (RAPTOR_TEST_WORKERS=0: in
# this process, as a debugger wants it); the tests of one xdist_group (the
# Ray sweeps) share a worker.
python -m pytest -q -n "${RAPTOR_TEST_WORKERS:-2}" --dist loadgroup tests/python "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit "$status"
