"""The Python side: cosmic-ray's mutation operators and the semantic ones
(semantic.py) on python/raptor, sampled.

cosmic-ray (pinned in requirements/mutate.txt) enumerates every mutation of a
file as an (operator, occurrence) pair and has no sampling of its own, so
this driver enumerates them with cosmic-ray's operators, groups them by
source site, draws a seeded sample of sites per module (one mutation per
site), applies each with cosmic-ray's `mutate_code` and runs only that
module's tests (tools/mutate/testmap.py), with a per-mutant timeout. The
semantic operators' sites are drawn apart (their own count per module), so
that each family's kill ratio is measured on a sample of its own.
"""

from __future__ import annotations

import functools
import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import semantic
from common import INVALID, KILLED, PYTHON, ROOT, SURVIVED, TIMEOUT, Mutant, edited, run_bounded, \
    test_env, unified_diff
from testmap import PYTHON_MODULES, python_module_of, tests_for_python

# Operators that need arguments (variable replacement and insertion draw
# random names) or that only exist for cosmic-ray's baseline run.
_EXCLUDED_OPERATORS = {"core/VariableReplacer", "core/VariableInserter", "core/NoOp"}

Site = tuple[int, int]  # (line, column) where the mutation starts


@functools.lru_cache(maxsize=1)
def _operators() -> list[tuple[str, Any]]:
    from cosmic_ray.plugins import get_operator, operator_names

    return [(name, get_operator(name)()) for name in sorted(operator_names())
            if name not in _EXCLUDED_OPERATORS]


def enumerate_mutations(source: str, family: str = "cosmic-ray") -> dict[Site, list[tuple[str, int]]]:
    """Every (operator name, occurrence) of `family` (cosmic-ray or semantic)
    that applies to `source`, by site.

    cosmic-ray's occurrence is counted in the pre-order walk its
    MutationVisitor uses, so `mutate_code(source, op, occurrence)` applies
    exactly the mutation found here."""
    if family == "semantic":
        found: dict[Site, list[tuple[str, int]]] = defaultdict(list)
        for name, muts in semantic.mutations(source).items():
            for k, m in enumerate(muts):
                found[(m.line, m.column)].append((name, k))
        return found
    from cosmic_ray.ast import ast_nodes, get_ast

    by_site: dict[Site, list[tuple[str, int]]] = defaultdict(list)
    operators = _operators()
    occurrences = [0] * len(operators)
    for node in ast_nodes(get_ast(source)):
        for k, (name, op) in enumerate(operators):
            for (start, _stop) in op.mutation_positions(node):
                by_site[(start[0], start[1])].append((name, occurrences[k]))
                occurrences[k] += 1
    return by_site


def _unobservable(source: str) -> Callable[[Site], bool]:
    """Whether a site lies in a docstring or a type annotation: every module has
    `from __future__ import annotations`, so annotations are never evaluated, and
    no test can observe a docstring."""
    import ast

    spans: list[tuple[Site, Site]] = []

    def span(node: ast.AST | None) -> None:
        if node is not None:
            spans.append(((node.lineno, node.col_offset),
                          (node.end_lineno or node.lineno, node.end_col_offset or 0)))

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                span(body[0])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            span(node.returns)
        elif isinstance(node, ast.arg):
            span(node.annotation)
        elif isinstance(node, ast.AnnAssign):
            span(node.annotation)
    return lambda site: any(lo <= site < hi for lo, hi in spans)


