#!/usr/bin/env python3
"""Benchmark: shorter lanes in latency mode (`--lane-tiles T`) against lanes as tall as a core holds.

For each CNN (torchvision models with seeded random weights, as
bench/pim_models.py prepares them, 224 x 224) on the default 168-core
chip, f32 and int8, compiled with the default latency options (rows
streamed or whole tensors, `--row-block auto`) and lanes of at most T
row tiles (0: as many as a core holds; `auto`, the default: the height
of 3, 2 and 1 the queue model predicts clearly fastest, the table saying
which): the timing simulator's latency of
one inference, the compile's estimate (the queue model), the list
schedule's critical path and the cores used. Every program with short
lanes is run on the same seeded input as the T = 0 program and must give
the same outputs (bench/outputs.py: bit for bit in int8; in f32 to
rounding, since partial sums are added in another order). The figures that
carry over to another machine are the ratios: latency / latency at T = 0,
estimate / simulated.

    python bench/lane_tiles.py --json docs/lane-tiles.json --doc docs/scheduling.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


from raptor import pim

sys.path.insert(0, str(Path(__file__).parent))
from outputs import same_outputs  # noqa: E402
from variants import compile_variants, measure_variants, publish  # noqa: E402
from pim_models import _torchvision  # noqa: E402  (the same model preparation)

MODELS = ("resnet18", "googlenet", "squeezenet1_1")
TILES = (0, 6, 3, 2, 1, "auto")


def measure(name: str, precision: str, tiles: tuple[int, ...], work: Path) -> list[dict]:
    module, weights_path, x, reference, *_ = _torchvision(name, work)
    rows: list[dict] = []
    base_outputs = None
    for row, result, program in compile_variants(module, weights_path, name, precision, "lane_tiles", tiles, work):
        if result is None:
            rows.append(row)
            continue
        schedule = result.manifest["schedule"]
        simulated = program.time().latency_ns
        outputs = pim.simulate(result.directory, x).outputs
        if base_outputs is None:
            base_outputs, base_ns = outputs, simulated
        same = same_outputs(outputs, base_outputs, precision,
                            {k: reference for k in outputs} if len(outputs) == 1 else None)
        row.update(simulated_ns=simulated, predicted_ns=schedule["predicted_latency_ns"],
                   critical_path_ns=schedule["critical_path_ns"], cores=schedule["cores_used"],
                   row_block=schedule["row_block"], kept_lane_tiles=schedule["lane_tiles"],
                   latency_over_full=simulated / base_ns,
                   predicted_over_simulated=schedule["predicted_latency_ns"] / simulated,
                   outputs_equal_full=bool(same))
        rows.append(row)
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| model | precision | lane tiles | row block | cores | simulated (ms) | / full lanes | "
             "estimate (ms) | estimate / simulated | critical path (ms) | outputs = full lanes |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        tiles = r["lane_tiles"] or "full"
        if tiles == "auto" and "error" not in r:
            tiles = f"auto: {r['kept_lane_tiles'] or 'full'}"
        if "error" in r:
            lines.append(f"| {r['model']} | {r['precision']} | {tiles} | fails: {r['error']} |" + " |" * 7)
            continue
        lines.append(f"| {r['model']} | {r['precision']} | {tiles} | {r['row_block'] or 'whole'} | {r['cores']} | "
                     f"{r['simulated_ns'] / 1e6:.2f} | {r['latency_over_full']:.3f} | "
                     f"{r['predicted_ns'] / 1e6:.2f} | {r['predicted_over_simulated']:.3f} | "
                     f"{r['critical_path_ns'] / 1e6:.2f} | {'yes' if r['outputs_equal_full'] else 'NO'} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated torchvision names")
    parser.add_argument("--tiles", default=",".join(map(str, TILES)),
                        help="comma-separated lane heights in row tiles (0: a core's, measured first; auto: "
                             "the default's choice)")
    parser.add_argument("--json", required=True, help="write the rows as JSON here")
    parser.add_argument("--doc", help="replace the table between this document's lane-tiles markers")
    args = parser.parse_args()
    tiles = tuple(t if t == "auto" else int(t) for t in args.tiles.split(","))
    if tiles[0] != 0:
        parser.error("--tiles must start with 0 (the program every figure is compared with)")
    rows = measure_variants(args.models.split(","), tiles, measure, "lane tiles")
    publish(rows, args.json, args.doc, "lane-tiles", table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
