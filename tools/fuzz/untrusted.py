"""The fuzz harness's untrusted-input surfaces (issue 27): seeds and
mutators for ONNX graphs (wrong arities, attributes, sizes), ``.npy``
headers, damaged ``.pt2`` archives, ``.safetensors`` headers and hostile
program directories (paths leaving the directory, device files, FIFOs,
symbolic links), and the runner of output-directory cases (foreign
directories, symbolic links, compiles killed at random instants).

Program directories travel as JSON: file name -> hex bytes, or
``{"symlink": target}`` / ``{"fifo": true}`` for the special entries."""

from __future__ import annotations

import io
import json
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
import zipfile
from pathlib import Path

BIN = Path(sys.executable).parent
EXTREME_SIZES = [0, -1, 2**31, 2**40, 2**62, 2**63 - 1, 3_000_000_000_000]


# ONNX -------------------------------------------------------------------------

def onnx_seeds() -> list[tuple[str, bytes]]:
    """Small ONNX models: a Gemm, a convolution chain, a reshape and a
    matmul, a clip with optional inputs, a concatenation."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)

    def model(name: str, nodes: list, inputs: list, outputs: list, inits: dict) -> tuple[str, bytes]:
        graph = helper.make_graph(nodes, name, inputs, outputs,
                                  [numpy_helper.from_array(v, k) for k, v in inits.items()])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        return f"{name}.onnx", m.SerializeToString()

    f = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    vi = helper.make_tensor_value_info
    return [
        model("gemm", [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1, alpha=1.0)],
              [vi("x", TensorProto.FLOAT, [1, 8])], [vi("y", TensorProto.FLOAT, [1, 4])],
              {"w": f(4, 8), "b": f(4)}),
        model("conv", [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1],
                                        kernel_shape=[3, 3], group=1),
                       helper.make_node("Relu", ["c"], ["r"]),
                       helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                       helper.make_node("Flatten", ["p"], ["y"], axis=1)],
              [vi("x", TensorProto.FLOAT, [1, 2, 4, 4])], [vi("y", TensorProto.FLOAT, [1, 12])],
              {"w": f(3, 2, 3, 3), "b": f(3)}),
        model("reshape", [helper.make_node("Reshape", ["x", "s"], ["r"]),
                          helper.make_node("MatMul", ["r", "w"], ["m"]),
                          helper.make_node("Transpose", ["m"], ["y"], perm=[1, 0])],
              [vi("x", TensorProto.FLOAT, [2, 3, 4])], [vi("y", TensorProto.FLOAT, [5, 6])],
              {"s": np.array([6, 4], np.int64), "w": f(4, 5)}),
        model("clip", [helper.make_node("Clip", ["x", "lo", ""], ["c"]),
                       helper.make_node("Add", ["c", "x"], ["a"]),
                       helper.make_node("Concat", ["a", "x"], ["y"], axis=1)],
              [vi("x", TensorProto.FLOAT, [1, 4])], [vi("y", TensorProto.FLOAT, [1, 8])],
              {"lo": np.array(0.0, np.float32)}),
    ]


def mutate_onnx(rng: random.Random, data: bytes) -> bytes:
    """One structural change to an ONNX model: a node input dropped,
    repeated or emptied, an attribute removed or given another type or an
    extreme value, an initializer's dims or data changed, an input's size
    made extreme (or, for an unparsable model, a byte mutation)."""
    import onnx

    m = onnx.ModelProto()
    try:
        m.ParseFromString(data)
    except Exception:
        return _flip(rng, data)
    g = m.graph
    kind = rng.randrange(8)
    node = rng.choice(g.node) if g.node else None
    if kind == 0 and node is not None and node.input:
        del node.input[rng.randrange(len(node.input))]
    elif kind == 1 and node is not None:
        node.input.append(rng.choice(list(node.input) + [""]))
    elif kind == 2 and node is not None and node.input:
        node.input[rng.randrange(len(node.input))] = ""
    elif kind == 3 and node is not None and node.attribute:
        del node.attribute[rng.randrange(len(node.attribute))]
    elif kind == 4 and node is not None and node.attribute:
        a = rng.choice(node.attribute)
        # (protobuf refuses values outside the enumeration: UNDEFINED is the stray one)
        a.type = rng.choice([0, 1, 2, 3, 4, 6, 7, 8])
    elif kind == 5 and node is not None and node.attribute:
        a = rng.choice(node.attribute)
        value = rng.choice(EXTREME_SIZES)
        if a.ints:
            a.ints[rng.randrange(len(a.ints))] = max(min(value, 2**63 - 1), -2**63)
        else:
            a.i = max(min(value, 2**63 - 1), -2**63)
    elif kind == 6 and g.initializer:
        t = rng.choice(g.initializer)
        if t.dims and rng.random() < 0.6:
            t.dims[rng.randrange(len(t.dims))] = rng.choice(EXTREME_SIZES[1:] + [2, 7])
        elif t.raw_data:
            t.raw_data = t.raw_data[:rng.randrange(len(t.raw_data) + 1)]
    elif g.input:
        dims = g.input[0].type.tensor_type.shape.dim
        if dims:
            dims[rng.randrange(len(dims))].dim_value = rng.choice([2**31, 2**40, 2**62, 2**63 - 1, 1])
    return m.SerializeToString()


# .npy -------------------------------------------------------------------------

def npy_seeds(shape: tuple[int, ...]) -> list[tuple[str, bytes]]:
    import numpy as np

    out = []
    for dtype in ("<f4", "<f8"):
        b = io.BytesIO()
        np.save(b, np.ones(shape, dtype))
        out.append((f"x-{dtype[1:]}.npy", b.getvalue()))
    return out


def mutate_npy(rng: random.Random, data: bytes) -> bytes:
    """A header claiming another shape (petabytes, negative, a string),
    another dtype, a header length that lies, or truncated data."""
    if len(data) < 10 or not data.startswith(b"\x93NUMPY"):
        return _flip(rng, data)
    major = data[6]
    size_bytes = 2 if major == 1 else 4
    start = 8 + size_bytes
    length = int.from_bytes(data[8:start], "little")
    header, body = data[start:start + length].decode("latin1"), data[start + length:]
    kind = rng.randrange(5)
    if kind == 0:
        dims = ", ".join(str(rng.choice([2**40, 2**62, 2**63 - 1, -1, 0, 12, 1])) for _ in range(rng.randint(1, 4)))
        header = re.sub(r"'shape': \([^)]*\)", f"'shape': ({dims},)", header)
    elif kind == 1:
        header = header.replace("<f4", rng.choice(["<f2", "|O", "<U8", "V0", "<i8", "(2,3)f4"]))
        header = header.replace("<f8", rng.choice(["|O", "<c16", ">f8"]))
    elif kind == 2:
        header = header.replace("False", "True")
    elif kind == 3:
        length = rng.choice([0, 1, 65535, len(header) + 7])
        return data[:8] + length.to_bytes(size_bytes, "little") + data[start:]
    else:
        body = body[:rng.randrange(len(body) + 1)]
    encoded = header.encode("latin1")
    return data[:8] + len(encoded).to_bytes(size_bytes, "little") + encoded + body


# .pt2 -------------------------------------------------------------------------

def mutate_pt2(rng: random.Random, data: bytes) -> bytes:
    """One member of the archive damaged (its JSON given bad values, its
    bytes flipped or cut, the member removed) and the archive rewritten; or
    the archive's own bytes flipped."""
    try:
        src = zipfile.ZipFile(io.BytesIO(data))
        members = [(i, src.read(i)) for i in src.infolist()]
    except Exception:
        return _flip(rng, data)
    if rng.random() < 0.15:
        return _flip(rng, data)
    k = rng.randrange(len(members))
    info, raw = members[k]
    choice = rng.randrange(4)
    if choice == 0 and info.filename.endswith(".json"):
        from raptor_fuzz import mutate_json
        raw = mutate_json(rng, raw)
    elif choice == 1:
        raw = raw[:rng.randrange(len(raw) + 1)]
    elif choice == 2 and len(members) > 1:
        del members[k]
        info = None
    else:
        raw = _flip(rng, raw)
    if info is not None:
        members[k] = (info, raw)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for i, b in members:
            z.writestr(i.filename, b)
    return out.getvalue()


