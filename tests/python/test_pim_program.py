"""Program directories: the file forms agree, and malformed or truncated
directories, bad compiler inputs and bad simulator inputs give one clear
error (exit 1 from the command line) and leave no partial output."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from mlir import ir

import raptor
from raptor import _raptor, pim, weights

RAPTOR = [sys.executable, "-m", "raptor"]
TARGETS = Path(__file__).parent.parent / "lit" / "passes" / "pim" / "Inputs"

SOURCE = """func.func @main(%x: tensor<1x3x12xf32> {nn.input = "x"}, %w: tensor<10x12xf32> {nn.param = "fc.weight"},
                %b: tensor<10xf32> {nn.param = "fc.bias"}) -> tensor<1x3x10xf32> {
  %0 = nn.linear %x, %w, %b : (tensor<1x3x12xf32>, tensor<10x12xf32>, tensor<10xf32>) -> tensor<1x3x10xf32>
  %1 = nn.relu %0 : tensor<1x3x10xf32>
  return %1 : tensor<1x3x10xf32>
}
"""
RNG = np.random.default_rng(0)
W, B = RNG.standard_normal((10, 12)).astype(np.float32), RNG.standard_normal(10).astype(np.float32)
X = RNG.standard_normal((1, 3, 12)).astype(np.float32)


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small program (a linear layer on the 4-core test target, both
    pimsim-nn forms) and its source files."""
    root = tmp_path_factory.mktemp("program")
    (root / "model.mlir").write_text(SOURCE)
    weights.save(root / "model.safetensors", {"fc.weight": W, "fc.bias": B})
    with raptor.Context():
        module = ir.Module.parse(SOURCE)
    pim.compile(module, root / "out", weights=root / "model.safetensors", target=TARGETS / "tiny.json",
                pimsim="both")
    return root


def reference() -> np.ndarray:
    return np.maximum(X @ W.T + B, 0)


def test_every_form_computes_the_model(program: Path) -> None:
    for form in ("compact", "pimsim"):
        out = pim.simulate(program / "out", X, form).outputs["out0"]
        np.testing.assert_allclose(out, reference(), rtol=1e-5, atol=1e-6)


def test_json_and_binary_pimsim_files_hold_the_same_program(program: Path) -> None:
    """core_0.json decoded field by field equals core_0.pim's records."""
    records = (program / "out" / "core_0.pim").read_bytes()
    assert records[:4] == b"PIMB"
    version, count = struct.unpack("<II", records[4:12])
    instructions = json.loads((program / "out" / "core_0.json").read_text())
    assert version == 1 and count == len(instructions)
    names = {"setbw": 8, "sldi": 1, "saddi": 6, "mvmul": 9, "vvadd": 10, "vrelu": 18, "ld": 25, "st": 26,
             "lmv": 28, "send": 29, "recv": 30, "wait": 31, "sync": 32}
    for i, inst in enumerate(instructions):
        op, rd, rs1, flags, a, g1, g2, g3 = struct.unpack("<BBBBiiii", records[12 + 20 * i: 32 + 20 * i])
        assert op == names[inst["op"]], (i, inst)
        assert flags == 0
        if "rd" in inst:
            assert rd == inst["rd"]
        if inst["op"] in ("sldi", "saddi"):
            assert a == inst["imm"]
        if inst["op"] in ("vvadd", "vrelu"):
            assert g3 == inst["len"] and inst["offset"] == {"offset_select": 0, "offset_value": 0}
        if inst["op"] == "mvmul":
            assert (a, g1, g2) == (inst["mbiw"], inst["relu"], inst["group"])
        if inst["op"] in ("ld", "st"):
            assert g3 == inst["size"]
        if inst["op"] == "sync":  # (global transfers: the signal that a region is stored)
            assert (a, g1) == (inst["core"], inst["event_register"])
        if inst["op"] == "wait":
            assert (g1, g2) == (inst["event_register"], inst["wait_value"])
    # pimsim-nn never finishes a program ending in a scalar instruction.
    assert instructions[-1]["op"] not in ("sldi", "saddi", "nop")


