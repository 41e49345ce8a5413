"""Semantic mutation operators: the bugs developers make, beside cosmic-ray's
token-level ones (docs/mutation.md).

- ``semantic/SwapArguments``: two adjacent positional arguments of a call
  exchanged (``f(a, b)`` to ``f(b, a)``).
- ``semantic/DropTerm``: one term of a sum or difference left out (``a + b``
  to ``a``), or a result assigned where it was summed (``x += y`` to ``x = y``).
- ``semantic/ReplaceVariable``: a variable read replaced by another one of
  the same type bound earlier in the same function (a parameter, or a local
  whose type the annotation or the assigned value says).
- ``semantic/ChangeDefault``: a default changed: a parameter's default, a
  call's ``default=`` and the fallback of ``.get(key, fallback)``. Numbers
  move (``n`` to ``n + 1``, ``x`` to ``2 x``), booleans flip, a string
  becomes the next one of a literal tuple, list or set of the module that
  holds it (the vocabulary it was chosen from).

Each operator finds its sites with :mod:`ast` and edits the source text of
those spans only, so comments and layout stay as they were. An occurrence is
the index of a mutation among its operator's in the file, in source order:
``mutate_code(source, name, occurrence)`` reapplies exactly one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

SWAP, DROP, REPLACE, DEFAULT = ("semantic/SwapArguments", "semantic/DropTerm", "semantic/ReplaceVariable",
                                "semantic/ChangeDefault")
OPERATORS = (SWAP, DROP, REPLACE, DEFAULT)

# Calls whose arguments commute (a swap changes nothing) or whose swap is a
# type error on the first run (no test is needed to see it).
_COMMUTATIVE = {"max", "min", "isinstance", "issubclass", "getattr", "setattr", "hasattr", "print", "range"}


@dataclass(frozen=True)
class Mutation:
    """One edit: ``replacements`` are (start, end, text) of source character
    offsets, disjoint; ``line`` and ``column`` where the mutated code starts."""

    operator: str
    line: int
    column: int
    replacements: tuple[tuple[int, int, str], ...]


class _Source:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def span(self, node: ast.AST) -> tuple[int, int]:
        # ast columns are UTF-8 byte offsets: convert through the line's bytes.
        def offset(line: int, col: int) -> int:
            start = self.starts[line - 1]
            text = self.text[start:self.starts[line] if line < len(self.starts) else len(self.text)]
            return start + len(text.encode("utf-8")[:col].decode("utf-8", errors="ignore"))

        return (offset(node.lineno, node.col_offset),
                offset(node.end_lineno or node.lineno, node.end_col_offset or 0))

    def segment(self, node: ast.AST) -> str:
        a, b = self.span(node)
        return self.text[a:b]


def _mutation(src: _Source, operator: str, node: ast.AST, *edits: tuple[ast.AST | tuple[int, int], str]) \
        -> Mutation:
    replacements = []
    for target, text in edits:
        a, b = target if isinstance(target, tuple) else src.span(target)
        replacements.append((a, b, text))
    return Mutation(operator, node.lineno, node.col_offset, tuple(sorted(replacements)))


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _swaps(src: _Source, tree: ast.AST) -> Iterator[Mutation]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _callee(node) in _COMMUTATIVE:
            continue
        args = node.args
        for a, b in zip(args, args[1:]):
            if isinstance(a, ast.Starred) or isinstance(b, ast.Starred):
                continue
            sa, sb = src.segment(a), src.segment(b)
            if sa != sb:
                yield _mutation(src, SWAP, a, (a, sb), (b, sa))


def _is_constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) or (isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant))


def _drops(src: _Source, tree: ast.AST) -> Iterator[Mutation]:
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) \
                and not (_is_constant(node.left) and _is_constant(node.right)) \
                and not isinstance(node.left, ast.JoinedStr):
            yield _mutation(src, DROP, node, (node, src.segment(node.left)))
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
            # `x += y` to `x = y`: the operator token lies between target and value.
            a = src.span(node.target)[1]
            b = src.span(node.value)[0]
            yield _mutation(src, DROP, node, ((a, b), " = "))


_CONSTRUCTORS = {"int": "int", "len": "int", "float": "float", "str": "str", "list": "list", "dict": "dict",
                 "set": "set", "tuple": "tuple", "sorted": "list", "Path": "Path", "round": "int"}


def _kind(value: ast.AST, known: dict[str, str]) -> str | None:
    """The type an assigned expression evidently has, if it says so (``known``:
    the types of the names bound so far)."""
    if isinstance(value, ast.Name):
        return known.get(value.id)
    if isinstance(value, ast.BinOp) and not isinstance(value.op, ast.Div):
        kinds = {_kind(value.left, known), _kind(value.right, known)}
        return "float" if kinds == {"int", "float"} else kinds.pop() if len(kinds) == 1 else None
    if isinstance(value, (ast.Compare, ast.UnaryOp)) and isinstance(getattr(value, "op", ast.Not()), ast.Not):
        return "bool"
    if isinstance(value, ast.Constant) and value.value is not None:
        return type(value.value).__name__
    if isinstance(value, ast.JoinedStr):
        return "str"
    if isinstance(value, (ast.List, ast.ListComp)):
        return "list"
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return "dict"
    if isinstance(value, (ast.Set, ast.SetComp)):
        return "set"
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return _CONSTRUCTORS.get(value.func.id)
    return None


def _bindings(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, tuple[str, int]]:
    """name -> (type, line where it is first bound) for the function's
    parameters (by annotation) and its locals of one evident type."""
    kinds: dict[str, set[str | None]] = {}
    first: dict[str, int] = {}
    known: dict[str, str] = {}

    def bind(name: str, kind: str | None, line: int) -> None:
        kinds.setdefault(name, set()).add(kind)
        first[name] = min(first.get(name, line), line)
        if kinds[name] == {kind} and kind is not None:
            known[name] = kind
        else:
            known.pop(name, None)

    a = fn.args
    for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
        if arg.arg not in ("self", "cls"):
            bind(arg.arg, ast.unparse(arg.annotation) if arg.annotation else None, fn.lineno)
    nested = {id(n) for f in ast.walk(fn) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
              and f is not fn for n in ast.walk(f)}
    ordered = sorted((n for n in ast.walk(fn) if id(n) not in nested and hasattr(n, "lineno") and n is not fn),
                     key=lambda n: (n.lineno, n.col_offset))
    for node in [*ordered, *(n for n in ast.walk(fn) if isinstance(n, ast.comprehension))]:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    bind(t.id, _kind(node.value, known), node.end_lineno or node.lineno)
                else:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            bind(n.id, None, node.lineno)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            bind(node.target.id, ast.unparse(node.annotation), node.end_lineno or node.lineno)
        elif isinstance(node, (ast.For, ast.comprehension, ast.With, ast.NamedExpr)):  # (`x += y` keeps its type)
            targets = [node.target] if hasattr(node, "target") else \
                [i.optional_vars for i in node.items if i.optional_vars is not None]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        bind(n.id, None, getattr(node, "lineno", fn.lineno))
    return {name: (next(iter(k)), first[name]) for name, k in kinds.items() if len(k) == 1 and None not in k}


def _replacements(src: _Source, tree: ast.AST) -> Iterator[Mutation]:
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        bound = _bindings(fn)
        inner = {id(n) for f in ast.walk(fn) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                 and f is not fn for n in ast.walk(f)}
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)) or id(node) in inner \
                    or node.id not in bound:
                continue
            kind, _ = bound[node.id]
            for other in sorted(bound):
                other_kind, line = bound[other]
                if other != node.id and other_kind == kind and line < node.lineno:
                    yield _mutation(src, REPLACE, node, (node, other))


def _vocabularies(tree: ast.AST) -> list[list[str]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            words = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(words) == len(node.elts) and len(set(words)) > 1:
                out.append(words)
    return out


def _changed(value: ast.AST, vocabularies: list[list[str]]) -> str | None:
    """The source of a different default, or None when there is no evident one."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) and isinstance(value.operand, ast.Constant) \
            and type(value.operand.value) in (int, float):
        return repr(-value.operand.value + 1)
    if not isinstance(value, ast.Constant):
        return None
    v = value.value
    if isinstance(v, bool):
        return repr(not v)
    if isinstance(v, int):
        return repr(v + 1)
    if isinstance(v, float):
        return repr(2 * v if v else 1.0)
    if isinstance(v, str):
        for words in vocabularies:
            if v in words:
                return repr(words[(words.index(v) + 1) % len(words)])
    return None