# .safetensors -----------------------------------------------------------------

def mutate_safetensors(rng: random.Random, data: bytes) -> bytes:
    """The header's JSON given extreme offsets, shapes and dtypes, its
    length prefix lying, or the data cut."""
    if len(data) < 8:
        return _flip(rng, data)
    n = struct.unpack("<Q", data[:8])[0]
    header, body = data[8:8 + n], data[8 + n:]
    kind = rng.randrange(4)
    if kind == 0:
        try:
            h = json.loads(header)
            name = rng.choice([k for k in h if k != "__metadata__"])
            field = rng.choice(["data_offsets", "shape", "dtype"])
            if field == "dtype":
                h[name][field] = rng.choice(["F64", "BF16", "I4", "X", 7])
            elif h[name].get(field):
                h[name][field][rng.randrange(len(h[name][field]))] = rng.choice(EXTREME_SIZES)
            header = json.dumps(h).encode()
        except Exception:
            header = _flip(rng, header)
    elif kind == 1:
        return struct.pack("<Q", rng.choice([0, 1, n + 1, 2**40, 2**64 - 1])) + data[8:]
    elif kind == 2:
        body = body[:rng.randrange(len(body) + 1)]
    else:
        header = _flip(rng, header)
    return struct.pack("<Q", len(header)) + header + body


