"""Near-miss program directories: the reader of `raptor simulate` and
pim.Program.load (simulator/Program.cpp readDirectory: manifest.json,
memory.bin, weights/*.bin, raptor/*.rpim, the origins tables) on directories
one edit away from a freshly compiled one.

Every negative is a one-line UserError naming the file and the field; its
valid neighbour (the same directory unedited, or the legal side of the same
boundary) loads, with the value the edit implies derived here from the
manifest (never from the reader). The complementary damage to files
(truncation, bad headers, unknown opcodes) is in test_pim_program.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mlir import ir

import raptor
from raptor import pim, weights

# The linear layer of the program tests, its weights and input.
from test_pim_program import B, SOURCE, W, X

RAPTOR = [sys.executable, "-m", "raptor"]
TARGET = Path(__file__).parent.parent / "lit" / "passes" / "pim" / "Inputs" / "tiny.json"

Manifest = dict[str, Any]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A linear layer and a relu compiled for the 4-core test target."""
    root = tmp_path_factory.mktemp("near-miss-program")
    weights.save(root / "model.safetensors", {"fc.weight": W, "fc.bias": B})
    with raptor.Context():
        module = ir.Module.parse(SOURCE)
    pim.compile(module, root / "out", weights=root / "model.safetensors", target=TARGET, pimsim="none")
    return root / "out"


def copy_of(program: Path, tmp_path: Path) -> Path:
    target = tmp_path / "dir"
    shutil.copytree(program, target)
    return target


def edit(directory: Path, change: Callable[[Manifest], object]) -> None:
    path = directory / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


def first_core_with_groups(m: Manifest) -> dict[str, Any]:
    return next(c for c in m["cores"] if c["groups"])


def cosize(layout: str) -> int:
    """1 + sum((shape - 1) * stride) over the leaves of SHAPE:STRIDE, read here."""
    import ast

    shape, stride = (ast.literal_eval(part) for part in layout.split(":"))

    def leaves(t: Any) -> list[int]:
        return [x for c in t for x in leaves(c)] if isinstance(t, tuple) else [t]

    return 1 + sum((s - 1) * d for s, d in zip(leaves(shape), leaves(stride)))


def test_the_unedited_directory_loads_and_computes(program: Path) -> None:
    """The neighbour of every edit below: it loads and computes the model."""
    loaded = pim.Program.load(program)
    assert loaded.inputs == [("x", (1, 3, 12), "float32")]
    out = loaded.simulate(X).outputs
    np.testing.assert_allclose(next(iter(out.values())), np.maximum(X @ W.T + B, 0), rtol=1e-5, atol=1e-6)


def set_in(path: list[str], value: Any) -> Callable[[Manifest], None]:
    """An edit setting manifest[path] to value (a function: of its old
    value), or deleting it (_DELETE)."""
    def change(m: Manifest) -> None:
        node: Any = m
        for key in path[:-1]:
            node = node[key]
        if value is _DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value(node[path[-1]]) if callable(value) else value
    return change


_DELETE = object()


