"""The points of a sweep: every model x target grid point x option combination."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

from .spec import OPTIONS, ModelEntry, Spec, set_key

__all__ = ["Point", "expand"]


@dataclass(frozen=True)
class Point:
    """One compile-and-time job."""

    model: ModelEntry
    #: The grid's values by target key, in the spec's order.
    params: tuple[tuple[str, Any], ...]
    #: The whole target object the point compiles for.
    target: dict[str, Any]
    #: Every compile option (int8-only ones None in fp32 points).
    options: dict[str, Any]

    @property
    def pipeline(self) -> int | None:
        """The pipeline depth, None in latency mode."""
        mode = self.options["mode"]
        return None if mode == "latency" else int(mode.split()[1])

    def label(self) -> str:
        """A short description for progress lines."""
        parts = [self.model.name] + [f"{k}={v}" for k, v in self.params]
        varying = [self.options["precision"], self.options["mode"]]
        return " ".join(parts + varying)


def expand(spec: Spec) -> list[Point]:
    """The spec's points, models outermost, then the target axes, then the
    option axes, in the spec's order. Combinations that differ only in
    options that do not apply (an int8 policy on an fp32 point) are one point."""
    targets: list[tuple[tuple[tuple[str, Any], ...], dict[str, Any]]] = []
    for combo in itertools.product(*(axis.values for axis in spec.grid)):
        target = spec.fixed_target()
        params: list[tuple[str, Any]] = []
        for axis, values in zip(spec.grid, combo):
            for key, value in zip(axis.keys, values):
                set_key(target, key, value)
                params.append((key, value))
        targets.append((tuple(params), target))
    names = list(OPTIONS)
    points: list[Point] = []
    seen: set[str] = set()
    for model in spec.models:
        for params, target in targets:
            for combo in itertools.product(*(spec.options[n] for n in names)):
                options = dict(zip(names, combo))
                if options["precision"] != "int8":
                    options.update({n: None for n, o in OPTIONS.items() if o.int8_only})
                signature = json.dumps([model.name, target, options], sort_keys=True)
                if signature not in seen:
                    seen.add(signature)
                    points.append(Point(model, params, target, options))
    return points