def test_the_directory_holds_pimsim_nns_files(program: Path) -> None:
    out = program / "out"
    config = json.loads((out / "config.json").read_text())
    assert config["core_cnt"] == 4
    assert sorted(config["array_group_map"]) == ["core0", "core1", "core2", "core3"]
    for i in range(4):  # every core has a file, empty ones too
        assert (out / f"core_{i}.json").is_file() and (out / f"core_{i}.pim").is_file()
    chip = json.loads((out / "chip.json").read_text())
    assert chip["chip_config"]["core_config"]["local_memory_config"]["memory_size"] == 1048576
    network = json.loads((out / "network.json").read_text())
    assert network["latency"]["0"]["-10"] == 15
    # pimsim-nn reads an energy object and, without one, fails intermittently
    # (pim-target.md); Raptor's own timing reads the file with it.
    assert network["energy"] == {}
    assert pim.Program.load(out).time().latency_ns > 0


def broken(program: Path, tmp_path: Path) -> Path:
    target = tmp_path / "broken"
    shutil.copytree(program / "out", target)
    return target


def corrupt_first_record(path: Path, opcode: int) -> None:
    data = bytearray(path.read_bytes())
    data[12] = opcode
    path.write_bytes(bytes(data))


def empty_loop_first(path: Path) -> None:
    """Records 0 and 1 become a loop of 2^30 iterations around nothing."""
    data = bytearray(path.read_bytes())
    data[12:52] = struct.pack("<BBBBiiii", 0xF0, 0, 0, 0, 1 << 30, 0, 0, 0) + struct.pack("<BBBBiiii", 0xF2, 0, 0, 0,
                                                                                            0, 0, 0, 0)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage, form, message", [
    (lambda d: (d / "raptor" / "c0.rpim").write_bytes((d / "raptor" / "c0.rpim").read_bytes()[:-7]), "compact",
     r"c0.rpim' has \d+ bytes but the manifest says \d+ \(truncated\?\)"),
    (lambda d: (d / "raptor" / "c0.rpim").write_bytes(b"XXXX" + (d / "raptor" / "c0.rpim").read_bytes()[4:]),
     "compact", r"is not a Raptor compact program \(no 'RPIM' header\)"),
    (lambda d: corrupt_first_record(d / "raptor" / "c0.rpim", 200), "compact", r"record 0 has unknown opcode 200"),
    (lambda d: corrupt_first_record(d / "raptor" / "c0.rpim", 0xF2), "compact", r"a loop end without a loop"),
    (lambda d: empty_loop_first(d / "raptor" / "c0.rpim"), "compact",
     r"record 0: a loop without an instruction in its body"),
    (lambda d: corrupt_first_record(d / "core_0.pim", 64), "pimsim",
     r"record 0 is the extension ext.vexp, which pimsim-nn programs cannot hold"),
    (lambda d: (d / "core_0.pim").write_bytes((d / "core_0.pim").read_bytes()[:-20]), "pimsim",
     r"holds \d+ whole records but its header says \d+ \(truncated\?\)"),
    (lambda d: (d / "weights" / "c0.bin").write_bytes(b"\0" * 12), "compact",
     r"c0.bin' has 12 bytes but the manifest says \d+ \(truncated\?\)"),
    (lambda d: (d / "memory.bin").unlink(), "compact", r"cannot read '.*memory.bin': No such file or directory"),
    (lambda d: (d / "manifest.json").write_text("{"), "compact", r"manifest.json' is not valid JSON"),
    (lambda d: (d / "manifest.json").write_text("{}"), "compact", r"is not a Raptor program manifest"),
    (lambda d: (d / "manifest.json").unlink(), "compact", r"cannot read '.*manifest.json'"),
    (lambda d: (d / "core_0.pim").unlink() or (d / "core_0.json").write_text('[{"op": "sldi", "rd": 40, "imm": 0}]'),
     "pimsim", r"core_0.json instruction 0: register 'rd' = 40 is outside 0..31"),
    (lambda d: (d / "core_0.pim").unlink() or (d / "core_0.json").write_text(
        '[{"op": "wait", "event_register": 1000, "wait_value": 1}]'),
     "pimsim", r"core_0.json': record 0: event register 1000 is outside 0..31"),
    (lambda d: (d / "core_0.pim").unlink() or (d / "core_0.json").write_text('[{"op": "vsoftmax"}]'),
     "pimsim", r"core_0.json instruction 0: unknown op 'vsoftmax'"),
])
def test_malformed_directories_are_one_clear_error(program: Path, tmp_path: Path, damage, form: str,
                                                   message: str) -> None:
    directory = broken(program, tmp_path)
    damage(directory)
    with pytest.raises(pim.UserError, match=message):
        pim.Program.load(directory, form)


