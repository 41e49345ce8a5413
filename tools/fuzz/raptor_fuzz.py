#!/usr/bin/env python3
"""Raptor fuzzes itself: seeded mutations of real inputs through every entry point.

Seeds are the project's own inputs: the lit corpus (split at `// -----`),
the shared `.sure` systems and fuzz repros, the bundled targets, the
built-in commutation table, scheduling task graphs, layout specs and a
small compiled program directory. Each round picks an entry point, mutates
one seed (bytes, lines, numbers replaced by extreme values, JSON values),
runs the command under a time limit and classifies the outcome:

- ``ok`` (exit 0) and ``error`` (exit 1 or 2 with a message) are fine;
- ``crash`` (a signal, an LLVM stack dump or an assertion), ``traceback``
  (a Python traceback), ``hang`` (the time limit) and ``partial`` (a
  failing run that left its output behind) are defects: each is saved,
  after a greedy minimization, under ``OUT/defects/``.

    python tools/fuzz/raptor_fuzz.py --seconds 1800 --out build/fuzz    # make fuzz
    python tools/fuzz/raptor_fuzz.py --runs 40 --seed 1                   # a smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import untrusted  # noqa: E402  (the untrusted-input surfaces, beside this file)

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("RAPTOR_SHARED_DIR", ROOT.parent / "shared"))
TARGETS = ROOT / "python" / "raptor" / "spatial" / "targets"
TINY = ROOT / "tests" / "lit" / "passes" / "pim" / "Inputs" / "tiny.json"  # 8-bit cells: fp32 programs
BIN = Path(sys.executable).parent
DEFECTS = ("crash", "traceback", "hang", "partial", "escape")
#: Entry points whose input is a program directory (JSON of its files).
PROGRAM_ENTRIES = ("raptor simulate program", "raptor simulate hostile program", "raptor periodic hostile program",
                   "raptor timing hostile program")
EXTREMES = ["0", "-1", "1", "2147483647", "2147483648", "-2147483649", "4294967296", "9223372036854775807",
            "-9223372036854775808", "18446744073709551616", "1e308", "nan", "-0", "65536", "3"]


@dataclass
class Case:
    """One input for one entry point: the file's name and bytes, and the
    command (``{}`` stands for the input's path, ``{out}`` for an output
    the run must not leave behind when it fails)."""

    entry: str
    name: str
    data: bytes
    command: list[str] | Callable[[bytes, Path, float], tuple[str, str]]  # or a runner of its own


# Mutators -----------------------------------------------------------------

def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not b:
            b.extend(rng.randbytes(4))
        i = rng.randrange(len(b))
        kind = rng.randrange(4)
        if kind == 0:
            b[i] = rng.randrange(256)
        elif kind == 1:
            del b[i:i + rng.randint(1, 16)]
        elif kind == 2:
            b[i:i] = bytes(rng.choice(b"(){}[]<>:,;-=0123456789x\"' \n"))
        else:
            j = rng.randrange(len(b))
            b[i:i] = b[j:j + rng.randint(1, 32)]
    return bytes(b)


def mutate_numbers(rng: random.Random, data: bytes) -> bytes:
    text = data.decode("utf-8", "replace")
    numbers = list(re.finditer(r"-?\d+", text))
    if not numbers:
        return mutate_bytes(rng, data)
    m = rng.choice(numbers)
    return (text[:m.start()] + rng.choice(EXTREMES) + text[m.end():]).encode()


def mutate_lines(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    if len(lines) < 2:
        return mutate_bytes(rng, data)
    i = rng.randrange(len(lines))
    kind = rng.randrange(3)
    if kind == 0:
        del lines[i]
    elif kind == 1:
        lines.insert(i, lines[rng.randrange(len(lines))])
    else:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def mutate_json(rng: random.Random, data: bytes) -> bytes:
    try:
        value = json.loads(data)
    except ValueError:
        return mutate_bytes(rng, data)
    replacements = [0, -1, 2**31, 2**63, 1e308, -1e308, None, "", "x", [], {}, True, 0.5, float("nan")]

    def walk(v, depth=0):
        if isinstance(v, dict) and v:
            k = rng.choice(list(v))
            if rng.random() < 0.3:
                v[k] = rng.choice(replacements)
            elif rng.random() < 0.1:
                del v[k]
            else:
                walk(v[k], depth + 1)
        elif isinstance(v, list) and v:
            i = rng.randrange(len(v))
            if rng.random() < 0.3:
                v[i] = rng.choice(replacements)
            elif rng.random() < 0.1:
                del v[i]
            else:
                walk(v[i], depth + 1)

    walk(value)
    return json.dumps(value).encode()


MUTATORS = (mutate_bytes, mutate_numbers, mutate_lines)


# Seeds --------------------------------------------------------------------

def _lit_chunks() -> list[tuple[str, bytes]]:
    chunks = []
    for path in sorted((ROOT / "tests" / "lit").rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        for k, chunk in enumerate(path.read_text().split("// -----")):
            text = "\n".join(l for l in chunk.splitlines() if not l.lstrip().startswith("// RUN"))
            if text.strip():
                chunks.append((f"{path.stem}.{k}.mlir", text.encode()))
    for path in sorted((SHARED / "data" / "fuzz-repros").glob("*.mlir")):
        chunks.append((path.name, path.read_bytes()))
    return chunks


def _sure_files() -> list[tuple[str, bytes]]:
    files = sorted((SHARED / "data").rglob("*.sure")) + sorted((ROOT / "tests").rglob("*.sure"))
    return [(p.name, p.read_bytes()) for p in files if "Output" not in p.parts]


def _json_files(pattern: str, where: list[Path]) -> list[tuple[str, bytes]]:
    out = []
    for base in where:
        for p in sorted(base.rglob(pattern)):
            if p.stat().st_size < 200_000 and "Output" not in p.parts:
                out.append((p.name, p.read_bytes()))
    return out


def _program_directory(work: Path) -> dict[str, str]:
    """A small compiled program (a linear layer and a relu), as file -> hex."""
    src = work / "seed.mlir"
    src.write_text("""func.func @main(%x: tensor<1x12xf32> {nn.input = "x"}) -> tensor<1x10xf32> {
  %w = nn.constant dense<0.5> : tensor<10x12xf32>
  %0 = nn.linear %x, %w : (tensor<1x12xf32>, tensor<10x12xf32>) -> tensor<1x10xf32>
  %1 = nn.relu %0 : tensor<1x10xf32>
  return %1 : tensor<1x10xf32>
}
""")
    out = work / "seed-program"
    subprocess.run([str(BIN / "raptor"), "compile", str(src), "-o", str(out), "--target", str(TINY),
                    "--format", "both", "-q"], check=True, capture_output=True)
    return {str(p.relative_to(out)): p.read_bytes().hex() for p in sorted(out.rglob("*")) if p.is_file()}


def entry_points(work: Path) -> dict[str, tuple[list[tuple[str, bytes]], Callable, list[str] | Callable]]:
    """name -> (seeds, mutator chooser, command template or runner)."""
    opt = str(BIN / "raptor-opt")
    raptor = str(BIN / "raptor")
    small = str(TARGETS / "small.json")
    mlir = _lit_chunks()
    table = subprocess.run([sys.executable, "-c", "import raptor.codec as c; print(c.seed_table())"],
                           capture_output=True, text=True, check=True).stdout.encode()
    targets = [(p.name, p.read_bytes()) for p in sorted(TARGETS.glob("*.json"))]
    dags = _json_files("*.json", [SHARED / "data" / "sched"]) + [
        (p.name, p.read_bytes()) for p in sorted((SHARED / "data" / "fuzz-repros").glob("U*.json"))]
    program = json.dumps(_program_directory(work)).encode()
    seed_program, seed_model = work / "seed-program", work / "seed.mlir"
    start = time.monotonic()
    subprocess.run([raptor, "compile", str(seed_model), "-o", str(work / "timed"), "--target", str(TINY), "-q"],
                   check=True, capture_output=True)
    compile_seconds = time.monotonic() - start
    shutil.rmtree(work / "timed")
    repros = SHARED / "data" / "fuzz-repros-t3"
    hostile = lambda rng: untrusted.mutate_hostile_program  # noqa: E731
    text = lambda rng: rng.choice(MUTATORS)  # noqa: E731
    structured = lambda rng: rng.choice(MUTATORS + (mutate_json, mutate_json))  # noqa: E731
    entries = {
        "raptor-opt verify": (mlir, text, [opt, "{}", "-o", "/dev/null"]),
        "raptor-opt canonicalize": (mlir, text, [opt, "{}", "--canonicalize", "-o", "/dev/null"]),
        "raptor-opt place-codecs": (mlir, text, [opt, "{}", "--raptor-place-codecs=policy=W", "-o", "/dev/null"]),
        "raptor-opt paper-conventions": (mlir, text, [opt, "{}", "--raptor-materialize-padding", "--raptor-unfuse-fan-out",
                                                      "--raptor-pack-rotary-heads", "--raptor-insert-fan-out",
                                                      "--raptor-place-codecs=policy=W placement=nonlocal",
                                                      "--raptor-expand-requantizers", "-o", "/dev/null"]),
        "raptor-opt schedule+lower": (mlir, text, [opt, "{}", f"--raptor-build-compute-graph=target={small}",
                                                   "--raptor-schedule-spatial", "--raptor-lower-to-pim",
                                                   "-o", "/dev/null"]),
        "raptor-opt extract-rdg": (mlir, text, [opt, "{}", "--raptor-extract-rdg", "-o", "/dev/null"]),
        "raptor rdg": (_sure_files(), text, [raptor, "rdg", "{}", "--analyze", "--json", "{out}"]),
        "raptor codec-report table": ([("table.txt", table)], text,
                                      [raptor, "codec-report", "shufflenet_v2", "--table", "{}", "--json", "-o", "{out}"]),
        "raptor schedule target": (targets, structured, [raptor, "schedule", str(ROOT / "tests" / "lit" / "passes"
                                                                                 / "pim" / "lower-linear.mlir"),
                                                         "--target", "{}", "--report-dir", "{out}"]),
        "raptor schedule-dag": (dags, structured, [raptor, "schedule-dag", "{}"]),
        "raptor layout-svg": ([(s, s.encode()) for s in ("(4,2):(1,4)", "((2,2),3):((1,6),2)", "(8):(2)",
                                                         "(4,4) --(1,3)--> (4,2,4)", "(2,3):(3,1)")],
                              text, [raptor, "layout-svg", "@{}", "-o", "{out}"]),
        "raptor simulate program": ([("program", program)], lambda rng: mutate_program, [raptor, "simulate", "{}"]),
        "raptor simulate hostile program": ([("program", program)], hostile, [raptor, "simulate", "{}"]),
        "raptor periodic hostile program": ([("program", program)], hostile, [raptor, "periodic", "{}"]),
        "raptor timing hostile program": ([("program", program)], hostile, [raptor, "simulate", "{}", "--timing"]),
        "raptor import onnx": (untrusted.onnx_seeds(), lambda rng: untrusted.mutate_onnx,
                               [raptor, "import", "{}", "-o", "{out}"]),
        "raptor simulate npy input": (untrusted.npy_seeds((1, 12)), lambda rng: untrusted.mutate_npy,
                                      [raptor, "simulate", str(seed_program), "--input", "{}"]),
        "raptor compile output": (untrusted.output_seeds(), lambda rng: untrusted.mutate_output,
                                  lambda data, at, timeout: untrusted.run_output_case(
                                      data, at, timeout, seed_model, TINY, seed_program, compile_seconds)),
    }
    if (repros / "tiny.pt2").is_file():
        entries["raptor import pt2"] = ([("tiny.pt2", (repros / "tiny.pt2").read_bytes())],
                                        lambda rng: untrusted.mutate_pt2, [raptor, "import", "{}", "-o", "{out}"])
    if (repros / "tiny.mlir").is_file():
        shutil.copy(repros / "tiny.mlir", work / "weighted.mlir")
        entries["raptor compile safetensors"] = (
            [("tiny.safetensors", (repros / "tiny.safetensors").read_bytes())],
            lambda rng: untrusted.mutate_safetensors,
            [raptor, "compile", str(work / "weighted.mlir"), "--weights", "{}", "-o", "{out}", "-q"])
    return entries


def mutate_program(rng: random.Random, data: bytes) -> bytes:
    """A program directory with one file truncated, corrupted, removed or
    (for JSON) given bad values."""
    files = json.loads(data)
    name = rng.choice(sorted(files))
    raw = bytes.fromhex(files[name])
    kind = rng.randrange(4)
    if kind == 0:
        raw = raw[:rng.randrange(len(raw) + 1)]
    elif kind == 1 and name.endswith(".json"):
        raw = mutate_json(rng, raw)
    elif kind == 2 and rng.random() < 0.3:
        del files[name]
        return json.dumps(files).encode()
    else:
        raw = mutate_bytes(rng, raw)
    files[name] = raw.hex()
    return json.dumps(files).encode()


# Running ------------------------------------------------------------------

def materialize(case: Case, work: Path) -> Path:
    if case.entry in PROGRAM_ENTRIES:
        d = work / "program"
        untrusted.materialize_program(json.loads(case.data), d)
        return d
    path = work / ("input" + Path(case.name).suffix)
    path.write_bytes(case.data)
    return path


def run(case: Case, work: Path, timeout: float) -> tuple[str, str]:
    """(outcome, detail) of one case."""
    if callable(case.command):
        return case.command(case.data, work, timeout)
    path = materialize(case, work)
    out = work / "output.json"
    for leftover in (out, out.with_suffix(".safetensors")):
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover)
        elif leftover.exists() or leftover.is_symlink():
            leftover.unlink()
    command = []
    for part in case.command:
        if part == "@{}":  # layout specs are arguments, not files
            part = case.data.decode("utf-8", "replace").replace("\x00", "")
            if part.startswith("-"):
                part = " " + part
        command.append(part.replace("{}", str(path)).replace("{out}", str(out)))
    try:
        p = subprocess.run(command, capture_output=True, timeout=timeout, cwd=work,
                           env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    except subprocess.TimeoutExpired:
        return "hang", f"no answer within {timeout} s"
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode < 0 or "Stack dump" in err or "Assertion" in err or "PLEASE submit a bug report" in err \
            or "Fatal Python error" in err:
        return "crash", f"exit {p.returncode}: {err.strip().splitlines()[-1] if err.strip() else ''}"[:300]
    if "Traceback (most recent call last)" in err:
        return "traceback", err.strip().splitlines()[-1][:300]
    if p.returncode not in (0, 1, 2):
        return "crash", f"exit {p.returncode}"
    if p.returncode != 0:
        if "{out}" in " ".join(case.command) and out.exists():
            return "partial", f"exit {p.returncode} but {out.name} was written"
        return "error", ""
    if case.entry in PROGRAM_ENTRIES and _names_outside(json.loads(case.data), case.entry):
        return "escape", "a program whose files lie outside it was accepted"
    return "ok", ""


def _names_outside(files: dict, entry: str) -> bool:
    """Whether the command of ``entry`` reads a file of the program
    directory that lies outside it: a manifest path that leaves it, or a
    symbolic link to elsewhere in place of a file it reads (a reader that
    accepts either read what it must not)."""
    try:
        manifest = json.loads(bytes.fromhex(files["manifest.json"]))
    except (KeyError, ValueError, TypeError):
        return False
    named = [c.get(k) for c in manifest.get("cores", []) if isinstance(c, dict)
             for k in ("weights", "program", "origins")]
    named = [n for n in named if isinstance(n, str)]
    if any(n.startswith("/") or ".." in Path(n).parts for n in named):
        return True
    read = {"manifest.json", "memory.bin", *named}
    if entry != "raptor simulate hostile program":
        read |= {"chip.json", "network.json"}
    return any(isinstance(files.get(n), dict) and "symlink" in files[n] for n in read)


def minimize(case: Case, outcome: str, work: Path, timeout: float, budget: int = 60) -> Case:
    """Greedy chunk deletion keeping the same outcome (bounded tries)."""
    if case.entry in PROGRAM_ENTRIES or callable(case.command):
        return case
    data, tries, chunk = case.data, 0, max(1, len(case.data) // 2)
    while chunk >= 1 and tries < budget:
        i, progressed = 0, False
        while i < len(data) and tries < budget:
            candidate = Case(case.entry, case.name, data[:i] + data[i + chunk:], case.command)
            tries += 1
            if run(candidate, work, timeout)[0] == outcome:
                data, progressed = candidate.data, True
            else:
                i += chunk
        if not progressed:
            chunk //= 2
    return Case(case.entry, case.name, data, case.command)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="time budget (default: 60)")
    ap.add_argument("--runs", type=int, default=0, help="stop after this many inputs (0: the time budget only)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=20.0, help="per run, seconds (default: 20)")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "fuzz", help="report and defects (build/fuzz)")
    ap.add_argument("--entries", help="comma-separated entry point names (default: all)")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, Counter] = defaultdict(Counter)
    defects = []
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="raptor-fuzz-") as tmp:
        work = Path(tmp)
        entries = entry_points(work)
        if args.entries:
            wanted = set(args.entries.split(","))
            entries = {k: v for k, v in entries.items() if k in wanted}
        names = sorted(entries)
        runs = 0
        while time.monotonic() - start < args.seconds and (not args.runs or runs < args.runs):
            entry = names[runs % len(names)]
            seeds, choose, command = entries[entry]
            name, data = rng.choice(seeds)
            mutator = choose(rng)
            case = Case(entry, name, mutator(rng, data), command)
            outcome, detail = run(case, work, args.timeout)
            counts[entry][outcome] += 1
            runs += 1
            if outcome in DEFECTS:
                small = minimize(case, outcome, work, args.timeout)
                target = args.out / "defects" / f"{len(defects):03d}-{entry.replace(' ', '_')}-{outcome}"
                target.mkdir(parents=True, exist_ok=True)
                (target / ("input" + Path(name).suffix)).write_bytes(small.data)
                spelled = " ".join(command) if not callable(command) else f"{entry} (untrusted.py)"
                (target / "command.txt").write_text(spelled + f"\n{outcome}: {detail}\n")
                defects.append({"entry": entry, "seed": name, "outcome": outcome, "detail": detail,
                                "saved": str(target)})
                print(f"[{runs}] {entry}: {outcome} ({detail}) -> {target}", file=sys.stderr)
            elif runs % 100 == 0:
                print(f"[{runs}] {time.monotonic() - start:.0f} s", file=sys.stderr)
    report = {"seed": args.seed, "seconds": round(time.monotonic() - start, 1), "runs": runs,
              "outcomes": {k: dict(v) for k, v in sorted(counts.items())}, "defects": defects}
    (args.out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print("| entry point | runs | ok | error | defects |\n|---|---:|---:|---:|---:|")
    for entry, c in sorted(counts.items()):
        print(f"| {entry} | {sum(c.values())} | {c['ok']} | {c['error']} | {sum(c[d] for d in DEFECTS)} |")
    print(f"{runs} inputs in {report['seconds']} s, {len(defects)} defect(s); report: {args.out / 'report.json'}")
    return 1 if defects else 0


if __name__ == "__main__":
    raise SystemExit(main())
