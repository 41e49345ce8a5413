"""What both sides of the mutation driver share: outcomes, bounded test runs,
the clean-tree check and the in-place edit that is always undone."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = ROOT / ".venv" / "bin"
PYTHON = VENV_BIN / "python"

KILLED, SURVIVED, TIMEOUT, INVALID = "killed", "survived", "timeout", "invalid"


@dataclass
class Mutant:
    """One single-site mutation of one source file, and what the tests made of it."""

    side: str  # "python" or "c++"
    module: str  # the row of the table it counts in
    path: str  # relative to the repository root
    line: int
    operator: str
    diff: str
    tests: list[str] = field(default_factory=list)
    outcome: str = ""
    seconds: float = 0.0
    detail: str = ""  # the command that killed it, or why it is invalid

    def to_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class RunResult:
    status: str  # "pass", "fail" or "timeout"
    seconds: float
    tail: str


def run_bounded(cmd: Sequence[str], timeout: float, env: dict[str, str] | None = None) -> RunResult:
    """Runs `cmd` from the repository root; on timeout its whole process group is ended."""
    start = time.monotonic()
    proc = subprocess.Popen(list(cmd), cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace",
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return RunResult("timeout", time.monotonic() - start, (out or "")[-2000:])
    status = "pass" if proc.returncode == 0 else "fail"
    return RunResult(status, time.monotonic() - start, (out or "")[-2000:])


def test_env() -> dict[str, str]:
    """The environment of a test run: the project's .venv first on PATH, no bytecode cache
    (a mutated module must never leave a .pyc that outlives its restoration)."""
    env = dict(os.environ)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["VIRTUAL_ENV"] = str(ROOT / ".venv")
    return env


def dirty_paths(paths: Sequence[str]) -> list[str]:
    """The files under `paths` that differ from git's index or HEAD (untracked ones aside)."""
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", *paths],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return [line[3:] for line in out.splitlines() if line.strip()]


def require_clean(paths: Sequence[str]) -> None:
    """Mutating a tree with uncommitted edits would make restoring it ambiguous: refuse."""
    dirty = dirty_paths(paths)
    if dirty:
        raise SystemExit("mutate: uncommitted changes under the mutated sources, commit or stash "
                         "them first:\n  " + "\n  ".join(dirty))


@contextlib.contextmanager
def edited(path: Path, new_text: str) -> Iterator[None]:
    """Writes `new_text` into `path` for the duration of the block, then puts the
    original bytes back, whatever happened (exception, Ctrl-C, timeout)."""
    original = path.read_bytes()
    try:
        path.write_text(new_text, encoding="utf-8")
        yield
    finally:
        path.write_bytes(original)


def unified_diff(path: str, before: str, after: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}", n=0))
