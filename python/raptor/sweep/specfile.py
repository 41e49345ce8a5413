"""Reading a sweep specification file: YAML or JSON, by its suffix.

Both parsers are strict about what they would otherwise take silently: a key
given twice in one mapping is an error (PyYAML and json keep the last), and a
syntax error is one located line (``spec.yaml:4:7: ...``), never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._io import UserError

__all__ = ["read_spec_file"]

SUFFIXES = (".yaml", ".yml", ".json")


def read_spec_file(path: str | Path) -> Any:
    """The document in ``path`` (a mapping when it is a valid spec)."""
    path = Path(path)
    if path.suffix.lower() not in SUFFIXES:
        raise UserError(f"{path}: a sweep spec is a .yaml, .yml or .json file")
    if not path.is_file():
        raise UserError(f"cannot read spec '{path}': not a regular file")
    try:
        text = path.read_text()
    except OSError as e:
        raise UserError(f"cannot read spec '{path}': {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise UserError(f"cannot read spec '{path}': not UTF-8 text (byte {e.start})") from None
    if path.suffix.lower() == ".json":
        return _json(text, path)
    return _yaml(text, path)


def _json(text: str, path: Path) -> Any:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise UserError(f"{path}: key '{key}' is given twice in one object")
            out[key] = value
        return out

    try:
        return json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as e:
        raise UserError(f"{path}:{e.lineno}:{e.colno}: {e.msg}") from None


def _yaml(text: str, path: Path) -> Any:
    import yaml

    class StrictLoader(yaml.SafeLoader):
        """SafeLoader refusing a key given twice in one mapping."""

    def mapping(loader: StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node)
            try:
                repeated = key in seen
            except TypeError:  # an unhashable key (a list): the spec checker names it
                continue
            if repeated:
                mark = key_node.start_mark
                raise UserError(f"{path}:{mark.line + 1}:{mark.column + 1}: key '{key}' is given twice")
            seen.add(key)
        return loader.construct_mapping(node)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    try:
        return yaml.load(text, Loader=StrictLoader)  # noqa: S506 (a SafeLoader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise UserError(f"{where}: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise UserError(f"{path}: {str(e).splitlines()[0]}") from None
    except TypeError as e:  # an unhashable mapping key
        raise UserError(f"{path}: {e}") from None
