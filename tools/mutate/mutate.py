#!/usr/bin/env python3
"""`make mutate`: seeded, bounded mutation testing of Raptor's Python package and C++.

Python: a sample of cosmic-ray mutations and one of semantic mutations (two
arguments swapped, a term dropped, a variable replaced by another of its
type, a default changed) per module of python/raptor, each run against that
module's tests. C++: a sample of single-token mutations of the
.cpp files of dialects/ and passes/, each rebuilt incrementally and run
against its module's lit tests and pytest files. Prints the kill ratio per
module, writes build/mutate/report.json and lists the survivors with their
diffs. Every edit is made in place and always undone; the mutated sources
must have no uncommitted changes. See docs/mutation.md.

Every run draws a fresh seed unless --seed gives one; the seed is printed
and recorded in the report, and --seed reproduces the sample.

Example:
  python tools/mutate/mutate.py                       # the default run, a fresh seed
  python tools/mutate/mutate.py --seed 15             # the sample of seed 15 again
  python tools/mutate/mutate.py --side python --per-module 3 --modules raptor.rdg
  python tools/mutate/mutate.py --list                # the sample only, nothing run
  python tools/mutate/mutate.py --rerun build/mutate/report.json   # re-test its survivors
  python tools/mutate/mutate.py --compare before.json after.json   # kill ratios side by side
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cpp_semantic  # noqa: E402
import cpp_side  # noqa: E402
import python_side  # noqa: E402
import report  # noqa: E402
from common import ROOT, SURVIVED, TIMEOUT, Mutant, require_clean, unified_diff  # noqa: E402
from testmap import tests_for_cpp, tests_for_python  # noqa: E402


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog=__doc__[__doc__.index("Example:"):],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--side", choices=["python", "c++", "both"], default="both")
    p.add_argument("--per-module", type=int, default=5, metavar="N",
                   help="Python mutants per module (default 5)")
    p.add_argument("--semantic", type=int, default=3, metavar="N",
                   help="Python semantic mutants per module (default 3)")
    p.add_argument("--cpp", type=int, default=16, metavar="N", help="C++ mutants in all (default 16)")
    p.add_argument("--cpp-semantic", type=int, default=8, metavar="N",
                   help="C++ semantic mutants in all (default 8)")
    p.add_argument("--seed", type=int, default=None,
                   help="sampling seed (default: drawn afresh, printed; give it to reproduce a sample)")
    p.add_argument("--modules", nargs="*", default=None,
                   help="only these modules (raptor.rdg, passes/spatial, ...)")
    p.add_argument("--timeout-factor", type=float, default=3.0,
                   help="a Python mutant's timeout: this times its tests' unmutated time, + 30 s")
    p.add_argument("--build-timeout", type=float, default=900.0, help="seconds per C++ rebuild")
    p.add_argument("--out", type=Path, default=ROOT / "build" / "mutate" / "report.json")
    p.add_argument("--list", action="store_true", help="print the sample and stop")
    p.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"),
                   help="print both reports' kill ratios per module as Markdown and stop")
    p.add_argument("--rerun", type=Path, metavar="REPORT",
                   help="re-test the survivors (and timeouts) of REPORT with today's tests; "
                        "the other outcomes are kept")
    return p


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _cpp_site(m: Mutant) -> cpp_side.Site:
    column = int(m.detail.split()[-1]) if m.detail.startswith("column") else -1
    text = (ROOT / m.path).read_text(encoding="utf-8")
    sites = cpp_semantic.enumerate_sites(m.path, text) if m.operator.startswith("semantic/") \
        else cpp_side.enumerate_sites(m.path)
    for site in sites:
        if site.line == m.line and site.operator == m.operator and (column < 0 or site.column == column):
            if unified_diff(m.path, text, cpp_side.apply(site, text)) == m.diff:
                return site
    raise SystemExit(f"mutate: {m.path}:{m.line} has changed since the report: run afresh")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # A kill (SIGTERM) must still undo the edit in flight: make it an exception.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.compare:
        print(report.compare_markdown(report.load(args.compare[0]), report.load(args.compare[1])))
        return 0
    py_mutants: list[Mutant] = []
    cpp_mutants: list[tuple[Mutant, cpp_side.Site]] = []
    kept: list[Mutant] = []
    if args.rerun:
        for m in report.load(args.rerun):
            if m.outcome not in (SURVIVED, TIMEOUT) or (args.modules and m.module not in args.modules):
                kept.append(m)
            elif m.side == "python":
                if python_side.current_diff(m) != m.diff:
                    raise SystemExit(f"mutate: {m.path}:{m.line} has changed since the report: run afresh")
                m.tests = tests_for_python(m.module)
                py_mutants.append(m)
            else:
                lit_dirs, py_tests = tests_for_cpp(m.module)
                m.tests = [*lit_dirs, *py_tests]
                cpp_mutants.append((m, _cpp_site(m)))
    else:
        if args.seed is None:
            args.seed = random.SystemRandom().randrange(1, 1_000_000)
        _log(f"mutate: seed {args.seed} (reproduce this sample with --seed {args.seed})")
        if args.side in ("python", "both"):
            py_mutants = python_side.sample(args.per_module, args.seed, args.modules)
            py_mutants += python_side.sample(args.semantic, args.seed, args.modules, family="semantic")
        if args.side in ("c++", "both"):
            cpp_mutants = cpp_side.sample(args.cpp, args.seed, args.modules)
            cpp_mutants += cpp_side.sample(args.cpp_semantic, args.seed, args.modules, family="semantic")
    if args.list:
        for m in [*py_mutants, *(m for m, _ in cpp_mutants)]:
            print(f"{m.side:6} {m.module:32} {m.path}:{m.line} {m.operator}\n{m.diff}")
        return 0
    if py_mutants:
        require_clean(["python/raptor"])
    if cpp_mutants:
        require_clean(["algebra", "simulator", "dialects", "passes"])
    config = {"seed": args.seed, "per_module": args.per_module, "semantic": args.semantic, "cpp": args.cpp,
              "cpp_semantic": args.cpp_semantic,
              "side": args.side, "modules": args.modules,
              "rerun": str(args.rerun) if args.rerun else None}
    start = time.monotonic()
    everything = [*kept, *py_mutants, *(m for m, _ in cpp_mutants)]
    try:
        if py_mutants:
            python_side.run(py_mutants, args.timeout_factor, _log)
            report.write(args.out, everything, config)
        if cpp_mutants:
            cpp_side.run(cpp_mutants, args.build_timeout, _log)
    finally:
        config["seconds"] = round(time.monotonic() - start)
        report.write(args.out, everything, config)
    print(report.table(report.summarize(everything)))
    print(f"\nsurvivors:\n{report.survivors(everything)}")
    print(f"\nseed {args.seed}; {config['seconds']} s; report: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
