"""Sweep specifications: models x a grid of targets x compile options.

A spec is a mapping (docs/sweep.md has a complete example)::

    name: resnet18-crossbars
    models: [resnet18.pt2, shufflenet_v2]       # zoo names, .pt2, .onnx or .mlir files
    target:
      base: isaac168                             # a bundled target, a .json file or an inline object
      set: {memory.local_bytes: 1048576}         # fixed changes to the base
      grid:                                      # the points are the product of the axes
        crossbar.rows,crossbar.cols: [64, 128, 256]   # keys tied to one axis
        crossbar.cell_bits: [2, 4, 8]
    compile:                                     # a value, or a list of values (an axis)
      precision: int8
      mode: [latency, pipeline 4, pipeline 8]
    run: {cpus_per_point: 1, timeout_seconds: 1800}

Every mistake is one line naming where it is (``spec.yaml: compile.mode[1]:
expected 'latency' or 'pipeline N' ...``): unknown keys, wrong types, empty
or repeated grid values. File paths are relative to the spec's directory.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from .. import codec, pim, zoo
from .._io import UserError
from ..spatial import default_target
from ..spatial.report import REPLICATION_RULES

__all__ = ["OPTIONS", "Axis", "ModelEntry", "RunSettings", "Spec", "parse_spec", "set_key"]

TOP_KEYS = ("name", "models", "target", "compile", "run")
TARGET_KEYS = ("base", "set", "grid")
MODEL_KEYS = ("model", "name")
MODEL_SUFFIXES = (".pt2", ".onnx", ".mlir")
_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_MODE = re.compile(r"pipeline\s+([0-9]+)$")


class SpecError(UserError):
    """A mistake in a sweep spec (one line, naming the file and the key)."""


@dataclass(frozen=True)
class ModelEntry:
    """One model of the sweep: its table name and what ``raptor compile``
    would be given (a zoo name or an absolute file path)."""

    name: str
    source: str

    @property
    def is_zoo(self) -> bool:
        return self.source in zoo.NAMES


@dataclass(frozen=True)
class Axis:
    """One grid axis: target keys set together, one tuple of values per point."""

    keys: tuple[str, ...]
    values: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True)
class RunSettings:
    """How points run; none of it changes a point's result (not in its key)."""

    #: CPUs each point's task reserves on the cluster.
    cpus_per_point: int = 1
    #: A point still running after this long is a 'timeout' row.
    timeout_seconds: float = 1800.0
    #: Keep each point's program directory in OUT/programs/KEY (on the
    #: worker's file system: shared with the driver in local mode).
    keep_programs: bool = False
    #: pimsim-nn's program files for kept programs (none, binary, json, both).
    pimsim_files: str = "none"


def _choice(values: tuple[str, ...]) -> Callable[[Any], Any]:
    def check(v: Any) -> Any:
        if not isinstance(v, str) or v not in values:
            raise ValueError(f"expected {_or(values)}, not {_show(v)}")
        return v
    return check


def _positive_int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"expected a positive integer, not {_show(v)}")
    return v


