"""The C++ side: a seeded sample of single-token mutations of dialects/ and passes/.

Each mutant is one edit of one .cpp file, made in place and always undone;
then an incremental rebuild of raptor-opt and the Python extension (a build
failure makes the mutant "invalid"), the freshly built binaries copied into
.venv (the originals are put back at the end), and the module's lit tests and
pytest files (tools/mutate/testmap.py), each with a timeout.
"""

from __future__ import annotations

import random
import re
import shutil
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from common import INVALID, KILLED, PYTHON, ROOT, SURVIVED, TIMEOUT, VENV_BIN, Mutant, edited, \
    run_bounded, test_env, unified_diff
from testmap import cpp_module_of, tests_for_cpp

BUILD = ROOT / "build" / "cp311-cp311-linux_x86_64"
TARGETS = ["raptor-opt", "_raptor"]
EXTENSION = "_raptor.cpython-311-x86_64-linux-gnu.so"


@dataclass(frozen=True)
class Operator:
    name: str
    pattern: re.Pattern[str]
    replace: Callable[[str], str | None]  # the matched token -> its mutation (None: none here)


def _const(delta: int) -> Callable[[str], str | None]:
    def replace(token: str) -> str | None:
        value = int(token) + delta
        return str(value) if value >= 0 else None
    return replace


def _to(text: str) -> Callable[[str], str | None]:
    return lambda _token: text


_SP = r"(?<=\s){}(?=\s)"  # binary operators are spaced in clang-format's LLVM style
OPERATORS: list[Operator] = [
    Operator("< to <=", re.compile(_SP.format("<")), _to("<=")),
    Operator("<= to <", re.compile(_SP.format("<=")), _to("<")),
    Operator("> to >=", re.compile(_SP.format(">")), _to(">=")),
    Operator(">= to >", re.compile(_SP.format(">=")), _to(">")),
    Operator("== to !=", re.compile(_SP.format("==")), _to("!=")),
    Operator("!= to ==", re.compile(_SP.format("!=")), _to("==")),
    Operator("+ to -", re.compile(_SP.format(r"\+")), _to("-")),
    Operator("- to +", re.compile(_SP.format("-")), _to("+")),
    Operator("+= to -=", re.compile(_SP.format(r"\+=")), _to("-=")),
    Operator("-= to +=", re.compile(_SP.format("-=")), _to("+=")),
    Operator("&& to ||", re.compile(_SP.format("&&")), _to("||")),
    Operator("|| to &&", re.compile(_SP.format(r"\|\|")), _to("&&")),
    Operator("! removed", re.compile(r"!(?=[A-Za-z_(])"), _to("")),
    # Integer literals, not inside a template argument list (inline sizes of
    # SmallVector<T, 8> change nothing observable).
    Operator("constant + 1", re.compile(r"(?<![\w.])\d+(?![\w.'])(?!\s*>)"), _const(+1)),
    Operator("constant - 1", re.compile(r"(?<![\w.])\d+(?![\w.'])(?!\s*>)"), _const(-1)),
    Operator("true to false", re.compile(r"\btrue\b"), _to("false")),
    Operator("false to true", re.compile(r"\bfalse\b"), _to("true")),
]

# Lines whose mutation no test can see in a Release build (NDEBUG).
_UNOBSERVABLE = re.compile(r"\bassert\s*\(|LLVM_DEBUG|static_assert|#")


_CLOSERS = {"block": "*/", "raw": ')"'}


