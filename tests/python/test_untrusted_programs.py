"""Program directories as untrusted input (issue 27): every file the
readers open (the manifest, memory.bin, chip.json, network.json, the
pimsim-nn files) stays inside the directory, and every count of chip.json,
network.json and the manifest is bounded before anything is allocated.
Each case is one line on stderr, exit 1, no traceback; its valid neighbour
(the unedited directory) loads and runs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mlir import ir

import raptor
from raptor import pim, weights

from test_pim_program import B, SOURCE, W

RAPTOR = [sys.executable, "-m", "raptor"]
TARGET = Path(__file__).parent.parent / "lit" / "passes" / "pim" / "Inputs" / "tiny.json"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The linear layer of the program tests on the 4-core test target, with
    both pimsim-nn forms."""
    root = tmp_path_factory.mktemp("program")
    weights.save(root / "model.safetensors", {"fc.weight": W, "fc.bias": B})
    with raptor.Context():
        module = ir.Module.parse(SOURCE)
    pim.compile(module, root / "out", weights=root / "model.safetensors", target=TARGET, pimsim="both")
    return root / "out"


def refused(directory: Path, *command: str) -> str:
    """The one-line error of ``raptor COMMAND DIRECTORY ...``."""
    r = subprocess.run(RAPTOR + [command[0], str(directory), *command[1:]], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1 and r.stderr.startswith("raptor: error: ")
    return r.stderr


def edited(program: Path, tmp_path: Path, name: str, edit: Callable[[dict], None]) -> Path:
    """A copy of the program whose JSON file ``name`` went through ``edit``."""
    directory = tmp_path / "edited"
    shutil.copytree(program, directory)
    data = json.loads((directory / name).read_text())
    edit(data)
    (directory / name).write_text(json.dumps(data))
    return directory


def test_the_unedited_program_runs_in_every_reader(program: Path) -> None:
    """The valid neighbour of every case below."""
    for command in (["simulate"], ["simulate", "--timing"], ["simulate", "--form", "pimsim"], ["periodic"]):
        r = subprocess.run(RAPTOR + [command[0], str(program), *command[1:]], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, (command, r.stderr)


@pytest.mark.parametrize("name, command", [("memory.bin", ["simulate"]), ("manifest.json", ["simulate"]),
                                           ("chip.json", ["simulate", "--timing"]), ("network.json", ["periodic"]),
                                           ("core_0.pim", ["simulate", "--form", "pimsim"])])
def test_a_fixed_file_that_links_out_of_the_directory_is_not_read(program: Path, tmp_path: Path, name: str,
                                                                  command: list[str]) -> None:
    """The files a reader opens by their fixed names may not be symbolic
    links leaving the directory either, although the file linked to is the
    right one byte for byte (memory.bin, chip.json, network.json and the
    pimsim-nn files were read through the link)."""
    directory = tmp_path / "p"
    shutil.copytree(program, directory)
    outside = tmp_path / f"outside-{name}"
    (directory / name).rename(outside)
    (directory / name).symlink_to(outside)
    assert f"'{name}' is not a file inside the program directory" in refused(directory, *command)
    # A link that stays inside is the file itself.
    (directory / name).unlink()
    (directory / f"real-{name}").write_bytes(outside.read_bytes())
    (directory / name).symlink_to(f"real-{name}")
    r = subprocess.run(RAPTOR + [command[0], str(directory), *command[1:]], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr


def _core(key: str, value: int) -> Callable[[dict], None]:
    def edit(chip: dict) -> None:
        chip["chip_config"]["core_config"][key] = value
    return edit


def test_a_reorder_buffer_beyond_the_bound_is_refused(program: Path, tmp_path: Path) -> None:
    """rob_size 2^40 was a MemoryError traceback (a buffer per core); the
    bound is 2^16 entries, which still runs."""
    directory = edited(program, tmp_path, "chip.json", _core("rob_size", 2**40))
    for command in (["simulate", "--timing"], ["periodic"]):
        assert "rob_size 1099511627776 is more than the 65536 supported" in refused(directory, *command)
    shutil.rmtree(directory)
    directory = edited(program, tmp_path, "chip.json", _core("rob_size", 65536))
    assert pim.Program.load(directory).time().latency_ns > 0


def test_a_core_count_without_the_network_rows_is_refused_before_allocating(program: Path, tmp_path: Path) -> None:
    """core_cnt 100000 beside the program's network.json asked for a
    (cores + 1)^2 latency table (80 GB) before finding a row missing."""
    def many(chip: dict) -> None:
        chip["chip_config"]["core_cnt"] = 100000
    directory = edited(program, tmp_path, "chip.json", many)
    for command in (["simulate", "--timing"], ["periodic"]):
        assert "has fewer than 100000 destinations" in refused(directory, *command)


def test_manifest_counts_that_overflow_are_refused(program: Path, tmp_path: Path) -> None:
    """A record count near 2^63 overflowed the file size computed from it;
    an input shape of two 2^40 sizes overflowed its element count; negative
    byte counts switched the size check off."""
    def records(m: dict) -> None:
        m["cores"][0]["records"] = 2**62
    assert "records 4611686018427387904 is out of range" in refused(edited(program, tmp_path, "manifest.json",
                                                                          records), "simulate")
    shutil.rmtree(tmp_path / "edited")

    def shape(m: dict) -> None:
        m["inputs"][0]["shape"] = [2**40, 2**40]
    assert "'shape' must list sizes whose product int64 counts" in refused(
        edited(program, tmp_path, "manifest.json", shape), "simulate")
    shutil.rmtree(tmp_path / "edited")

    def negative(m: dict) -> None:
        m["cores"][0]["weights_bytes"] = -1
    assert "weights_bytes must not be negative" in refused(edited(program, tmp_path, "manifest.json", negative),
                                                           "simulate")