def sample(per_module: int, seed: int, modules: Sequence[str] | None = None,
           family: str = "cosmic-ray") -> list[Mutant]:
    """`per_module` mutants of `family` for each module (all of them where it
    has fewer sites)."""
    sites_of: dict[str, list[tuple[Path, Site, list[tuple[str, int]]]]] = defaultdict(list)
    for path in sorted((ROOT / "python" / "raptor").rglob("*.py")):
        module = python_module_of(path.relative_to(ROOT).as_posix())
        if module is None or (modules and module not in modules):
            continue
        source = path.read_text(encoding="utf-8")
        skip = _unobservable(source)
        for site, muts in sorted(enumerate_mutations(source, family).items()):
            if not skip(site):
                sites_of[module].append((path, site, muts))
    mutants: list[Mutant] = []
    salt = "" if family == "cosmic-ray" else f":{family}"  # (the cosmic-ray draws of a seed stay as they were)
    for module in sorted(sites_of):
        rng = random.Random(f"{seed}:{module}{salt}")
        chosen = rng.sample(sites_of[module], min(per_module, len(sites_of[module])))
        for path, site, muts in sorted(chosen, key=lambda c: (str(c[0]), c[1])):
            name, occurrence = rng.choice(sorted(muts))
            rel = path.relative_to(ROOT).as_posix()
            source = path.read_text(encoding="utf-8")
            mutated = mutate(source, f"{name}#{occurrence}")
            mutants.append(Mutant("python", module, rel, site[0], f"{name}#{occurrence}",
                                  unified_diff(rel, source, mutated or source),
                                  tests_for_python(module)))
    return mutants


def mutate(source: str, operator: str) -> str | None:
    """`source` with the mutation `operator` ("name#occurrence") applied, by
    cosmic-ray or by semantic.py; None when it does not apply."""
    name, occurrence = operator.split("#")
    if name in semantic.OPERATORS:
        return semantic.mutate_code(source, name, int(occurrence))
    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.plugins import get_operator

    try:
        return mutate_code(source, get_operator(name)(), int(occurrence))
    except AttributeError:
        # cosmic-ray's ExceptionReplacer counts the names of an
        # `except (m.A, m.B)` but fails to apply to them when its try has
        # another dotted except clause: that mutant is not applicable.
        return None


def current_diff(mutant: Mutant) -> str:
    """The diff `mutant` makes to today's source (a rerun checks it is the one recorded)."""
    source = (ROOT / mutant.path).read_text(encoding="utf-8")
    return unified_diff(mutant.path, source, mutate(source, mutant.operator) or source)


def baseline_seconds(tests: Sequence[str]) -> float:
    """The unmutated run of `tests`; it must pass, or no mutant of them means anything."""
    result = run_bounded(_pytest_cmd(tests), timeout=1800, env=test_env())
    if result.status != "pass":
        raise SystemExit(f"mutate: the unmutated tests fail: {' '.join(tests)}\n{result.tail}")
    return result.seconds


def _pytest_cmd(tests: Sequence[str]) -> list[str]:
    return [str(PYTHON), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
            *tests]


def run(mutants: list[Mutant], timeout_factor: float, log: Callable[[str], None]) -> None:
    """Applies each mutant in place (always restored) and runs its module's tests."""
    baselines: dict[tuple[str, ...], float] = {}
    for i, mutant in enumerate(mutants, 1):
        key = tuple(mutant.tests)
        if key not in baselines:
            baselines[key] = baseline_seconds(mutant.tests)
            log(f"[python] baseline {mutant.module}: {baselines[key]:.1f} s")
        path = ROOT / mutant.path
        source = path.read_text(encoding="utf-8")
        mutated = mutate(source, mutant.operator)
        start = time.monotonic()
        if mutated is None or mutated == source:
            mutant.outcome, mutant.detail = INVALID, "no mutation applied"
        else:
            try:
                compile(mutated, mutant.path, "exec")
            except SyntaxError as err:
                mutant.outcome, mutant.detail = INVALID, f"syntax error: {err}"
            else:
                with edited(path, mutated):
                    result = run_bounded(_pytest_cmd(mutant.tests),
                                         timeout=timeout_factor * baselines[key] + 30,
                                         env=test_env())
                mutant.outcome = {"pass": SURVIVED, "fail": KILLED, "timeout": TIMEOUT}[result.status]
                mutant.detail = _first_failure(result.tail) if result.status == "fail" else ""
        mutant.seconds = time.monotonic() - start
        log(f"[python {i}/{len(mutants)}] {mutant.outcome:8} {mutant.path}:{mutant.line} "
            f"{mutant.operator} ({mutant.seconds:.1f} s)")


def _first_failure(tail: str) -> str:
    for line in tail.splitlines():
        if line.startswith(("FAILED", "ERROR")):
            return line[:300]
    return tail.strip().splitlines()[-1][:300] if tail.strip() else ""


__all__ = ["PYTHON_MODULES", "current_diff", "enumerate_mutations", "mutate", "run", "sample"]