def masked_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) with comments and string/char literals blanked, columns kept."""
    out: list[str] = []
    i, n, state = 0, len(text), "code"
    while i < n:
        c = text[i]
        if state == "code":
            if text.startswith("//", i):
                state = "line"
            elif text.startswith("/*", i):
                state = "block"
            elif text.startswith('R"(', i):
                state, i = "raw", i + 3
                out.append("   ")
                continue
            elif c in "\"'":
                state, quote = "str", c
                out.append(" ")
                i += 1
                continue
            out.append(c if state == "code" else " ")
        elif state == "line":
            out.append("\n" if c == "\n" else " ")
            if c == "\n":
                state = "code"
        elif state in _CLOSERS:  # a block comment or a raw string: blank up to its closer
            out.append("\n" if c == "\n" else " ")
            if text.startswith(_CLOSERS[state], i):
                out.append(" ")
                state, i = "code", i + 2
                continue
        else:  # inside a string or char literal
            if c == "\\":
                out.append("  ")
                i += 2
                continue
            out.append(" ")
            if c == quote or c == "\n":
                state = "code"
        i += 1
    yield from enumerate("".join(out).split("\n"), 1)


@dataclass(frozen=True)
class Site:
    path: str
    line: int
    column: int
    length: int
    operator: str
    replacement: str


def enumerate_sites(rel_path: str) -> list[Site]:
    text = (ROOT / rel_path).read_text(encoding="utf-8")
    sites: list[Site] = []
    for number, masked in masked_lines(text):
        if not masked.strip() or _UNOBSERVABLE.search(masked):
            continue
        for op in OPERATORS:
            for match in op.pattern.finditer(masked):
                new = op.replace(match.group(0))
                if new is not None:
                    sites.append(Site(rel_path, number, match.start(), len(match.group(0)),
                                      op.name, new))
    return sites


def apply(site: Site, text: str) -> str:
    lines = text.split("\n")
    line = lines[site.line - 1]
    lines[site.line - 1] = line[:site.column] + site.replacement + line[site.column + site.length:]
    return "\n".join(lines)


def _files(family: str) -> list[Path]:
    """The files a family mutates: .cpp for the token operators; the semantic
    ones also read headers and ODS (.td), where the options' defaults live."""
    patterns = ["*.cpp"] if family == "token" else ["*.cpp", "*.h", "*.td"]
    return sorted(p for top in ("algebra", "simulator", "dialects", "passes") for pattern in patterns
                  for p in (ROOT / top).rglob(pattern))


def _sites_of(rel: str, family: str) -> list[Site]:
    if family == "token":
        return enumerate_sites(rel)
    import cpp_semantic

    return cpp_semantic.enumerate_sites(rel, (ROOT / rel).read_text(encoding="utf-8"))


def _shuffled(sites: list[Site], rng: random.Random, by_operator: bool) -> list[Site]:
    """`sites` in a random order, taken from the end. By operator: the operators
    take turns (each one's sites shuffled), so that an operator with many sites
    (a variable replaced) does not crowd out the others in a small sample."""
    if not by_operator:
        return rng.sample(sites, len(sites))
    groups = defaultdict(list)
    for site in sites:
        groups[site.operator].append(site)
    queues = [rng.sample(groups[op], len(groups[op])) for op in sorted(groups)]
    rng.shuffle(queues)
    dealt = [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]
    return dealt[::-1]


def sample(count: int, seed: int, modules: list[str] | None = None,
           family: str = "token") -> list[tuple[Mutant, Site]]:
    """`count` mutants of `family` ("token": cpp_side's operators, "semantic":
    cpp_semantic's), dealt round-robin over the modules (in a seeded order) so
    that every module is sampled; within a module, sites uniformly at random.
    Each family draws from its own random stream."""
    by_module: dict[str, list[Site]] = defaultdict(list)
    for path in _files(family):
        rel = path.relative_to(ROOT).as_posix()
        module = cpp_module_of(rel)
        if module and (not modules or module in modules):
            by_module[module].extend(_sites_of(rel, family))
    rng = random.Random(f"{seed}:c++" if family == "token" else f"{seed}:c++:{family}")
    order = sorted(by_module)
    rng.shuffle(order)
    pools = {m: _shuffled(by_module[m], rng, by_operator=family != "token") for m in order}
    chosen: list[tuple[str, Site]] = []
    used: Counter[str] = Counter()
    while len(chosen) < count and any(pools.values()):
        for module in order:
            pool = pools[module]
            if pool and len(chosen) < count:
                # Semantic operators take turns over the whole sample too: a
                # module gives its next site of the operator used least so far
                # (a few sites per module would otherwise leave an operator
                # out of a small sample by chance).
                i = len(pool) - 1 if family == "token" else \
                    min(range(len(pool) - 1, -1, -1), key=lambda j: used[pool[j].operator])
                site = pool.pop(i)
                used[site.operator] += 1
                chosen.append((module, site))
    mutants: list[tuple[Mutant, Site]] = []
    for module, site in chosen:
        text = (ROOT / site.path).read_text(encoding="utf-8")
        lit_dirs, py_tests = tests_for_cpp(module)
        mutant = Mutant("c++", module, site.path, site.line, site.operator,
                        unified_diff(site.path, text, apply(site, text)), [*lit_dirs, *py_tests])
        mutant.detail = f"column {site.column}"
        mutants.append((mutant, site))
    return mutants


