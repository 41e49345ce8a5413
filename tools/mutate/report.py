"""The kill-ratio table per module, the JSON report and the list of survivors."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

from common import INVALID, KILLED, SURVIVED, TIMEOUT, Mutant


def kill_ratio(counts: Counter[str]) -> float | None:
    """Killed (timeouts included: the tests did not pass) over the valid mutants."""
    valid = counts[KILLED] + counts[TIMEOUT] + counts[SURVIVED]
    return (counts[KILLED] + counts[TIMEOUT]) / valid if valid else None


def family(m: Mutant) -> str:
    """The table a mutant counts in: its side, and for the semantic operators
    "python semantic" (their kill ratio is measured apart from cosmic-ray's)."""
    return f"{m.side} semantic" if m.operator.startswith("semantic/") else m.side


def summarize(mutants: Iterable[Mutant]) -> dict[str, dict[str, dict[str, object]]]:
    """{family: {module: {mutants, killed, survived, timeout, invalid, kill_ratio}}}, with a
    "total" row per family (python, python semantic, c++)."""
    rows: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for m in mutants:
        if m.outcome:
            rows[family(m)][m.module][m.outcome] += 1
            rows[family(m)]["total"][m.outcome] += 1
    out: dict[str, dict[str, dict[str, object]]] = {}
    for side, modules in rows.items():
        out[side] = {}
        for module in sorted(modules, key=lambda k: (k == "total", k)):
            c = modules[module]
            out[side][module] = {"mutants": sum(c.values()), KILLED: c[KILLED], SURVIVED: c[SURVIVED],
                                 TIMEOUT: c[TIMEOUT], INVALID: c[INVALID],
                                 "kill_ratio": kill_ratio(c)}
    return out


def table(summary: dict[str, dict[str, dict[str, object]]]) -> str:
    lines = []
    for side, modules in summary.items():
        lines.append(f"\n{side} mutants")
        lines.append(f"{'module':34} {'mutants':>7} {'killed':>6} {'survived':>8} {'timeout':>7} "
                     f"{'invalid':>7} {'kill ratio':>10}")
        for module, r in modules.items():
            ratio = "-" if r["kill_ratio"] is None else f"{100 * float(r['kill_ratio']):.0f}%"
            lines.append(f"{module:34} {r['mutants']:>7} {r[KILLED]:>6} {r[SURVIVED]:>8} "
                         f"{r[TIMEOUT]:>7} {r[INVALID]:>7} {ratio:>10}")
    return "\n".join(lines)


def survivors(mutants: Iterable[Mutant]) -> str:
    parts = [f"{m.path}:{m.line} [{m.side} {m.module}] {m.operator}\n{m.diff.rstrip()}\n"
             for m in mutants if m.outcome == SURVIVED]
    return "\n".join(parts) if parts else "(no survivors)"


def write(path: Path, mutants: list[Mutant], config: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"config": config, "summary": summarize(mutants),
            "mutants": [m.to_json() for m in mutants]}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)


def load(path: Path) -> list[Mutant]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Mutant(**m) for m in data["mutants"]]


def compare_markdown(before: list[Mutant], after: list[Mutant]) -> str:
    """A Markdown table per side: each module's kill ratio in two reports of the
    same sample (an earlier run and its --rerun)."""
    b, a = summarize(before), summarize(after)
    out = []
    for side in b:
        out += [f"\n{side}\n", "| module | mutants | invalid | killed before | kill ratio before "
                "| killed after | kill ratio after |", "|---|---:|---:|---:|---:|---:|---:|"]
        for module, r in b[side].items():
            s = a.get(side, {}).get(module, r)

            def pct(row: dict[str, object]) -> str:
                return "-" if row["kill_ratio"] is None else f"{100 * float(row['kill_ratio']):.0f}%"

            name = f"**{module}**" if module == "total" else f"`{module}`"
            out.append(f"| {name} | {r['mutants']} | {r[INVALID]} | {int(r[KILLED]) + int(r[TIMEOUT])} | "
                       f"{pct(r)} | {int(s[KILLED]) + int(s[TIMEOUT])} | {pct(s)} |")
    return "\n".join(out)
