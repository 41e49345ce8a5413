"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/__init__.py and raptor/_io.py: behaviour no other test pinned."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mlir import ir

import raptor
from raptor._io import UserError, parse_module, write_atomically


def test_register_without_a_context_fills_the_global_registry() -> None:
    # `register()` with no context must not try to load dialects into None.
    raptor.register()
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                                 "  %r = nn.relu %a : tensor<2xf32>\n"
                                 "  return %r : tensor<2xf32>\n}")
        assert module.operation.verify()


def test_register_with_a_context_loads_the_dialects_into_it() -> None:
    context = ir.Context()
    raptor.register(context)
    with context, ir.Location.unknown():
        assert ir.Module.parse("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                               "  %r = nn.relu %a : tensor<2xf32>\n"
                               "  return %r : tensor<2xf32>\n}").operation.verify()


def test_a_failed_write_leaves_neither_the_file_nor_its_temporary(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.json"

    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(target, "{}")
    assert list(tmp_path.iterdir()) == []  # the temporary file was removed


def test_a_write_interrupted_by_any_exception_removes_its_temporary(tmp_path: Path) -> None:
    class Unwritable:  # neither str nor bytes: f.write raises TypeError
        pass

    with pytest.raises(TypeError):
        write_atomically(tmp_path / "x.txt", Unwritable())  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("prefix, line", [("", 1), ("// one\n// two\n", 3)])
def test_an_oversized_shape_is_reported_at_its_line_and_column(prefix: str, line: int) -> None:
    # Counted by hand: "  pim.weight @w dense<1.0> : " is 29 characters, so the
    # type starts in column 30 (as tests/lit/tools/oversized-shapes.mlir says too).
    text = prefix + "  pim.weight @w dense<1.0> : tensor<4x9223372036854775807xf32>\n"
    with pytest.raises(UserError) as err:
        parse_module(text, "model.mlir", raptor.Context())
    assert str(err.value).startswith(f"model.mlir:{line}:30: ")


def test_saved_weights_keep_integer_and_boolean_dtypes(tmp_path: Path) -> None:
    import numpy as np

    from raptor import weights

    path = tmp_path / "w.safetensors"
    weights.save(path, {"f": np.array([0.5, 1.5], np.float64), "i": np.array([3, -4], np.int64),
                        "u": np.array([7], np.uint8), "b": np.array([True, False])})
    back = weights.load(path)
    assert {k: v.dtype for k, v in back.items()} == {"f": np.float32, "i": np.int64, "u": np.uint8, "b": np.bool_}
    assert back["i"].tolist() == [3, -4] and back["f"].tolist() == [0.5, 1.5]


def test_saved_weights_get_the_umasks_permissions(tmp_path: Path) -> None:
    from raptor import weights

    old = os.umask(0o027)
    try:
        weights.save(tmp_path / "w.safetensors", {})
        write_atomically(tmp_path / "t.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "w.safetensors").stat().st_mode & 0o777 == 0o640  # 0o666 less 0o027
    assert (tmp_path / "t.txt").stat().st_mode & 0o777 == 0o640
    old = os.umask(0o002)  # a group that shares the files writes them too
    try:
        weights.save(tmp_path / "g.safetensors", {})
    finally:
        os.umask(old)
    assert (tmp_path / "g.safetensors").stat().st_mode & 0o777 == 0o664


def test_a_bfloat16_weights_file_loads_as_float32(tmp_path: Path) -> None:
    """numpy has no bfloat16 (safetensors' loader raises TypeError, or
    returns an extension type where ml_dtypes is installed): the values
    come back as float32, exactly (each is a bfloat16 number)."""
    import numpy as np
    import torch
    from safetensors.torch import save_file

    from raptor import weights

    path = tmp_path / "w.safetensors"
    values = [1.0, -2.5, 3.140625, 0.0]
    save_file({"w": torch.tensor(values, dtype=torch.bfloat16).reshape(2, 2),
               "i": torch.arange(3, dtype=torch.int64)}, str(path))
    loaded = weights.load(path)
    assert loaded["w"].dtype == np.float32 and loaded["w"].shape == (2, 2)
    assert loaded["w"].ravel().tolist() == values
    assert loaded["i"].dtype == np.int64 and loaded["i"].tolist() == [0, 1, 2]


def test_the_weights_reader_agrees_with_safetensors(tmp_path: Path) -> None:
    """Raptor's reader (the C++ one the lowering uses) gives each tensor as
    safetensors' own torch loader reads it (bfloat16 widened to float32),
    the metadata skipped."""
    import numpy as np
    import torch
    from safetensors.torch import load_file, save_file

    from raptor import weights

    path = tmp_path / "w.safetensors"
    torch.manual_seed(0)
    save_file({"w": torch.randn(3, 5).to(torch.bfloat16), "b": torch.randn(5),
               "i": torch.arange(-4, 4, dtype=torch.int64).reshape(2, 4), "m": torch.tensor([True, False])},
              str(path), metadata={"format": "pt"})
    ours = weights.load(path)
    theirs = load_file(str(path))
    assert sorted(ours) == sorted(theirs) == ["b", "i", "m", "w"]
    for name, tensor in theirs.items():
        expected = (tensor.float() if tensor.dtype == torch.bfloat16 else tensor).numpy()
        assert ours[name].dtype == expected.dtype and ours[name].shape == expected.shape, name
        np.testing.assert_array_equal(ours[name], expected)


def test_a_parent_that_is_a_file_is_named_beside_the_file_being_written(tmp_path: Path) -> None:
    """The error names what was to be written and which of its parents is
    in the way (two different paths: the target, and a file three levels up)."""
    (tmp_path / "f").write_text("x")
    target = tmp_path / "f" / "sub" / "x.txt"
    with pytest.raises(UserError) as info:
        write_atomically(target, "data")
    assert str(info.value) == f"cannot write '{target}': '{tmp_path / 'f'}' is not a directory"
    assert (tmp_path / "f").read_text() == "x"


def test_a_fused_location_points_at_its_first_known_part() -> None:
    """A fused location (an op folded from several) is where its first part
    that is not just the source name points; the source alone when none is."""
    from raptor._io import located_error

    with raptor.Context():
        fused = ir.Location.fused([ir.Location.unknown(), ir.Location.name("conv1"),
                                   ir.Location.file("m.mlir", 3, 4)])
        assert str(located_error(fused, "bad", "model.pt2")) == "model.pt2: node 'conv1': bad"
        inner = ir.Location.fused([ir.Location.unknown(), ir.Location.file("m.mlir", 3, 4)])
        assert str(located_error(inner, "bad", "model.pt2")) == "m.mlir:3:4: bad"
        nothing = ir.Location.fused([ir.Location.unknown()])
        assert str(located_error(nothing, "bad", "model.pt2")) == "model.pt2: bad"


def test_a_call_site_location_points_at_its_callee() -> None:
    """An op inlined from a call (a call-site location) is where the callee
    points (its operator in the user's model), not the caller."""
    from raptor._io import located_error

    with raptor.Context():
        site = ir.Location.callsite(ir.Location.name("relu_3"), [ir.Location.file("caller.mlir", 9, 1)])
        assert str(located_error(site, "bad", "model.pt2")) == "model.pt2: node 'relu_3': bad"
        nested = ir.Location.callsite(ir.Location.file("m.mlir", 3, 4), [ir.Location.name("outer")])
        assert str(located_error(nested, "bad", "model.pt2")) == "m.mlir:3:4: bad"


def test_a_npy_header_claiming_more_data_than_follows_it_is_refused(tmp_path: Path) -> None:
    """Four float32 values (16 bytes) claimed, 10 bytes after the header:
    the data after the header, not the whole file, is what the header's
    claim is checked against (the file is larger than 16 bytes)."""
    import numpy as np

    from raptor._io import load_npy

    good = tmp_path / "good.npy"
    np.save(good, np.arange(4, dtype=np.float32))
    data = good.read_bytes()
    short = tmp_path / "short.npy"
    short.write_bytes(data[:-6])
    assert len(data) - 6 > 16
    with pytest.raises(UserError, match="its header claims 16 bytes of data but the file holds 10"):
        load_npy(short, "input")
    np.testing.assert_array_equal(load_npy(good, "input"), [0, 1, 2, 3])


def test_an_empty_npy_array_keeps_its_shape_and_type(tmp_path: Path) -> None:
    import numpy as np

    from raptor._io import load_npy

    path = tmp_path / "empty.npy"
    np.save(path, np.zeros((0, 3), dtype=np.int16))
    got = load_npy(path, "input")
    assert got.shape == (0, 3) and got.dtype == np.int16



def test_holding_signals_restores_the_handlers_it_found() -> None:
    """signals_held swaps SIGINT's and SIGTERM's handlers for recorders and
    puts back exactly the ones it found (a Python handler, not SIG_DFL)."""
    import signal

    from raptor._io import signals_held

    def mine(number: int, frame: object) -> None:
        raise AssertionError("not delivered in this test")

    before = signal.signal(signal.SIGTERM, mine)
    try:
        interrupt = signal.getsignal(signal.SIGINT)
        with signals_held():
            assert signal.getsignal(signal.SIGTERM) is not mine
        assert signal.getsignal(signal.SIGTERM) is mine
        assert signal.getsignal(signal.SIGINT) is interrupt
    finally:
        signal.signal(signal.SIGTERM, before)


def test_a_device_that_refuses_the_write_is_one_line() -> None:
    """A target that is not a regular file is written in place, as the user
    asked; a device that refuses the data (/dev/full: no space) is a
    one-line UserError naming it, not an OSError traceback."""
    assert Path("/dev/full").exists()  # Linux, where CI runs
    with pytest.raises(UserError, match=r"cannot write '/dev/full': No space left on device"):
        write_atomically("/dev/full", "data")
