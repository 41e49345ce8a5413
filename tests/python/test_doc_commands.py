"""Every command the documentation shows is one the tools accept: each
`raptor ...` line of a fenced shell block in README.md and docs/*.md parses
with the command's own argument parser (subcommand, options, their values
and choices), each `raptor-opt` flag it names is one raptor-opt lists, and
each `make TARGET` is a target of the Makefile. Parsing, not running: the
commands name files a reader would have (model.onnx, graph.json)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from raptor.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(?:sh|bash|console|shell)\s*\n(.*?)^```", re.M | re.S)


def _commands(tool: str) -> list[tuple[str, str]]:
    """(page:line, command without prompt or comment) of every `tool ...` line in a fenced shell block."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for block in FENCE.finditer(text):
            number = text.count("\n", 0, block.start(1))
            lines: list[tuple[int, str]] = []  # continued lines (ending in a backslash) joined
            for line in block.group(1).splitlines():
                number += 1
                if lines and lines[-1][1].endswith("\\"):
                    lines[-1] = (lines[-1][0], lines[-1][1][:-1] + " " + line.strip())
                else:
                    lines.append((number, line.strip()))
            for first, line in lines:
                line = line.removeprefix("$ ")
                if not line.startswith(tool + " "):
                    continue
                words = shlex.split(line, comments=True)
                # A pipe or a shell sequence ends the command.
                for stop in ("|", "&&", ";", ">", "2>"):
                    if stop in words:
                        words = words[:words.index(stop)]
                found.append((f"{page.relative_to(ROOT)}:{first}", shlex.join(words)))
    return found


RAPTOR = _commands("raptor")


def test_the_docs_show_commands() -> None:
    assert len(RAPTOR) >= 50
    assert {shlex.split(c)[1] for _, c in RAPTOR} >= {"compile", "simulate", "import", "schedule", "rdg",
                                                       "codec-report", "cycle-ratio", "sweep", "summary"}


@pytest.mark.parametrize("where, command", RAPTOR, ids=[w for w, _ in RAPTOR])
def test_every_raptor_command_in_the_docs_parses(where: str, command: str) -> None:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            build_parser().parse_args(shlex.split(command)[1:])
        except SystemExit as e:
            pytest.fail(f"{where}: `{command}` is refused: {stderr.getvalue().strip().splitlines()[-1:]} "
                        f"(exit {e.code})")


def test_every_raptor_opt_flag_in_the_docs_exists() -> None:
    raptor_opt = shutil.which("raptor-opt", path=str(Path(sys.executable).parent)) or "raptor-opt"
    listed = subprocess.run([raptor_opt, "--help-hidden"], capture_output=True, text=True, check=True).stdout
    flags = set(re.findall(r"--[a-z][\w-]*", listed))
    shown = {(where, flag) for where, command in _commands("raptor-opt")
             for flag in re.findall(r"(?<![\w-])--[a-z][\w-]*", command.split("{")[0])}
    assert len(shown) >= 10
    missing = sorted(f"{where}: {flag}" for where, flag in shown if flag not in flags)
    assert not missing, missing


def test_every_make_target_in_the_docs_exists() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z][\w-]*):", makefile, re.M))
    shown = [(where, shlex.split(c)[1]) for where, c in _commands("make") if len(shlex.split(c)) > 1]
    assert len(shown) >= 3
    missing = [f"{where}: make {t}" for where, t in shown if "=" not in t and t not in targets]
    assert not missing, missing
