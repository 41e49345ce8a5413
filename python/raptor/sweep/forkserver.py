"""A fork server for points: the compiler and torch imported once per worker,
each point a fresh fork of it.

A point in a process of its own can be killed at its timeout and can crash
without taking the worker along; starting Python and importing torch for
each point would cost more than compiling a small model. So each worker
keeps one server (``python -m raptor.sweep.forkserver``) that imports the
compiler and torch, then forks one child per request. The protocol is one
line each way on its standard streams::

    worker -> server   {"request": "REQUEST.json", "log": "point.log"}
    server -> worker   pid PID          (the child runs)
    server -> worker   status CODE      (its exit code, or minus its signal)

(Python's multiprocessing fork server would re-import the worker's main
module, Ray's, in every child.) The server ends with its worker and a
point with its server (Linux's parent-death signal).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import time
import traceback

__all__ = ["ForkServer"]

PRELOAD = ("raptor.sweep.point", "raptor.pim", "raptor.sources", "raptor.quant")


class ForkServer:
    """The worker's end: starts the server on first use, runs requests.

    The server's answers are read from its pipe unbuffered, line by line:
    a point that ends at once sends "pid" and "status" in one write, and a
    buffered reader would take both while `select` on the pipe then waited
    out the whole timeout for a line already read (a sweep test hung for
    it, and the finished point came back as timed out)."""

    def __init__(self, command: list[str] | None = None) -> None:
        self._command = command or [sys.executable, "-m", "raptor.sweep.forkserver"]
        self._process: subprocess.Popen[bytes] | None = None
        self._pending = b""  # read from the server, not yet a whole line

    def _server(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self._pending = b""
            self._process = subprocess.Popen(self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                                             env={**os.environ, "RAPTOR_SWEEP_PARENT": str(os.getpid())})
            if self._read(None) != "ready":
                raise RuntimeError("the point fork server did not start")
        return self._process

    def run(self, request: str, log: str, timeout: float) -> int | None:
        """Runs a point; its exit code (minus the signal that ended it), or
        None when it was still running after ``timeout`` seconds (it is
        then killed)."""
        server = self._server()
        line = (json.dumps({"request": request, "log": log}) + "\n").encode()
        while line:  # (unbuffered: a write may take part of it)
            line = line[server.stdin.write(line):]
        pid = int(self._line("pid", None))
        status = self._line("status", time.monotonic() + timeout)
        if status is not None:
            return int(status)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:  # it ended as the time ran out
            pass
        self._line("status", None)
        return None

    def _read(self, deadline: float | None) -> str | None:
        """The server's next line, or None at ``deadline``."""
        assert self._process is not None and self._process.stdout is not None
        fd = self._process.stdout.fileno()
        while b"\n" not in self._pending:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and (left <= 0 or not select.select([fd], [], [], left)[0]):
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode()

    def _line(self, word: str, deadline: float | None) -> str | None:
        """The value of the server's next line, which must be ``word VALUE``
        (None at ``deadline``)."""
        text = self._read(deadline)
        if text is None:
            return None
        line = text.split()
        if len(line) != 2 or line[0] != word:
            self._process = None
            raise RuntimeError(f"the point fork server stopped (expected '{word}', read {' '.join(line)!r})")
        return line[1]


def _die_with(parent: int) -> None:
    """Ends this process when ``parent`` does (SIGKILL on Linux)."""
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
    if os.getppid() != parent:  # it went before the signal was set
        os._exit(1)


def _child(request: str, log: str) -> None:
    """A forked point: the compiler's own output (and a crash's last words)
    go to ``log``, the row to the request's result file."""
    from . import point

    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    point.main([request])


def _serve() -> None:
    _die_with(int(os.environ["RAPTOR_SWEEP_PARENT"]))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's: it cancels the tasks
    for name in PRELOAD + (("torch",) if importlib.util.find_spec("torch") else ()):
        importlib.import_module(name)
    print("ready", flush=True)
    server = os.getpid()
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                _die_with(server)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                _child(job["request"], job["log"])
            except BaseException:  # noqa: BLE001 (the point's log says what; the exit code says it failed)
                traceback.print_exc()
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        print(f"pid {pid}", flush=True)
        _, status = os.waitpid(pid, 0)
        print(f"status {os.waitstatus_to_exitcode(status)}", flush=True)


if __name__ == "__main__":
    _serve()