@pytest.mark.parametrize("change, message", [
    # The format tag misspelt, the version off by one or a string.
    (set_in(["format"], "raptor-pimm"), r"manifest.json' is not a Raptor program manifest"),
    (set_in(["version"], lambda v: v + 1), r"manifest.json' has an unsupported format version"),
    (set_in(["version"], lambda v: str(v)), r"manifest.json' has an unsupported format version"),
    # Chip fields: zero, missing, of the wrong type, a pair one entry short.
    (set_in(["chip", "cores"], 0), r"chip\.cores = 0 is out of range"),
    (set_in(["chip", "crossbars_per_core"], _DELETE), r"chip: missing 'crossbars_per_core'"),
    (set_in(["chip", "cell_bits"], 8.5), r"chip: 'cell_bits' must be an integer"),
    (set_in(["chip", "xbar_size"], lambda s: s[:1]), r"chip\.xbar_size must be \[rows, cols\]"),
    (set_in(["chip", "xbar_size"], lambda s: [s[0], 0]), r"chip\.xbar_size must be \[rows, cols\]"),
    # An input's name misspelt, a negative size, a size one too many, a dtype, a truncated layout.
    (lambda m: m["inputs"][0].update(nmae=m["inputs"][0].pop("name")), r"inputs\[0\]: missing 'name'"),
    (lambda m: m["inputs"][0].update(shape=[1, 3, -12]), r"inputs\[0\]: 'shape' must list sizes"),
    (lambda m: m["inputs"][0].update(shape=[1, 3, 13]), r"inputs\[0\]: layout .* does not have the shape's 39 elements"),
    (lambda m: m["inputs"][0].update(dtype="float16"), r"inputs\[0\]: dtype 'float16' is not supported"),
    (lambda m: m["inputs"][0].update(layout=m["inputs"][0]["layout"][:-1]), r"inputs\[0\]: layout '.*': expected"),
    # A vocabulary (token ids) on a float32 input, of 0 ids, one past 2^24 (ids pass through float32).
    (lambda m: m["inputs"][0].update(vocabulary=10), r"inputs\[0\]: 'vocabulary' needs an int32 buffer"),
    (lambda m: m["inputs"][0].update(dtype="int32", fixed_point_bits=0, vocabulary=0),
     r"inputs\[0\]: 'vocabulary' needs .* a size in 1\.\.2\^24"),
    (lambda m: m["inputs"][0].update(dtype="int32", fixed_point_bits=0, vocabulary=2**24 + 1),
     r"inputs\[0\]: 'vocabulary' needs .* a size in 1\.\.2\^24"),
    (set_in(["outputs"], _DELETE), r"manifest.json': missing 'outputs'"),
    # The input one byte past the end of global memory; a negative address.
    (lambda m: m["inputs"][0].update(address=m["global_memory_bytes"] - 4 * cosize(m["inputs"][0]["layout"]) + 1),
     r"inputs\[0\]: the buffer leaves the \d+-byte global memory"),
    (lambda m: m["inputs"][0].update(address=-4), r"inputs\[0\]: the buffer leaves the \d+-byte global memory"),
    # An address near 2^63: the end overflowed negative and was accepted (the simulator then crashed).
    (lambda m: m["inputs"][0].update(address=2**63 - 1), r"inputs\[0\]: the buffer leaves the \d+-byte global memory"),
    # A core id one past the last; a group of one row more than a crossbar has,
    # numbered 1 first, or one byte past its weights file.
    (lambda m: first_core_with_groups(m).update(id=m["chip"]["cores"]), r"core id 4 outside 0\.\.3"),
    (lambda m: first_core_with_groups(m).update(id=-1), r"core id -1 outside 0\.\.3"),
    (lambda m: first_core_with_groups(m)["groups"][0].update(rows=m["chip"]["xbar_size"][0] + 1),
     r"group 0 has an impossible shape or id"),
    (lambda m: first_core_with_groups(m)["groups"][0].update(id=1), r"group 1 has an impossible shape or id"),
    (lambda m: first_core_with_groups(m)["groups"][0].update(crossbars=0), r"group 0 has an impossible shape or id"),
    (lambda m: first_core_with_groups(m)["groups"][0].update(
        offset=first_core_with_groups(m)["weights_bytes"] - 4 * first_core_with_groups(m)["groups"][0]["rows"]
        * first_core_with_groups(m)["groups"][0]["cols"] + 1), r"group 0 leaves its weights file"),
    # An offset near 2^63: the end overflowed negative and the reader crashed copying the weights.
    (lambda m: first_core_with_groups(m)["groups"][0].update(offset=2**63 - 1), r"group 0 leaves its weights file"),
    # File sizes off by one: the weights file and the record count.
    (lambda m: first_core_with_groups(m).update(weights_bytes=first_core_with_groups(m)["weights_bytes"] + 1),
     r"\.bin' has \d+ bytes but the manifest says \d+ \(truncated\?\)"),
    (lambda m: first_core_with_groups(m).update(records=first_core_with_groups(m)["records"] - 1),
     r"\.rpim' has \d+ bytes but the manifest says \d+ \(truncated\?\)"),
    # The program file's key misspelt; the operator list holding a number.
    (lambda m: first_core_with_groups(m).update(porgram=first_core_with_groups(m).pop("program")),
     r"lacks 'program'"),
    (lambda m: m.update(operators=m["operators"] + [7]), r"'operators' must hold strings"),
])
def test_manifest_near_misses_are_one_line_errors(program: Path, tmp_path: Path, change, message: str) -> None:
    """Each check of readDirectory refuses its near miss in one line."""
    directory = copy_of(program, tmp_path)
    edit(directory, change)
    with pytest.raises(pim.UserError, match=message) as info:
        pim.Program.load(directory)
    assert "\n" not in str(info.value)