# Program directories --------------------------------------------------------------

def mutate_hostile_program(rng: random.Random, data: bytes) -> bytes:
    """A program directory turned against its reader: a manifest path
    leaving it ('..', absolute, through a symbolic link), a file replaced
    by /dev/zero, a FIFO or a link outside, or a count in chip.json,
    network.json or the manifest made extreme."""
    files = json.loads(data)
    kind = rng.randrange(5)
    manifest = json.loads(bytes.fromhex(files["manifest.json"]))
    readable = sorted(n for n in files if n != "manifest.json" and isinstance(files[n], str))
    if kind == 0 and manifest.get("cores"):
        core = rng.choice(manifest["cores"])
        key = rng.choice([k for k in ("weights", "program", "origins") if k in core] or ["weights"])
        core[key] = rng.choice([f"../outside/{Path(core.get(key, 'x')).name}", "/dev/zero", "/etc/hostname",
                                "raptor/../../outside/x", "", "."])
        files["manifest.json"] = json.dumps(manifest).encode().hex()
        files["../outside/" + Path(core[key]).name] = files.get(readable[0], "") if readable else ""
    elif kind == 1 and readable:
        files[rng.choice(readable + ["memory.bin", "chip.json"])] = {"symlink": rng.choice(["/dev/zero", "/dev/urandom",
                                                                                            "../outside/copy"])}
    elif kind == 2 and readable:
        files[rng.choice(readable + ["memory.bin", "network.json"])] = {"fifo": True}
    elif kind == 3 and "chip.json" in files:
        chip = json.loads(bytes.fromhex(files["chip.json"]))
        config = chip.get("chip_config", {})
        target = rng.choice([config, config.get("core_config", {})])
        key = rng.choice(sorted(target) or ["core_cnt"])
        target[key] = rng.choice([1, 2, 0, 2**31, 2**40, 2**53, 100000])
        files["chip.json"] = json.dumps(chip).encode().hex()
    else:
        chip = manifest.get("chip", {})
        key = rng.choice(["cores", "crossbars_per_core", "local_memory_bytes", "global_memory_bytes", "records"])
        value = rng.choice([0, -1, 2**31, 2**40, 2**62, 2**63 - 1])
        if key in chip:
            chip[key] = value
        elif key == "records" and manifest.get("cores"):
            rng.choice(manifest["cores"])["records"] = value
        else:
            manifest[key] = value
        files["manifest.json"] = json.dumps(manifest).encode().hex()
    return json.dumps(files).encode()