def _rename_member(directory: Path, key: str, name: str) -> None:
    manifest = json.loads((directory / "manifest.json").read_text())
    manifest["cores"][0][key] = name
    (directory / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("key", ["weights", "program", "origins"])
def test_manifest_paths_stay_inside_the_program_directory(program: Path, tmp_path: Path, key: str) -> None:
    """A manifest is untrusted: a path with '..', an absolute one, or a
    symbolic link leaving the directory is refused, although the file it
    names is the right one byte for byte (issue 27: it was read)."""
    directory = broken(program, tmp_path)
    name = json.loads((directory / "manifest.json").read_text())["cores"][0][key]
    outside = tmp_path / "outside.bin"
    shutil.copy(directory / name, outside)
    for path in ("../outside.bin", str(outside)):
        _rename_member(directory, key, path)
        with pytest.raises(pim.UserError, match=r"is not a file inside the program directory"):
            pim.Program.load(directory)
    (directory / "link.bin").symlink_to(outside)
    _rename_member(directory, key, "link.bin")
    with pytest.raises(pim.UserError, match=r"'link.bin' is not a file inside the program directory"):
        pim.Program.load(directory)
    # The same file inside (a link that stays) is fine.
    (directory / "inside.bin").write_bytes(outside.read_bytes())
    _rename_member(directory, key, "inside.bin")
    assert pim.Program.load(directory).sizes()


def test_device_files_and_fifos_are_refused_before_reading(program: Path, tmp_path: Path) -> None:
    """memory.bin as /dev/zero (read to the end before: out of memory) or
    as a FIFO (the reader hung): one line, nothing read. (The link to
    /dev/zero leaves the directory, which is refused first.)"""
    directory = broken(program, tmp_path)
    (directory / "memory.bin").unlink()
    (directory / "memory.bin").symlink_to("/dev/zero")
    with pytest.raises(pim.UserError, match=r"'memory.bin' is not a file inside the program directory"):
        pim.Program.load(directory)
    (directory / "memory.bin").unlink()
    os.mkfifo(directory / "memory.bin")
    with pytest.raises(pim.UserError, match=r"memory.bin' is not a regular file"):
        pim.Program.load(directory)


def test_a_chip_with_fewer_cores_than_the_program_is_refused_by_periodic(program: Path, tmp_path: Path) -> None:
    """raptor periodic aborted (a bounds assertion) where the timing
    simulator gave a clean error: both give it now."""
    directory = broken(program, tmp_path)
    chip = json.loads((directory / "chip.json").read_text())
    chip["chip_config"]["core_cnt"] = 1
    (directory / "chip.json").write_text(json.dumps(chip))
    result = run(["periodic", str(directory)])
    assert result.returncode == 1 and "cores but chip.json describes 1" in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_manifest_naming_an_input_outside_global_memory_is_refused(program: Path, tmp_path: Path) -> None:
    directory = broken(program, tmp_path)
    manifest = json.loads((directory / "manifest.json").read_text())
    manifest["inputs"][0]["address"] = 10**6
    (directory / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(pim.UserError, match=r"inputs\[0\]: the buffer leaves the \d+-byte global memory"):
        pim.Program.load(directory)


def run(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(RAPTOR + args, capture_output=True, text=True, timeout=300, cwd=cwd)


def test_simulating_a_truncated_directory_fails_with_one_line(program: Path, tmp_path: Path) -> None:
    directory = broken(program, tmp_path)
    (directory / "weights" / "c0.bin").write_bytes(b"")
    result = run(["simulate", str(directory)])
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("raptor: error: ")
    assert "truncated?" in result.stderr


def test_compile_and_simulate_from_the_command_line(program: Path, tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", X)
    result = run(["compile", str(program / "model.mlir"), "-o", str(tmp_path / "cli"), "--target",
                  str(TARGETS / "tiny.json"), "--format", "json", "--json", "--replicate", "none"])
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["pimsim_compatible"] and summary["pimsim_files"] == "json"
    assert summary["crossbars"] == 4 and summary["instructions"] > 0
    assert "[9/10] lowering to per-core programs" in result.stderr
    result = run(["simulate", str(tmp_path / "cli"), "--input", str(tmp_path / "x.npy"), "--output",
                  str(tmp_path / "y.npy"), "--json", "--form", "pimsim"])
    assert result.returncode == 0, result.stderr
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), reference(), rtol=1e-5, atol=1e-6)
    assert json.loads(result.stdout)["mvmuls"] == 6  # 3 positions x 2 row tiles


def test_an_exhausted_instruction_budget_is_a_one_line_error(program: Path) -> None:
    result = run(["simulate", str(program / "out"), "--max-instructions", "5"])
    assert result.returncode == 1
    assert result.stderr.startswith("raptor: error: core ") and result.stderr.count("\n") == 1
    assert "executed 5 instructions without finishing" in result.stderr
    assert run(["simulate", str(program / "out"), "--max-instructions", "1e6"]).returncode == 0


def test_simulator_inputs_of_the_wrong_shape_are_refused(program: Path, tmp_path: Path) -> None:
    np.save(tmp_path / "bad.npy", np.zeros((2, 2), np.float32))
    result = run(["simulate", str(program / "out"), "--input", str(tmp_path / "bad.npy")])
    assert result.returncode == 1
    assert "raptor: error: input 'x' has shape (2, 2) but the model expects (1, 3, 12)" in result.stderr
    # The right element count in another layout is no more the model's input.
    np.save(tmp_path / "transposed.npy", np.zeros((1, 12, 3), np.float32))
    result = run(["simulate", str(program / "out"), "--input", str(tmp_path / "transposed.npy")])
    assert result.returncode == 1
    assert "raptor: error: input 'x' has shape (1, 12, 3) but the model expects (1, 3, 12)" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["compile", "resnet", "-o", "{tmp}/o"], "unknown model 'resnet': expected a zoo name"),
    (["compile", "{tmp}/nomodel.mlir", "-o", "{tmp}/o"], "names weights but '{tmp}/nomodel.safetensors' does not exist"),
    (["compile", "{model}", "-o", "{tmp}/o", "--target", "{tmp}/none.json"], "cannot read target '{tmp}/none.json'"),
    (["compile", "{tmp}/wide.mlir", "-o", "{tmp}/o", "--target", str(TARGETS / "tiny-memory.json")],
     "task 'relu#0' on core 0: core 0 needs 4096 more bytes of local memory"),
    (["compile", "{model}", "-o", "{tmp}/o", "--target", "{tmp}/two.json"],
     "the model needs 4 crossbars but the chip has 2 (2 cores x 1)"),
    (["compile", "{model}", "-o", "{tmp}/taken"], "'{tmp}/taken' exists and is not a program directory"),
    # (missing parents are created: test_compile_outputs.py; a parent that is a file cannot be)
    (["compile", "{model}", "-o", "{tmp}/nomodel.mlir/o"], "'{tmp}/nomodel.mlir' is not a directory"),
])
def test_bad_compiler_inputs_fail_cleanly_and_write_nothing(program: Path, tmp_path: Path, args: list[str],
                                                            message: str) -> None:
    (tmp_path / "nomodel.mlir").write_text(SOURCE)
    (tmp_path / "wide.mlir").write_text("""func.func @main(%x: tensor<1x1024xf32> {nn.input = "x"}) -> tensor<1x1024xf32> {
  %0 = nn.relu %x : tensor<1x1024xf32> loc("relu")
  return %0 : tensor<1x1024xf32>
}
""")
    two = json.loads((TARGETS / "one-crossbar.json").read_text())
    two["cores"] = {"count": 2, "mesh_rows": 1, "mesh_cols": 2}
    (tmp_path / "two.json").write_text(json.dumps(two))
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    fill = {"tmp": str(tmp_path), "model": str(program / "model.mlir")}
    result = run([a.format(**fill) for a in args])
    assert result.returncode == 1, result.stdout
    assert result.stderr.splitlines()[-1].startswith("raptor: error: ") or "raptor: error: " in result.stderr
    assert message.format(**fill) in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "o").exists()
    assert not list(tmp_path.glob(".o.*")), "a staging directory was left behind"
    assert (tmp_path / "taken" / "notes.txt").read_text() == "mine"


