"""The RDG analyses of every shared .sure system against a brute-force
expansion written here: its own reading of the .sure text (parameters,
domain, equations with their branch conditions, the reads in each body),
every equation instance enumerated, every read resolved to the instance
that defines it, and the free schedule computed by longest path. Nothing
here goes through Raptor's parser, RDG or instance."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import pytest
from test_rdg import DATA as SHARED

from raptor import rdg
from raptor.rdg.analysis import analyze

DATA = SHARED / "sure"
SYSTEMS = sorted(p.stem for p in DATA.glob("*.sure"))
_CALL = re.compile(r"([A-Za-z_]\w*)\s*\(([^()]*)\)")
_COMPARISON = re.compile(r"(<=|>=|<|>|=)")


def _value(expression: str, env: dict[str, int]) -> int:
    # Affine index expressions over indices and parameters only.
    assert re.fullmatch(r"[\w\s+\-*]*", expression), expression
    return int(eval(expression, {"__builtins__": {}}, env))  # noqa: S307 (test data)


def _holds(constraints: str, env: dict[str, int]) -> bool:
    """`0 <= i < N, k <= i - 1, i = j`: every comma-separated chain holds."""
    for chain in filter(None, (c.strip() for c in constraints.split(","))):
        parts = _COMPARISON.split(chain)
        values = [_value(e, env) for e in parts[0::2]]
        for a, op, b in zip(values, parts[1::2], values[1:]):
            if not {"<=": a <= b, ">=": a >= b, "<": a < b, ">": a > b, "=": a == b}[op]:
                return False
    return True


@dataclass
class Equation:
    variable: str
    branch: int  # its position among the variable's equations
    indices: list[str]
    condition: str
    reads: list[tuple[str, list[str]]]


@dataclass
class Expansion:
    instances: dict[tuple[str, tuple[int, ...]], int]  # (variable, point) -> branch
    deps: dict[tuple[str, tuple[int, ...]], list[tuple[str, tuple[int, ...]]]]


def _parse(text: str) -> tuple[dict[str, int], list[str], str, list[Equation]]:
    text = re.sub(r"//[^\n]*|#[^\n]*", "", text)
    head, body = text.split("system", 1)
    params = {m[0]: int(m[1]) for m in re.findall(r"(\w+)\s*=\s*(-?\d+)\s*;", head)}
    m = re.match(r"\s*\(\s*\(([^)]*)\)\s*\|([^{]*)\)\s*\{(.*)\}", body, re.S)
    assert m, "system header"
    indices = [i.strip() for i in m[1].split(",")]
    equations, seen = [], {}
    for statement in filter(None, (s.strip() for s in m[3].split(";"))):
        lm = re.fullmatch(r"\s*(\w+)\s*\(([^|)]*)(?:\|([^)]*))?\)\s*=(.*)", statement, re.S)
        assert lm, statement
        name, rhs = lm[1], lm[4]
        equations.append(Equation(name, seen.get(name, 0), [i.strip() for i in lm[2].split(",")],
                                  lm[3] or "", [(c[0], [a.strip() for a in c[1].split(",")])
                                                for c in _CALL.findall(rhs)]))
        seen[name] = seen.get(name, 0) + 1
    return params, indices, m[2], equations


@lru_cache(maxsize=None)
def expand(name: str) -> Expansion:
    params, indices, domain, equations = _parse((DATA / f"{name}.sure").read_text())
    bound = max(params.values(), default=1) + 2
    points = []

    def walk(prefix: tuple[int, ...]) -> None:
        if len(prefix) == len(indices):
            env = {**params, **dict(zip(indices, prefix))}
            if _holds(domain, env):
                assert all(-bound < c < bound for c in prefix), "the box must contain the domain"
                points.append(prefix)
            return
        for c in range(-bound, bound + 1):
            walk(prefix + (c,))

    walk(())
    variables = {e.variable for e in equations}
    instances: dict[tuple[str, tuple[int, ...]], int] = {}
    for e in equations:
        assert e.indices == indices  # every shared system defines variables on the full index
        for p in points:
            if _holds(e.condition, {**params, **dict(zip(indices, p))}):
                assert (e.variable, p) not in instances, f"{e.variable}{p} defined twice"
                instances[(e.variable, p)] = e.branch
    deps: dict[tuple[str, tuple[int, ...]], list[tuple[str, tuple[int, ...]]]] = {}
    for e in equations:
        for p in points:
            env = {**params, **dict(zip(indices, p))}
            if instances.get((e.variable, p)) != e.branch:
                continue
            for read, args in e.reads:
                if read not in variables:
                    continue
                q = tuple(_value(a, env) for a in args)
                if (read, q) in instances:  # else an input: no dependence
                    deps.setdefault((e.variable, p), []).append((read, q))
    return Expansion(instances, deps)


def free_schedule_length(x: Expansion) -> int:
    time: dict[tuple[str, tuple[int, ...]], int] = {}

    def t(node: tuple[str, tuple[int, ...]], depth: int = 0) -> int:
        assert depth <= len(x.instances), "a cycle"
        if node not in time:
            time[node] = 1 + max((t(d, depth + 1) for d in x.deps.get(node, [])), default=0)
        return time[node]

    return max(t(n) for n in x.instances)


def violations(x: Expansion, tau: list[float], offsets: dict[str, float]) -> int:
    """Reads that do not happen strictly after their producer."""
    bad = 0
    for (v, p), reads in x.deps.items():
        for u, q in reads:
            tp = sum(a * b for a, b in zip(tau, p)) + offsets.get(f"{v}[{x.instances[(v, p)]}]", 0.0)
            tq = sum(a * b for a, b in zip(tau, q)) + offsets.get(f"{u}[{x.instances[(u, q)]}]", 0.0)
            bad += tp - tq < 1 - 1e-6
    return bad


def _verdicts(name: str) -> dict:
    return analyze(rdg.extract(rdg.load_sure(DATA / f"{name}.sure"), "extended"))


def test_every_shared_system_is_here() -> None:
    assert len(SYSTEMS) == 10


@pytest.mark.parametrize("name", SYSTEMS)
def test_points_and_free_schedule_equal_the_brute_force_expansion(name: str) -> None:
    x, verdicts = expand(name), _verdicts(name)
    assert verdicts["points"] == len(x.instances)
    assert verdicts["free_schedule_length"] == free_schedule_length(x)


@pytest.mark.parametrize("name", SYSTEMS)
def test_linear_schedules_order_every_read_of_the_expansion(name: str) -> None:
    """The schedule found is valid on reads resolved here; made one step
    flatter (a component of tau lowered), a read comes too early: the check
    can fail."""
    x, verdicts = expand(name), _verdicts(name)
    schedule = verdicts["linear_schedule"]
    if schedule is None:
        # Computable (the free schedule exists) but not by one tau for all
        # branches: xx(i-1,..) is read in one branch, xx(i+1,..) in another
        # (Jacobi), accL/accU run along j in opposite directions.
        assert name in {"gauss_seidel", "jacobi_systolic"}
        assert free_schedule_length(x) is not None
        return
    tau, offsets = schedule["tau"], schedule["offsets"]
    assert violations(x, tau, offsets) == 0
    # The length of a linear schedule bounds the free schedule from above.
    stamps = [sum(a * b for a, b in zip(tau, p)) + offsets.get(f"{v}[{b}]", 0.0)
              for (v, p), b in x.instances.items()]
    assert max(stamps) - min(stamps) + 1 >= free_schedule_length(x) - 1e-6
    for k, component in enumerate(tau):
        if component >= 1:
            flatter = list(tau)
            flatter[k] -= 1
            assert violations(x, flatter, offsets) > 0, f"tau[{k}] lowered still orders every read"


def test_hand_derived_values_of_gemv() -> None:
    """gemv (M = 3, N = 4, one k plane): six variables over 12 points each;
    acc(i,j) waits for acc(i,j-1) and xx(i-1,j), whose chain takes i + 1
    steps: acc(2,3) runs at step 2 + 3 + 1 = 6."""
    x = expand("gemv")
    assert len(x.instances) == 6 * 12 and free_schedule_length(x) == 6