def materialize_program(files: dict, directory: Path) -> None:
    """Writes a program directory described as JSON (see the module
    docstring); ``../outside/`` names land beside it."""
    for d in (directory, directory.parent / "outside"):
        if d.is_symlink() or d.is_file():
            d.unlink()
        shutil.rmtree(d, ignore_errors=True)
    directory.mkdir(parents=True)
    outside = directory.parent / "outside"
    outside.mkdir()
    (outside / "copy").write_bytes(b"\0" * 4096)
    for name, value in files.items():
        path = directory / name
        # A mutated name may collide with a directory or run through a file
        # (`../outside`, `a/b` after `a`): that entry is left out, the
        # directory stays as hostile as the rest made it.
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(value, dict) and "symlink" in value:
                path.symlink_to(value["symlink"])
            elif isinstance(value, dict) and value.get("fifo"):
                os.mkfifo(path)
            else:
                path.write_bytes(bytes.fromhex(value))
        except (OSError, TypeError, ValueError):  # (a mutated value that is not hex)
            continue


# Output directories -------------------------------------------------------------------

def output_seeds() -> list[tuple[str, bytes]]:
    """The scenarios (the seed's data is the scenario's name); the random
    instant and signal come from the mutator's bytes."""
    return [(s, s.encode()) for s in ("foreign", "model-inside", "symlink", "dangling", "interrupt", "interrupt",
                                      "interrupt", "missing-parents")]


def mutate_output(rng: random.Random, data: bytes) -> bytes:
    scenario = data.decode().split(":")[0]
    return f"{scenario}:{rng.choice(['INT', 'TERM'])}:{rng.random():.4f}".encode()


def run_output_case(data: bytes, work: Path, timeout: float, model: Path, target: Path,
                    seed_program: Path, length: float) -> tuple[str, str]:
    """One output-directory case: ``raptor compile`` over a foreign
    directory, a symbolic link, an output holding the model, a missing
    parent, or an existing program while SIGINT or SIGTERM arrives at a
    random instant of its run. A defect is a deletion of the user's files,
    an output that is neither the old program nor the new one, complete,
    a staging directory left behind, or a traceback."""
    scenario, sig, instant = data.decode().split(":") if b":" in data else (data.decode(), "INT", "0.5")
    root = work / "outputs"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    out = root / "P"
    command = [str(BIN / "raptor"), "compile", str(model), "--target", str(target), "-q", "-o", str(out)]
    user_files: dict[Path, bytes] = {}
    if scenario == "foreign":
        out.mkdir()
        user_files = {out / "manifest.json": b'{"manifest_version": 3}', out / "notes.txt": b"x\n"}
    elif scenario == "model-inside":
        shutil.copytree(seed_program, out)
        user_files = {out / model.name: model.read_bytes()}
        command[2] = str(out / model.name)
    elif scenario in ("symlink", "dangling"):
        shutil.copytree(seed_program, root / "real")
        out.symlink_to(root / ("real" if scenario == "symlink" else "nowhere"))
    elif scenario == "missing-parents":
        out = root / "a" / "b" / "P"
        command[-1] = str(out)
    else:
        shutil.copytree(seed_program, out)
    for path, content in user_files.items():
        path.write_bytes(content)
    p = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if scenario == "interrupt":
        time.sleep(float(instant) * length * 1.2)
        p.send_signal(signal.SIGINT if sig == "INT" else signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return "hang", f"{scenario}: no answer within {timeout} s"
    err = err.decode("utf-8", "replace")
    if "Traceback (most recent call last)" in err:
        return "traceback", f"{scenario}: {err.strip().splitlines()[-1]}"[:300]
    lost = [str(path.name) for path, content in user_files.items()
            if not path.is_file() or path.read_bytes() != content]
    if lost:
        return "partial", f"{scenario}: the user's {', '.join(lost)} deleted or changed"
    left = sorted(n.name for n in out.parent.iterdir() if n.name.startswith("."))
    if left:
        return "partial", f"{scenario}: {', '.join(left)} left beside the output"
    if scenario in ("foreign", "model-inside", "symlink", "dangling"):
        if p.returncode != 1 or len(err.strip().splitlines()) != 1:
            return "partial", f"{scenario}: exit {p.returncode}, {len(err.strip().splitlines())} line(s) on stderr"
        return "error", ""
    complete = subprocess.run([str(BIN / "raptor"), "simulate", str(out)], capture_output=True, timeout=timeout)
    if complete.returncode != 0:
        return "partial", f"{scenario} (SIG{sig} at {instant}): the output is not a complete program"
    return ("ok" if p.returncode == 0 else "error"), ""


def _flip(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data or b"\0")
    for _ in range(rng.randint(1, 4)):
        b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)
