"""What several command groups share: option types, the scheduling options
of ``compile`` and ``schedule``, and output writing."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from typing import Any

from raptor import _raptor, zoo
from raptor._io import write_atomically

#: The compile's defaults (passes/pipeline/CompilePipeline.h), one source for
#: the CLI, the Python API and raptor-opt's pipelines.
DEFAULTS = _raptor.CompileOptions()


def add_choice(p: argparse.ArgumentParser, flag: str, vocabulary: str, lead: str,
               default: str | None = None, shown_default: str | None = None) -> None:
    """An option whose spellings and their help come from one of the C++
    vocabularies (raptor._raptor.vocabulary): the parser, the passes and
    this --help say the same."""
    choices = _raptor.vocabulary(vocabulary)
    said = shown_default or default
    text = "; ".join(f"{name}: {help}" + (" (default)" if name == said else "") for name, help in choices)
    # argparse formats help with %: the C++ text is literal ("10% faster").
    p.add_argument(flag, choices=[name for name, _ in choices], default=default,
                   help=f"{lead} ({text})".replace("%", "%%"))


def count(minimum: int) -> Callable[[str], int]:
    """argparse type: an integer of at least ``minimum`` (1e9 and 1_000
    spellings allowed)."""
    def parse(text: str) -> int:
        what = "a positive integer" if minimum > 0 else "a non-negative integer"
        try:
            value = int(float(text)) if "e" in text.lower() else int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, not '{text}'") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, not '{text}'")
        return value
    return parse


def count_or_auto(text: str) -> int | str:
    """argparse type of --row-block and --lane-tiles: a count (0 or more)
    or 'auto'."""
    if text == "auto":
        return text
    try:
        return count(0)(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer or 'auto', not '{text}'") from None


def fraction(text: str) -> float:
    """argparse type: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a fraction from 0 to 1, not '{text}'")
    return value


def add_pipeline_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pipeline", type=count(1), metavar="N",
                   help="schedule for throughput: inferences streamed through at most N stages of cores "
                        "(default: latency mode, one inference as fast as possible)")


def add_streaming_options(p: argparse.ArgumentParser) -> None:
    """Latency mode's options of a compile (raptor schedule schedules
    whole tensors and full lanes)."""
    default = "auto" if DEFAULTS.row_block_alternative else DEFAULTS.row_block
    p.add_argument("--row-block", type=count_or_auto, default=default, metavar="R|auto",
                   help="latency mode: convolutions compute and send their output rows in blocks of about R "
                        "rows, and the layers after them start on the first blocks (0: whole tensors per task; "
                        f"auto: {_raptor.AUTO_ROW_BLOCK} rows, half as many if predicted 5%% faster, or whole "
                        f"tensors, whole unless the scheduler predicts streaming 5%% faster; pipeline mode: whole; "
                        f"default: {default})")
    lanes = "auto" if DEFAULTS.lane_tiles_auto else DEFAULTS.lane_tiles
    p.add_argument("--lane-tiles", type=count_or_auto, default=lanes, metavar="T|auto",
                   help="latency mode: cut each weight column into lanes of at most about T row tiles, whose "
                        "partial sums their readers add (a lane runs one MVM per row tile for each output "
                        "position: shorter lanes on more cores shorten copies whose rows cannot be split "
                        f"further; 0: as many as a core holds; auto: latency mode keeps "
                        f"{_raptor.AUTO_LANE_TILES} unless a shorter height down to 1 is predicted 5%% faster, "
                        f"pipeline mode full lanes, and taller lanes where short ones do not fit; "
                        f"default: {lanes})")


def add_replication_options(p: argparse.ArgumentParser) -> None:
    add_choice(p, "--replicate", "replicate", "copy weight lanes onto spare crossbars, each copy computing a range "
               "of output rows", default=DEFAULTS.replicate)
    p.add_argument("--replication-budget", type=fraction, default=DEFAULTS.replication_budget, metavar="F",
                   help=f"fraction of the chip's crossbars lanes and copies may use "
                        f"(default: {DEFAULTS.replication_budget})")
    p.add_argument("--follow-rows", action=argparse.BooleanOptionalAction, default=None,
                   help="element-wise and pooling operators follow their input's row copies with copies of "
                        "their own (default: in pipeline mode only)")


def source_name(model: str) -> str:
    """The file a model argument reads, for diagnostics: the bundled graph
    of a zoo name."""
    return str(zoo.graph_path(model)) if model in zoo.NAMES else model


def write_json(path: str | os.PathLike[str], data: Any) -> None:
    """A report file: indented JSON and a final newline, written atomically."""
    write_atomically(path, json.dumps(data, indent=2) + "\n")