def test_a_truncated_manifest_and_an_extra_token_are_not_json(program: Path, tmp_path: Path) -> None:
    directory = copy_of(program, tmp_path)
    text = (program / "manifest.json").read_text()
    for broken in (text.rstrip()[:-1], text + "]"):
        (directory / "manifest.json").write_text(broken)
        with pytest.raises(pim.UserError, match=r"manifest.json' is not valid JSON"):
            pim.Program.load(directory)


def test_legal_manifest_near_misses_load_with_their_value(program: Path, tmp_path: Path) -> None:
    """The legal side of the boundaries above: the input at the very end of
    global memory (its last byte the memory's last), another shape of the
    same 36 elements (which the program then expects), the last core id
    (an idle core listed twice is the same core), the group at the very end
    of its weights file."""
    m = json.loads((program / "manifest.json").read_text())
    directory = copy_of(program, tmp_path)

    def at_the_end(m: Manifest) -> None:
        m["inputs"][0]["address"] = m["global_memory_bytes"] - 4 * cosize(m["inputs"][0]["layout"])
    edit(directory, at_the_end)
    assert pim.Program.load(directory).inputs == [("x", (1, 3, 12), "float32")]

    edit(directory, lambda m: m["inputs"][0].update(shape=[3, 12]))
    assert pim.Program.load(directory).inputs == [("x", (3, 12), "float32")]

    core = first_core_with_groups(m)
    group = core["groups"][0]
    last = core["weights_bytes"] - 4 * group["rows"] * group["cols"]
    edit(directory, lambda m: first_core_with_groups(m)["groups"][0].update(offset=last))
    pim.Program.load(directory)  # loads: the group ends exactly at the file's end


def test_origins_one_past_the_operator_list_are_refused(program: Path, tmp_path: Path) -> None:
    """The origins table names operators -1..len(operators)-1: the last is
    legal, one more is refused."""
    m = json.loads((program / "manifest.json").read_text())
    core = next(c for c in m["cores"] if c.get("origins"))
    n = len(m["operators"])
    for origin, ok in ((n - 1, True), (-1, True), (n, False), (-2, False)):
        directory = copy_of(program, tmp_path / str(origin))
        path = directory / core["origins"]
        entries = len(path.read_bytes()) // 4
        path.write_bytes(np.full(entries, origin, "<i4").tobytes())
        if ok:
            pim.Program.load(directory)
        else:
            with pytest.raises(pim.UserError, match=rf"operator {origin} is not in the manifest's list of {n}"):
                pim.Program.load(directory)


def test_simulate_refuses_a_near_miss_directory_in_one_line(program: Path, tmp_path: Path) -> None:
    """From the command line: exit 1, one line, nothing on stdout."""
    directory = copy_of(program, tmp_path)
    edit(directory, lambda m: first_core_with_groups(m).update(id=m["chip"]["cores"]))
    result = subprocess.run(RAPTOR + ["simulate", str(directory), "--json"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1 and result.stdout == "" and "Traceback" not in result.stderr
    assert result.stderr.startswith("raptor: error: ") and result.stderr.count("\n") == 1
    assert "core id 4 outside 0..3" in result.stderr