def test_an_operator_without_a_lowering_is_a_located_error(tmp_path: Path) -> None:
    (tmp_path / "m.mlir").write_text("""func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> {
  %0 = nn.aten "aten.erfinv.default"(%x) {input_ports = ["self"]} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}
""")
    # The error names the aten operator; int8 stops at the same place with
    # the same words (before calibration would run the model).
    for precision in ("fp32", "int8"):
        result = run(["compile", str(tmp_path / "m.mlir"), "-o", str(tmp_path / "o"), "--precision", precision])
        assert result.returncode == 1
        assert (f"raptor: error: {tmp_path / 'm.mlir'}:2:8: aten.erfinv.default has no PIM lowering (the importer "
                "kept it as the generic nn.aten op)") == result.stderr.splitlines()[-1]
        assert "Traceback" not in result.stderr and not (tmp_path / "o").exists()


def test_recompiling_replaces_a_program_directory(program: Path, tmp_path: Path) -> None:
    """The whole old program goes, also files of a larger one (a core the
    new program does not have); files Raptor does not write are refused
    (test_compile_outputs.py)."""
    shutil.copytree(program / "out", tmp_path / "again")
    (tmp_path / "again" / "core_999.json").write_text("[]")
    result = run(["compile", str(program / "model.mlir"), "-o", str(tmp_path / "again"), "--target",
                  str(TARGETS / "tiny.json"), "-q"])
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "again" / "core_999.json").exists()
    assert (tmp_path / "again" / "manifest.json").is_file()