def _installed() -> list[tuple[Path, Path]]:
    """(built artifact, its installed copy in .venv) for raptor-opt and the extension."""
    site_packages = next((ROOT / ".venv" / "lib").glob("python3*/site-packages"))
    return [(BUILD / "tools" / "raptor-opt" / "raptor-opt", VENV_BIN / "raptor-opt"),
            (BUILD / "python_packages" / "raptor" / EXTENSION, site_packages / "raptor" / EXTENSION)]


def _build(timeout: float) -> tuple[bool, str]:
    result = run_bounded(["cmake", "--build", str(BUILD), "--target", *TARGETS], timeout=timeout)
    return result.status == "pass", result.tail


def _tests(mutant: Mutant, timeouts: dict[str, float]) -> tuple[str, str]:
    lit_dirs = [t for t in mutant.tests if t.startswith("tests/lit")]
    py_tests = [t for t in mutant.tests if t.startswith("tests/python")]
    commands = []
    if lit_dirs:
        commands.append(("lit", [str(VENV_BIN / "lit"), "-q", *lit_dirs]))
    if py_tests:
        commands.append(("pytest", [str(PYTHON), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                                    *py_tests]))
    for kind, cmd in commands:
        key = f"{kind}:{' '.join(cmd[3:] if kind == 'lit' else cmd[6:])}"
        if key not in timeouts:
            base = run_bounded(cmd, timeout=1800, env=test_env())
            if base.status != "pass":
                raise SystemExit(f"mutate: the unmutated tests fail: {' '.join(cmd)}\n{base.tail}")
            timeouts[key] = 3 * base.seconds + 60
        result = run_bounded(cmd, timeout=timeouts[key], env=test_env())
        if result.status == "timeout":
            return TIMEOUT, kind
        if result.status == "fail":
            return KILLED, f"{kind}: " + _last_lines(result.tail)
    return SURVIVED, ""


def _last_lines(tail: str) -> str:
    lines = [l for l in tail.splitlines() if l.startswith(("FAILED", "ERROR", "  Raptor ::", "Failed"))]
    return "; ".join(lines[:3])[:300] or tail.strip().splitlines()[-1][:300]


def run(mutants: list[tuple[Mutant, Site]], build_timeout: float, log: Callable[[str], None]) -> None:
    installed = _installed()
    backups = [(copy, copy.read_bytes()) for _built, copy in installed]
    timeouts: dict[str, float] = {}
    ok, tail = _build(build_timeout)
    if not ok:
        raise SystemExit(f"mutate: the unmutated tree does not build:\n{tail}")
    for built, copy in installed:
        shutil.copy2(built, copy)
    try:
        # Baselines first, on the unmutated build: they fix every timeout.
        for mutant, _site in mutants:
            _tests(mutant, timeouts)
        log(f"[c++] baselines measured: {len(timeouts)} test commands")
        for i, (mutant, site) in enumerate(mutants, 1):
            path = ROOT / site.path
            start = time.monotonic()
            text = path.read_text(encoding="utf-8")
            with edited(path, apply(site, text)):
                ok, tail = _build(build_timeout)
                if ok:
                    for built, copy in installed:
                        shutil.copy2(built, copy)
                    mutant.outcome, mutant.detail = _tests(mutant, timeouts)
                else:
                    mutant.outcome = INVALID
                    mutant.detail = next((l for l in tail.splitlines() if "error" in l), "build failed")[:300]
            mutant.seconds = time.monotonic() - start
            log(f"[c++ {i}/{len(mutants)}] {mutant.outcome:8} {mutant.path}:{mutant.line} "
                f"{mutant.operator} ({mutant.seconds:.0f} s)")
    finally:
        for copy, data in backups:
            copy.write_bytes(data)
        print("[c++] sources restored; .venv's raptor-opt and extension put back", file=sys.stderr)
