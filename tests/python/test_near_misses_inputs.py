"""Near-miss calibration inputs: the reader of `raptor compile --calibrate
FILE.npy` (raptor.quant.load_samples) on arrays one edit away from a valid
one (the model's input shape (1, 3, 12), or a stack (N, 1, 3, 12)).

Each negative is a one-line UserError naming the file and the problem; each
legal neighbour gives exactly the samples the array holds (compared with
the array written here, not with anything the reader computes)."""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path

import numpy as np
import pytest
from mlir import ir

import raptor
from raptor import quant
from raptor._io import UserError

SOURCE = """func.func @main(%x: tensor<1x3x12xf32> {nn.input = "x"}) -> tensor<1x3x12xf32> {
  %0 = nn.relu %x : tensor<1x3x12xf32>
  return %0 : tensor<1x3x12xf32>
}
"""
SHAPE = (1, 3, 12)
DATA = np.arange(36, dtype=np.float32).reshape(SHAPE) / 8  # exact in float16 and float64 too


@pytest.fixture(scope="module")
def module() -> ir.Module:
    with raptor.Context():
        return ir.Module.parse(SOURCE)


def saved(tmp_path: Path, array: np.ndarray) -> str:
    path = tmp_path / "cal.npy"
    np.save(path, array, allow_pickle=True)
    return str(path)


@pytest.mark.parametrize("array, count", [
    (DATA, 1),                                           # one input of the model's shape
    (DATA[None], 1),                                     # a stack of one
    (np.stack([DATA, -DATA]), 2),                        # a stack of two
    (DATA.astype(np.float64), 1),                        # another float type, converted
    (DATA.astype(np.float16), 1),
])
def test_calibration_legal_near_misses_are_read_exactly(module: ir.Module, tmp_path: Path, array: np.ndarray,
                                                        count: int) -> None:
    """The valid neighbours: the samples are the array's, as float32."""
    samples = quant.load_samples(module, saved(tmp_path, array))
    assert len(samples) == count and all(set(s) == {"x"} for s in samples)
    expected = array.reshape((count, *SHAPE)).astype(np.float32)
    for sample, want in zip(samples, expected):
        assert sample["x"].dtype == np.float32 and sample["x"].shape == SHAPE
        np.testing.assert_array_equal(sample["x"], want)


@pytest.mark.parametrize("array, message", [
    # One size off, the batch dimension missing, one dimension too many in the stack, an empty stack.
    (np.zeros((1, 3, 13), np.float32), r"has shape \(1, 3, 13\); the model's input 'x' needs \(1, 3, 12\) or "
                                       r"\(N, 1, 3, 12\)"),
    (np.zeros((3, 12), np.float32), r"has shape \(3, 12\)"),
    (np.zeros((2, 3, 12), np.float32), r"has shape \(2, 3, 12\)"),
    (np.zeros((2, 1, 1, 3, 12), np.float32), r"has shape \(2, 1, 1, 3, 12\)"),
    (np.zeros((0, 1, 3, 12), np.float32), r"has shape \(0, 1, 3, 12\)"),
    # The right number of elements in another layout: transposed, or a stack of two transposed.
    (np.zeros((1, 12, 3), np.float32), r"has shape \(1, 12, 3\)"),
    (np.zeros((2, 1, 12, 3), np.float32), r"has shape \(2, 1, 12, 3\)"),
    (np.zeros((36,), np.float32), r"has shape \(36,\)"),
    # Integers of the right shape; a NaN or an infinity among the values.
    (DATA.astype(np.int32), r"has dtype int32, not a floating-point type"),
    (DATA.astype(bool), r"has dtype bool, not a floating-point type"),
    (np.where(np.arange(36).reshape(SHAPE) == 5, np.nan, DATA).astype(np.float32), r"holds NaN or infinite values"),
    (np.where(np.arange(36).reshape(SHAPE) == 35, np.inf, DATA).astype(np.float32), r"holds NaN or infinite values"),
    # An object array (a pickle): never loaded.
    (np.array([DATA], dtype=object), r"cannot read calibration data"),
])
def test_calibration_near_misses_are_one_line_errors(module: ir.Module, tmp_path: Path, array: np.ndarray,
                                                     message: str) -> None:
    path = saved(tmp_path, array)
    with pytest.raises(UserError, match=message) as info:
        quant.load_samples(module, path)
    assert path in str(info.value) and "\n" not in str(info.value)


def test_a_truncated_calibration_file_is_a_one_line_error(module: ir.Module, tmp_path: Path) -> None:
    """The valid file minus its last byte, and minus its header's end."""
    path = Path(saved(tmp_path, DATA))
    data = path.read_bytes()
    for cut in (data[:-1], data[:40]):
        path.write_bytes(cut)
        with pytest.raises(UserError, match=r"cannot read calibration data") as info:
            quant.load_samples(module, str(path))
        assert "\n" not in str(info.value)


def test_a_header_claiming_terabytes_allocates_nothing(module: ir.Module, tmp_path: Path) -> None:
    """The valid file's header rewritten to claim 2^40 elements (16 bytes
    follow): one line, from the header against the file's size, before any
    allocation (it was a 4 TiB MemoryError traceback); a FIFO is refused
    without opening it (it would block)."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    path = tmp_path / "huge.npy"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + b"\0" * 16)
    with pytest.raises(UserError, match=r"cannot read calibration data '.*huge.npy'") as info:
        quant.load_samples(module, str(path))
    assert "\n" not in str(info.value)
    fifo = tmp_path / "fifo.npy"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match=r"not a regular file"):
        quant.load_samples(module, str(fifo))


def _npy(header: str, data: bytes = b"", version: bytes = b"\x01\x00") -> bytes:
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY" + version + struct.pack("<H", len(header)) + header.encode() + data


@pytest.mark.parametrize("content, message", [
    # Found by make fuzz: numpy evaluates the header's text, and a damaged one
    # raised a tokenizer error or an OverflowError from mmap, as tracebacks.
    (b"\x93NUMPY\x01\x00\x01\x00{", r"its header is damaged"),
    (_npy("{'descr': False, 'shape': (12,"), r"its header is damaged"),
    (_npy("{'descr': '<f4', 'shape': (36,)}"), r"its header is damaged"),  # no fortran_order
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"), r"a negative dimension in the shape \(-1,\)"),
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (36,), }", b"\0" * 143),
     r"its header claims 144 bytes of data but the file holds 143"),
    (_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (36,), }", b"\0" * 144, b"\x09\x09"),
     r"unsupported .npy format version 9.9"),
])
def test_damaged_npy_headers_are_one_line_errors(module: ir.Module, tmp_path: Path, content: bytes,
                                                 message: str) -> None:
    path = tmp_path / "damaged.npy"
    path.write_bytes(content)
    with pytest.raises(UserError, match=r"cannot read calibration data '.*damaged.npy': ") as info:
        quant.load_samples(module, str(path))
    assert re.search(message, str(info.value)) and "\n" not in str(info.value)
    # The legal neighbour: the same header with its 144 bytes is read exactly.
    good = tmp_path / "good.npy"
    good.write_bytes(_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 12), }", DATA.tobytes()))
    (sample,) = quant.load_samples(module, str(good))
    np.testing.assert_array_equal(sample["x"], DATA)


def test_an_empty_array_is_read_without_mapping_and_refused_by_shape(module: ir.Module, tmp_path: Path) -> None:
    path = tmp_path / "empty.npy"
    np.save(path, np.zeros((0, 1, 3, 12), np.float32))
    with pytest.raises(UserError, match=r"has shape \(0, 1, 3, 12\)"):
        quant.load_samples(module, str(path))