def _positive_number(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < float("inf"):
        raise ValueError(f"expected a positive number, not {_show(v)}")
    return float(v)


def _fraction(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
        raise ValueError(f"expected a fraction from 0 to 1, not {_show(v)}")
    return float(v)


def _boolean(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"expected true or false, not {_show(v)}")
    return v


def _optional_boolean(v: Any) -> bool | None:
    if v is not None and not isinstance(v, bool):
        raise ValueError(f"expected true, false or null (the compiler's default), not {_show(v)}")
    return v


def _mode(v: Any) -> str:
    m = _MODE.match(v.strip()) if isinstance(v, str) else None
    if v == "latency":
        return v
    if m is None or int(m.group(1)) < 1:
        raise ValueError(f"expected 'latency' or 'pipeline N' (N >= 1), not {_show(v)}")
    return f"pipeline {int(m.group(1))}"


@dataclass(frozen=True)
class Option:
    """A compile option of the spec: its default and its check."""

    default: Any
    check: Callable[[Any], Any]
    #: Meaningful with precision int8 only (None in fp32 points).
    int8_only: bool = False


#: The compile options, in the table's column order; the defaults are
#: ``raptor compile``'s.
OPTIONS: dict[str, Option] = {
    "precision": Option("fp32", _choice(pim.PRECISIONS)),
    "mode": Option("latency", _mode),
    "policy": Option("Y", _choice(codec.POLICIES), int8_only=True),
    "placement": Option("nonlocal-coalesced", _choice(codec.PLACEMENTS), int8_only=True),
    "arithmetic": Option("auto", _choice(pim.ARITHMETICS), int8_only=True),
    "calibration_samples": Option(4, _positive_int, int8_only=True),
    "replicate": Option("auto", _choice(REPLICATION_RULES)),
    "replication_budget": Option(0.5, _fraction),
    "follow_rows": Option(None, _optional_boolean),
    "algorithm": Option("peft", _choice(("peft", "heft"))),
    "check": Option(False, _boolean),
}

_RUN_CHECKS: dict[str, Callable[[Any], Any]] = {
    "cpus_per_point": _positive_int,
    "timeout_seconds": _positive_number,
    "keep_programs": _boolean,
    "pimsim_files": _choice(pim.PIMSIM_FORMS),
}


@dataclass(frozen=True)
class Spec:
    """A validated sweep spec (see the module's documentation)."""

    name: str
    models: tuple[ModelEntry, ...]
    #: The base target's JSON object, before ``fixed`` and the grid.
    base: dict[str, Any]
    #: Target keys set on every point (dotted paths).
    fixed: dict[str, Any]
    grid: tuple[Axis, ...]
    #: Every compile option's values (one value: not an axis).
    options: dict[str, tuple[Any, ...]]
    run: RunSettings

    def to_mapping(self) -> dict[str, Any]:
        """The spec in its own file format, self-contained (absolute paths,
        the base target inline): :func:`parse_spec` reads it back equal."""
        target: dict[str, Any] = {"base": copy.deepcopy(self.base), "set": copy.deepcopy(self.fixed)}
        if self.grid:
            target["grid"] = {",".join(a.keys): [list(v) if len(a.keys) > 1 else v[0] for v in a.values]
                              for a in self.grid}
        return {
            "name": self.name,
            "models": [{"model": m.source, "name": m.name} for m in self.models],
            "target": target,
            "compile": {k: list(v) for k, v in self.options.items()},
            "run": asdict(self.run),
        }

    def fixed_target(self) -> dict[str, Any]:
        """The base target with the fixed keys set."""
        target = copy.deepcopy(self.base)
        for key, value in self.fixed.items():
            set_key(target, key, value)
        return target


def parse_spec(data: Any, source: str, base_dir: Path) -> Spec:
    """Validates the document ``data`` read from ``source`` (paths in it are
    relative to ``base_dir``). Raises SpecError with one line."""
    def fail(where: str, message: str) -> SpecError:
        return SpecError(f"{source}: {where + ': ' if where else ''}{message}")

    if not isinstance(data, dict):
        raise fail("", f"a sweep spec is a mapping with keys {', '.join(TOP_KEYS)}, not {_kind(data)}")
    _known(data, TOP_KEYS, "", fail)
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name.strip():
        raise fail("name", f"expected a non-empty string, not {_show(name)}")
    if "models" not in data:
        raise fail("", "'models' is missing (a list of zoo names, .pt2, .onnx or .mlir files)")
    models = _models(data["models"], base_dir, fail)
    target = data.get("target", {})
    if not isinstance(target, dict):
        raise fail("target", f"expected a mapping with keys {', '.join(TARGET_KEYS)}, not {_kind(target)}")
    _known(target, TARGET_KEYS, "target", fail)
    base = _base(target.get("base", "isaac168"), base_dir, fail)
    fixed = _fixed(target.get("set", {}), fail)
    grid = _grid(target["grid"], fail) if "grid" in target else ()
    _disjoint(list(fixed) + [k for a in grid for k in a.keys], fail)
    for key, value in fixed.items():
        try:
            set_key(copy.deepcopy(base), key, value)
        except ValueError as e:
            raise fail(f"target.set.{key}", str(e)) from None
    options = _options(data.get("compile", {}), fail)
    run = _run(data.get("run", {}), fail)
    return Spec(name.strip(), models, base, fixed, grid, options, run)


def set_key(target: dict[str, Any], key: str, value: Any) -> None:
    """Sets the dotted ``key`` of a target object, creating sections; raises
    ValueError when a section on the way is not an object."""
    *sections, last = key.split(".")
    node = target
    for i, section in enumerate(sections):
        node = node.setdefault(section, {})
        if not isinstance(node, dict):
            raise ValueError(f"'{'.'.join(sections[:i + 1])}' of the target is not a section")
    node[last] = copy.deepcopy(value)


def _models(value: Any, base_dir: Path, fail: Callable[[str, str], SpecError]) -> tuple[ModelEntry, ...]:
    if not isinstance(value, list) or not value:
        raise fail("models", f"expected a non-empty list of models, not {_kind(value)}")
    entries: list[ModelEntry] = []
    for i, item in enumerate(value):
        where = f"models[{i}]"
        name = None
        if isinstance(item, dict):
            _known(item, MODEL_KEYS, where, fail)
            if "model" not in item:
                raise fail(where, "'model' is missing (a zoo name or a file)")
            name = item.get("name")
            if name is not None and (not isinstance(name, str) or not name.strip()):
                raise fail(f"{where}.name", f"expected a non-empty string, not {_show(name)}")
            item = item["model"]
        if not isinstance(item, str) or not item:
            raise fail(where, f"expected a zoo name or a file, not {_show(item)}")
        if item in zoo.NAMES:
            source = item
        else:
            path = Path(item)
            if path.suffix not in MODEL_SUFFIXES:
                raise fail(where, f"unknown model '{item}': expected a zoo name ({', '.join(zoo.NAMES)}) or a "
                                  f"{', '.join(MODEL_SUFFIXES)} file")
            path = path if path.is_absolute() else base_dir / path
            if not path.is_file():
                raise fail(where, f"cannot read '{item}' (looked for {path})")
            source = str(path.resolve())
        entry = ModelEntry((name or (source if item in zoo.NAMES else Path(source).stem)).strip(), source)
        if any(e.name == entry.name for e in entries):
            raise fail(where, f"two models are named '{entry.name}' (give one a name: {{model: ..., name: ...}})")
        entries.append(entry)
    return tuple(entries)


def _base(value: Any, base_dir: Path, fail: Callable[[str, str], SpecError]) -> dict[str, Any]:
    if isinstance(value, dict):
        return copy.deepcopy(value)
    bundled = default_target().parent
    names = sorted(p.stem for p in bundled.glob("*.json"))
    if not isinstance(value, str):
        raise fail("target.base", f"expected a bundled target ({', '.join(names)}), a .json file or a mapping, "
                                  f"not {_kind(value)}")
    if value in names:
        path = bundled / f"{value}.json"
    elif value.endswith(".json"):
        path = Path(value) if Path(value).is_absolute() else base_dir / value
    else:
        raise fail("target.base", f"unknown target '{value}': expected a bundled target ({', '.join(names)}) "
                                  "or a .json file")
    try:
        data = json.loads(path.read_text())
    except OSError as e:
        raise fail("target.base", f"cannot read '{value}': {e.strerror or e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise fail("target.base", f"'{value}' is not JSON: {e}") from None
    if not isinstance(data, dict):
        raise fail("target.base", f"'{value}' is not a JSON object")
    return data


def _target_key(key: Any, where: str, fail: Callable[[str, str], SpecError]) -> str:
    if not isinstance(key, str) or not _PATH.match(key.strip()):
        raise fail(where, f"{_show(key)} is not a target key (a dotted path such as crossbar.rows)")
    return key.strip()


def _fixed(value: Any, fail: Callable[[str, str], SpecError]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise fail("target.set", f"expected a mapping of target keys to values, not {_kind(value)}")
    return {_target_key(k, "target.set", fail): v for k, v in value.items()}


def _grid(value: Any, fail: Callable[[str, str], SpecError]) -> tuple[Axis, ...]:
    if not isinstance(value, dict):
        raise fail("target.grid", f"expected a mapping of target keys to lists of values, not {_kind(value)}")
    if not value:
        raise fail("target.grid", "is empty (leave it out to sweep the base target alone)")
    axes = []
    for raw, values in value.items():
        if not isinstance(raw, str):
            raise fail("target.grid", f"{_show(raw)} is not a target key (a dotted path such as crossbar.rows)")
        keys = tuple(_target_key(k, f"target.grid.{raw}", fail) for k in raw.split(","))
        where = f"target.grid.{raw}"
        if not isinstance(values, list):
            raise fail(where, f"expected a list of values, not {_kind(values)}")
        if not values:
            raise fail(where, "is an empty list: give at least one value")
        rows: list[tuple[Any, ...]] = []
        for i, v in enumerate(values):
            row = tuple(v) if isinstance(v, list) and len(keys) > 1 else (v,) * len(keys)
            if len(row) != len(keys):
                raise fail(f"{where}[{i}]", f"expected one value or {len(keys)} (one per key), not {len(row)}")
            for x in row:
                if isinstance(x, (list, dict)) or x is None:
                    raise fail(f"{where}[{i}]", f"expected a number, string or boolean, not {_kind(x)}")
            if row in rows:
                raise fail(f"{where}[{i}]", f"repeats the value {_show(v)}")
            rows.append(row)
        axes.append(Axis(keys, tuple(rows)))
    return tuple(axes)


def _disjoint(keys: list[str], fail: Callable[[str, str], SpecError]) -> None:
    """No target key is set twice, nor inside a section set as a whole."""
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            if a == b or b.startswith(a + ".") or a.startswith(b + "."):
                raise fail("target", f"'{a}' and '{b}' set the same target key")


def _options(value: Any, fail: Callable[[str, str], SpecError]) -> dict[str, tuple[Any, ...]]:
    if not isinstance(value, dict):
        raise fail("compile", f"expected a mapping of compile options, not {_kind(value)}")
    _known(value, tuple(OPTIONS), "compile", fail)
    options: dict[str, tuple[Any, ...]] = {}
    for key, option in OPTIONS.items():
        given = value.get(key, option.default)
        values = given if isinstance(given, list) else [given]
        if not values:
            raise fail(f"compile.{key}", "is an empty list: give at least one value")
        checked: list[Any] = []
        for i, v in enumerate(values):
            where = f"compile.{key}" + (f"[{i}]" if isinstance(given, list) else "")
            try:
                v = option.check(v)
            except ValueError as e:
                raise fail(where, str(e)) from None
            if v in checked:
                raise fail(where, f"repeats the value {_show(v)}")
            checked.append(v)
        options[key] = tuple(checked)
    int8 = [k for k, o in OPTIONS.items() if o.int8_only and k in value]
    if int8 and "int8" not in options["precision"]:
        raise fail("compile", f"{', '.join(int8)} only apply with precision int8")
    return options


def _run(value: Any, fail: Callable[[str, str], SpecError]) -> RunSettings:
    if not isinstance(value, dict):
        raise fail("run", f"expected a mapping, not {_kind(value)}")
    names = tuple(f.name for f in fields(RunSettings))
    _known(value, names, "run", fail)
    settings = {}
    for key, v in value.items():
        try:
            settings[key] = _RUN_CHECKS[key](v)
        except ValueError as e:
            raise fail(f"run.{key}", str(e)) from None
    return RunSettings(**settings)


def _known(mapping: Mapping[Any, Any], keys: tuple[str, ...], where: str,
           fail: Callable[[str, str], SpecError]) -> None:
    for key in mapping:
        if key not in keys:
            raise fail(where, f"unknown key {_show(key)} (expected {', '.join(keys)})")


def _or(values: tuple[str, ...]) -> str:
    return ", ".join(values[:-1]) + f" or {values[-1]}" if len(values) > 1 else values[0]


def _kind(v: Any) -> str:
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return "a list"
    return _show(v)


def _show(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list)):
        return _kind(v)
    return repr(v) if isinstance(v, str) else str(v)
