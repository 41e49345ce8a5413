"""Semantic mutation operators for the C++ side: the bugs developers make in
C++, beside the single-token ones of cpp_side.py (docs/mutation.md).

- ``semantic/SwapArguments``: two adjacent arguments of a call (or parameters
  of a declaration) exchanged on one line (``f(a, b)`` to ``f(b, a)``).
- ``semantic/DropTerm``: the right term of a spaced sum or difference left out
  (``a + b.size()`` to ``a``), or a result assigned where it was summed
  (``x += y`` to ``x = y``).
- ``semantic/ReplaceVariable``: a variable read replaced by another one of the
  same scalar type declared earlier in the same function.
- ``semantic/ChangeDefault``: a default changed: a pass option's
  ``/*default=*/"..."`` in a ``.td`` file, or a member initializer of an options
  struct in a header (``double replicationBudget = 0.5;``); integers move by
  one, floats double, booleans flip.

The finders read the lines cpp_side masks (comments and literals blanked,
columns kept), so nothing inside a string or a comment is mutated, and each
site is one edit of one line (cpp_side.Site), applied and undone like the
token mutations.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from cpp_side import Site, masked_lines

SWAP, DROP, REPLACE, DEFAULT = ("semantic/SwapArguments", "semantic/DropTerm", "semantic/ReplaceVariable",
                                "semantic/ChangeDefault")
OPERATORS = (SWAP, DROP, REPLACE, DEFAULT)

# Callees whose arguments commute, control keywords (their parentheses are not
# argument lists) and calls whose swap cannot compile or is unobservable.
_NOT_SWAPPED = {"if", "for", "while", "switch", "return", "catch", "sizeof", "alignof", "decltype",
                "max", "min", "swap", "hash_combine", "assert", "static_assert", "LLVM_DEBUG"}
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^<>()]*>)?\(")
# A parameter declaration (`int64_t rows`, `const Foo &x`): swapping two is not a call's bug.
_PARAMETER = re.compile(r"^(?:const\s+)?[\w:<>,]+[\s*&]+\w+$")
_OPEN, _CLOSE = "([{", ")]}"


def _arguments(line: str, start: int) -> tuple[list[tuple[int, int]], int] | None:
    """The (start, end) columns of the top-level arguments of the parenthesis
    opened at `start`, stripped of blanks; None when it does not close on the line."""
    depth, spans, begin = 0, [], start + 1
    for i in range(start, len(line)):
        c = line[i]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
            if depth == 0:
                spans.append((begin, i))
                break
        elif c == "," and depth == 1:
            spans.append((begin, i))
            begin = i + 1
    else:
        return None
    stripped = []
    for a, b in spans:
        text = line[a:b]
        lead = len(text) - len(text.lstrip())
        stripped.append((a + lead, a + lead + len(text.strip())))
    return stripped, i


def _swaps(path: str, lines: list[tuple[int, str]], original: list[str]) -> Iterator[Site]:
    for number, masked in lines:
        for call in _CALL.finditer(masked):
            if call.group(1) in _NOT_SWAPPED:
                continue
            found = _arguments(masked, call.end() - 1)
            if not found:
                continue
            spans, _ = found
            text = original[number - 1]
            for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
                first, second = text[a0:a1], text[b0:b1]
                # Blank (a literal masked away) or equal arguments: nothing to swap.
                if not masked[a0:a1].strip() or not masked[b0:b1].strip() or first == second \
                        or _PARAMETER.match(first) or _PARAMETER.match(second):
                    continue
                yield Site(path, number, a0, b1 - a0, SWAP, second + text[a1:b0] + first)


_PRIMARY = (r"(?:\d+(?:\.\d+)?|[A-Za-z_]\w*(?:::\w+)*(?:\([^()]*\)|\[[^\[\]]*\])*"
            r"(?:(?:\.|->)\w+(?:\([^()]*\)|\[[^\[\]]*\])*)*)")
# ` + term` whose term ends where a lower-precedence operator or the expression does.
_TERM = re.compile(r"(?<=[\w)\]]) [+-] " + _PRIMARY + r"(?=\s*(?:[);,\]}?:]|[+-] |[<>]=? |[=!]= |&&|\|\||$))")
_SUMMED = re.compile(r"(?<=\s)\+=(?=\s)")


def _drops(path: str, lines: list[tuple[int, str]], _original: list[str]) -> Iterator[Site]:
    for number, masked in lines:
        for m in _TERM.finditer(masked):
            yield Site(path, number, m.start(), len(m.group(0)), DROP, "")
        for m in _SUMMED.finditer(masked):
            yield Site(path, number, m.start(), 2, DROP, "=")


_SCALAR = r"(?:int64_t|uint64_t|int32_t|uint32_t|int|unsigned|size_t|double|float|bool)"
_DECLARED = re.compile(r"\b(" + _SCALAR + r")\s+([A-Za-z_]\w*)\s*(?=[=;,):{]|$)")
_KEYWORDS = {"return", "true", "false", "nullptr", "const", "auto"}


def _functions(lines: list[tuple[int, str]]) -> Iterator[list[tuple[int, str]]]:
    """The lines of each function defined at file scope (LLVM style: its
    signature starts in column 0 and its body ends with `}` in column 0)."""
    body: list[tuple[int, str]] = []
    inside = False
    for number, masked in lines:
        if not inside and masked[:1].strip() and "(" in masked and not masked.startswith(("namespace", "#")):
            inside, body = True, []
        if inside:
            body.append((number, masked))
            if masked.rstrip() == "}":
                inside = False
                yield body
        if not inside and masked.rstrip().endswith(";") and body and body[-1][0] == number:
            body = []  # a declaration, not a definition


def _scopes(body: list[tuple[int, str]]) -> dict[tuple[int, int], int]:
    """(line, column) of every declaration of `body` -> the last line of its
    scope: the line where the brace depth first falls below the declaration's
    (a `for (...)` variable belongs to the loop's block)."""
    ends: dict[tuple[int, int], int] = {}
    open_at: list[tuple[tuple[int, int], int]] = []  # (declaration, its depth)
    depth = 0
    last = body[-1][0]
    for number, masked in body:
        declared = {m.start(2): m for m in _DECLARED.finditer(masked)}
        parens = 0
        for column, c in enumerate(masked):
            if column in declared:
                inside_for = parens > 0 and re.search(r"\bfor\s*\(", masked[:column]) is not None
                open_at.append(((number, column), depth + (1 if inside_for or depth == 0 else 0)))
            if c == "(":
                parens += 1
            elif c == ")":
                parens -= 1
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                for key, d in open_at:
                    if d > depth and key not in ends:
                        ends[key] = number
    for key, _ in open_at:
        ends.setdefault(key, last)
    return ends


def _replacements(path: str, lines: list[tuple[int, str]], _original: list[str]) -> Iterator[Site]:
    for body in _functions(lines):
        scopes = _scopes(body)
        declared: dict[str, list[tuple[str, int, int]]] = {}  # name -> (type, first line, last line)
        for number, masked in body:
            for m in _DECLARED.finditer(masked):
                kind, name = m.groups()
                if name not in _KEYWORDS:
                    declared.setdefault(name, []).append((kind, number, scopes[(number, m.start(2))]))
        # A name declared with two types (in two blocks) is left alone: which one a read means is unclear.
        names = {n: v for n, v in declared.items() if len({k for k, _, _ in v}) == 1}
        if len(names) < 2:
            continue
        pattern = re.compile(r"(?<![\w.>:])(" + "|".join(sorted(names, key=len, reverse=True))
                             + r")\b(?!\s*(?:[-+*/|&]?=[^=]|\(|\+\+|--))")

        def visible(name: str, number: int) -> bool:
            return any(first < number <= last for _, first, last in names[name])

        for number, masked in body:
            for m in pattern.finditer(masked):
                name = m.group(1)
                kind = names[name][0][0]
                if not visible(name, number) or masked[max(0, m.start() - 2):m.start()] in ("++", "--"):
                    continue  # not yet declared (or its declaration), out of scope, or written
                for other in sorted(names):
                    if other != name and names[other][0][0] == kind and visible(other, number):
                        yield Site(path, number, m.start(), len(name), REPLACE, other)


_TD_DEFAULT = re.compile(r'/\*default=\*/"([^"\\]*)"')
# A member of a struct at namespace scope (LLVM style: indented by two).
_MEMBER_DEFAULT = re.compile(r"^  " + _SCALAR + r"\s+\w+\s*=\s*([\w.]+);")


def _changed(value: str) -> str | None:
    if value in ("true", "false"):
        return "false" if value == "true" else "true"
    if re.fullmatch(r"\d+", value):
        return str(int(value) + 1)
    if re.fullmatch(r"\d+\.\d*(?:e-?\d+)?", value):
        return repr(2 * float(value)) if float(value) else "1.0"
    return None


def _defaults(path: str, lines: list[tuple[int, str]], original: list[str]) -> Iterator[Site]:
    for number, masked in lines:
        text = original[number - 1]
        # A .td default is a string literal (masked): read it from the source.
        matches = _TD_DEFAULT.finditer(text) if path.endswith(".td") else _MEMBER_DEFAULT.finditer(masked)
        for m in matches:
            new = _changed(m.group(1))
            if new is not None:
                yield Site(path, number, m.start(1), len(m.group(1)), DEFAULT, new)


_FINDERS = {SWAP: _swaps, DROP: _drops, REPLACE: _replacements, DEFAULT: _defaults}


def enumerate_sites(path: str, text: str) -> list[Site]:
    """Every semantic site of one C++ (.cpp, .h) or TableGen (.td) file, in source order."""
    original = text.split("\n")
    lines = list(masked_lines(text))
    found: list[Site] = []
    for name, find in _FINDERS.items():
        if path.endswith((".td", ".h")) != (name == DEFAULT):
            continue  # defaults live in headers and ODS; the other operators edit code (.cpp)
        found.extend(dict.fromkeys(find(path, lines, original)))
    return sorted(found, key=lambda s: (s.line, s.column, s.operator, s.replacement))