def _defaults(src: _Source, tree: ast.AST) -> Iterator[Mutation]:
    vocabularies = _vocabularies(tree)
    for node in ast.walk(tree):
        values: list[ast.AST] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            values = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
        elif isinstance(node, ast.Call):
            values = [k.value for k in node.keywords if k.arg == "default"]
            if isinstance(node.func, ast.Attribute) and node.func.attr == "get" and len(node.args) == 2:
                values.append(node.args[1])
        for value in values:
            text = _changed(value, vocabularies)
            if text is not None:
                yield _mutation(src, DEFAULT, value, (value, text))


_FINDERS = {SWAP: _swaps, DROP: _drops, REPLACE: _replacements, DEFAULT: _defaults}


def mutations(source: str) -> dict[str, list[Mutation]]:
    """Every semantic mutation of ``source`` by operator, in source order."""
    tree = ast.parse(source)
    src = _Source(source)
    out = {}
    for name, find in _FINDERS.items():
        found = {m.replacements: m for m in find(src, tree)}  # one per distinct edit
        out[name] = sorted(found.values(), key=lambda m: (m.line, m.column, m.replacements))
    return out


def apply(source: str, mutation: Mutation) -> str:
    text = source
    for start, end, new in reversed(mutation.replacements):
        text = text[:start] + new + text[end:]
    return text


def mutate_code(source: str, name: str, occurrence: int) -> str | None:
    """``source`` with the ``occurrence``-th mutation of operator ``name``
    (None when there is no such occurrence)."""
    found = mutations(source).get(name, [])
    return apply(source, found[occurrence]) if 0 <= occurrence < len(found) else None