def test_import_writes_the_weights_beside_the_ir(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU()).eval()
    ep = torch.export.export(model, (torch.randn(1, 3, 8, 8),))
    torch.export.save(ep, tmp_path / "tiny.pt2")
    result = run(["import", str(tmp_path / "tiny.pt2"), "-o", str(tmp_path / "tiny.mlir")])
    assert result.returncode == 0, result.stderr
    stored = weights.load(tmp_path / "tiny.safetensors")
    with raptor.Context():
        module = ir.Module.parse((tmp_path / "tiny.mlir").read_text())
    assert sorted(stored) == sorted(weights.param_names(module))
    np.testing.assert_array_equal(stored["0.weight"], model[0].weight.detach().numpy())
    np.testing.assert_array_equal(stored["1.running_var"], model[1].running_var.numpy())
    # The .mlir + .safetensors pair compiles and computes the model.
    result = run(["compile", str(tmp_path / "tiny.mlir"), "-o", str(tmp_path / "p"), "-q"])
    assert result.returncode == 0, result.stderr
    x = torch.randn(1, 3, 8, 8)
    out = pim.simulate(tmp_path / "p", x.numpy()).outputs["out0"]
    np.testing.assert_allclose(out, model(x).detach().numpy(), rtol=1e-4, atol=1e-5)


def test_zoo_weights_are_reproducible(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two builds in fresh caches give the same bytes (fixed seed)."""
    from raptor import zoo

    files = []
    for name in ("a", "b"):
        monkeypatch.setenv("RAPTOR_CACHE", str(tmp_path / name))
        files.append(zoo.weights_file("shufflenet_v2").read_bytes())
    assert files[0] == files[1]
    with raptor.Context():
        names = weights.param_names(zoo.load_graph("shufflenet_v2"))
    assert sorted(weights.load(zoo.weights_file("shufflenet_v2"))) == sorted(names)
