"""The ``raptor`` command: what needs Python (model import, compilation,
simulation, reports).

    raptor models                                  list the zoo
    raptor import --model shufflenet_v2 -o g.mlir  torch.export -> nn
    raptor import model.pt2 -o g.mlir              a torch.export.save file -> nn
    raptor import model.onnx -o g.mlir             an ONNX model -> nn
    raptor summary shufflenet_v2                   operator/weight report
    raptor summary g.mlir --json
    raptor compile shufflenet_v2 -o out            per-core PIM programs
    raptor simulate out --check                    run them, compare with torch
    raptor targets                                 the bundled targets (--target NAME)
    raptor codec-report unet --policy W --placement local --json
    raptor rdg gemv.sure --json gemv.json          reduced dependency graph
    raptor cycle-ratio graph.json --json           exact maximum cycle ratio

This module holds the parser and ``main``; each group of commands lives in
its own module, arguments beside implementation, and joins the parser
through :data:`COMMANDS`. Every command that takes a model resolves it with
:func:`raptor.sources.load`. IR-to-IR work (passes, pipelines) is
``raptor-opt``'s job. Errors in the user's input are one line (or MLIR's
located diagnostics) and exit code 1.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence

from raptor._io import UserError

from ..sweep import command as sweep
from . import codec_report, models, pictures, programs, scheduling, targets
from .models import format_summary
from .scheduling import format_cycle_ratio

__all__ = ["COMMANDS", "build_parser", "format_cycle_ratio", "format_summary", "main"]

#: The command groups, in the order ``raptor --help`` lists them: each
#: module's ``register(subparsers)`` adds its commands (a new group is one
#: more entry here).
COMMANDS = (models, programs, scheduling, targets, codec_report, pictures, sweep)


def _version() -> str:
    """The installed package's version (pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("raptor")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The ``raptor`` argument parser, every command group registered."""
    parser = argparse.ArgumentParser(
        prog="raptor", description="Raptor: ML models to processing-in-memory accelerators.")
    parser.add_argument("--version", action="version", version=f"raptor {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in COMMANDS:
        group.register(sub)
    return parser


def _terminated(signum: int, _frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C (writers remove their staging copies)."""
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one ``raptor`` command line; returns the exit code."""
    argv = pictures.specs_are_positional(list(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(argv)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminated)
    try:
        return args.run(args)
    except (UserError, ValueError) as e:
        print(f"raptor: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (e.g. `head`) went away: not an error of ours.
        sys.stderr.close()
        return 0
