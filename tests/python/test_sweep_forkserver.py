"""The sweep's point fork server protocol (raptor.sweep.forkserver), against
stand-in servers that answer as the real one does, so that the timing of
the answers is the test's: "pid" and "status" in one write (a point that
ends at once) must be read as they come, not after the timeout; a point
still running at the timeout is killed and reported as None."""

from __future__ import annotations

import sys
import time

import pytest

from raptor.sweep.forkserver import ForkServer

# One answer per request, both lines in a single write.
_AT_ONCE = """
import sys
print("ready", flush=True)
for line in sys.stdin:
    sys.stdout.write("pid 1\\nstatus 3\\n")
    sys.stdout.flush()
"""

# A real child that outlives the timeout, reaped after the worker kills it.
_SLOW = """
import os, subprocess, sys
print("ready", flush=True)
for line in sys.stdin:
    child = subprocess.Popen(["sleep", "60"])
    print(f"pid {child.pid}", flush=True)
    print(f"status {child.wait()}", flush=True)
"""


def test_a_point_that_ends_at_once_is_read_without_waiting_for_the_timeout() -> None:
    server = ForkServer([sys.executable, "-c", _AT_ONCE])
    started = time.monotonic()
    assert [server.run("r.json", "p.log", timeout=120) for _ in range(3)] == [3, 3, 3]
    assert time.monotonic() - started < 60  # half the timeout: the answers were not waited out


def test_a_point_past_its_timeout_is_killed_and_reported_as_none() -> None:
    server = ForkServer([sys.executable, "-c", _SLOW])
    started = time.monotonic()
    assert server.run("r.json", "p.log", timeout=0.5) is None
    assert time.monotonic() - started < 30  # killed, not waited for (it sleeps 60 s)


def test_a_server_that_answers_out_of_turn_is_an_error() -> None:
    server = ForkServer([sys.executable, "-c", "print('ready', flush=True)\nimport sys\nfor l in sys.stdin: print('status 0', flush=True)"])
    with pytest.raises(RuntimeError, match="expected 'pid', read 'status 0'"):
        server.run("r.json", "p.log", timeout=10)
