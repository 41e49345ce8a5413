"""Parser of the Domain Flow `.sure` format into the `sure` dialect.

Grammar (see docs/rdg.md):

    file      := param* system (tau | face)*
    face      := ('input' | 'output') NAME ('[' affine ']')+
                 '(' '(' names ')' '|' constraints ')' ':' assignment ';'
                 (input: v(names) = NAME[..]..; output: NAME[..].. = v(names))
    param     := NAME '=' INT ';'
    system    := 'system' '(' '(' names ')' '|' constraints ')' '{' equation* '}'
    equation  := NAME '(' names ('|' constraints)? ')' '=' expr ';'
    expr      := term (('+' | '-') term)*
    term      := unary (('*' | '/') unary)*
    unary     := '-' unary | NUMBER | '(' expr ')' | NAME '(' args ')'
    tau       := 'tau' '=' '[' INT (',' INT)* ']' ';'

A call of sqrt, exp, abs, select or gt is a function; any other call is a
tap `v(e1, ..., en)` whose subscripts are affine in the indices and
parameters. Constraints chain comparisons (`0 <= i < N`). Errors are
`SureSyntaxError`s that name `file:line:col`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

FUNCTIONS = {"sqrt": 1, "exp": 1, "abs": 1, "gt": 2, "select": 3}
def _mlir_float(tok: "Token", error) -> str:
    """A constant as an MLIR float literal that reads back the same double:
    the shortest round-trip digits, with the mantissa's '.' MLIR requires
    (1e-09 is read as an integer there: 1.0e-09); beyond the doubles, an
    error at the constant."""
    value = float(tok.text)
    if not math.isfinite(value):
        raise error(f"the constant {tok.text} is beyond the range of double precision", tok)
    text = repr(value)
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "")


_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)|(?P<name>[A-Za-z_]\w*)|"
                    r"(?P<op><=|>=|==|[-+*/()\[\]{}|,;=<>:]))")


class SureSyntaxError(ValueError):
    """A malformed `.sure` file; the message starts with `file:line:col:`."""


@dataclass
class Token:
    kind: str  # num, name, op, eof
    text: str
    line: int
    col: int


def tokenize(text: str, source: str) -> list[Token]:
    tokens: list[Token] = []
    for line_no, line in enumerate(text.splitlines(), 1):
        line = line.split("//")[0].split("#")[0]
        pos = 0
        while pos < len(line):
            if line[pos:].strip() == "":
                break
            m = _TOKEN.match(line, pos)
            if not m:
                col = pos + len(line[pos:]) - len(line[pos:].lstrip()) + 1
                raise SureSyntaxError(f"{source}:{line_no}:{col}: unexpected character "
                                      f"'{line[col - 1]}'")
            kind = m.lastgroup or "op"
            tokens.append(Token(kind, m.group(kind), line_no, m.start(kind) + 1))
            pos = m.end()
    last = tokens[-1] if tokens else Token("eof", "", 1, 1)
    tokens.append(Token("eof", "end of file", last.line, last.col + len(last.text)))
    return tokens


class _Parser:
    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.tokens = tokenize(text, source)
        self.pos = 0
        self.lines: list[str] = []
        self.ssa = 0

    # -- tokens --------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def error(self, message: str, tok: Token | None = None) -> SureSyntaxError:
        tok = tok or self.tok
        return SureSyntaxError(f"{self.source}:{tok.line}:{tok.col}: {message}")

    def accept(self, text: str) -> bool:
        if self.tok.text == text and self.tok.kind != "eof":
            self.pos += 1
            return True
        return False

    def expect(self, text: str) -> Token:
        if self.tok.text != text or self.tok.kind == "eof":
            raise self.error(f"expected '{text}', found '{self.tok.text}'")
        self.pos += 1
        return self.tokens[self.pos - 1]

    def name(self, what: str = "a name") -> Token:
        if self.tok.kind != "name":
            raise self.error(f"expected {what}, found '{self.tok.text}'")
        self.pos += 1
        return self.tokens[self.pos - 1]

    def integer(self) -> int:
        sign = -1 if self.accept("-") else 1
        if self.tok.kind != "num" or not self.tok.text.isdigit():
            raise self.error(f"expected an integer, found '{self.tok.text}'")
        return sign * int(self.literal())

    def literal(self) -> str:
        """The integer token here; the IR holds int64, so larger ones are refused."""
        tok = self.tok
        if int(tok.text) >= 2**63:
            raise self.error(f"integer {tok.text} does not fit in 64 bits")
        self.pos += 1
        return tok.text

    def index_names(self) -> list[str]:
        """NAME (',' NAME)*: the index list of a system, an equation or a face."""
        names = [self.name("an index").text]
        while self.accept(","):
            names.append(self.name("an index").text)
        return names

    def loc(self, tok: Token) -> str:
        return f'loc("{self.source}":{tok.line}:{tok.col})'

    # -- affine expressions (subscripts and constraints) -----------------------
    def affine(self) -> str:
        terms = [self.affine_term()]
        while self.tok.text in ("+", "-"):
            op = self.tok.text
            self.pos += 1
            terms.append(f"{op} {self.affine_term()}")
        return " ".join(terms)

    def affine_term(self) -> str:
        start = self.tok
        factors = [self.affine_factor()]
        while self.accept("*"):
            factors.append(self.affine_factor())
        if sum(not f.lstrip("-").isdigit() for f in factors) > 1:
            raise self.error("a product of indices is not affine", start)
        return " * ".join(factors)

    def affine_factor(self) -> str:
        tok = self.tok
        if self.accept("-"):
            return f"-({self.affine_factor()})"
        if self.accept("("):
            inner = self.affine()
            self.expect(")")
            return f"({inner})"
        if tok.kind == "num":
            if not tok.text.isdigit():
                raise self.error(f"'{tok.text}' is not an integer")
            return self.literal()
        if tok.kind == "name":
            if tok.text not in self.space:
                raise self.error(f"unknown index or parameter '{tok.text}'")
            self.pos += 1
            return tok.text
        raise self.error(f"expected an affine expression, found '{tok.text}'")

    def constraints(self) -> list[str]:
        """Comma-separated chains `a <= b < c`, as MLIR integer-set constraints."""
        out: list[str] = []
        while True:
            lhs = self.affine()
            if self.tok.text not in ("<", "<=", ">", ">=", "=", "=="):
                raise self.error(f"expected a comparison, found '{self.tok.text}'")
            while self.tok.text in ("<", "<=", ">", ">=", "=", "=="):
                op = self.tok.text
                self.pos += 1
                rhs = self.affine()
                out.append({"<": f"({rhs}) - ({lhs}) - 1 >= 0", "<=": f"({rhs}) - ({lhs}) >= 0",
                            ">": f"({lhs}) - ({rhs}) - 1 >= 0", ">=": f"({lhs}) - ({rhs}) >= 0",
                            "=": f"({lhs}) - ({rhs}) == 0", "==": f"({lhs}) - ({rhs}) == 0"}[op])
                lhs = rhs
            if not self.accept(","):
                return out

    def integer_set(self, constraints: list[str]) -> str:
        return f"affine_set<{self.dims}{self.syms} : ({', '.join(constraints)})>"

    # -- equation bodies -----------------------------------------------------------
    def fresh(self) -> str:
        self.ssa += 1
        return f"%{self.ssa}"

    def emit(self, text: str, tok: Token) -> str:
        value = self.fresh()
        self.lines.append(f"      {value} = {text} {self.loc(tok)}")
        return value

    def expr(self) -> str:
        value = self.term()
        while self.tok.text in ("+", "-"):
            tok = self.tok
            self.pos += 1
            value = self.emit(f'sure.apply "{tok.text}"({value}, {self.term()})', tok)
        return value

    def term(self) -> str:
        value = self.unary()
        while self.tok.text in ("*", "/"):
            tok = self.tok
            self.pos += 1
            value = self.emit(f'sure.apply "{tok.text}"({value}, {self.unary()})', tok)
        return value

    def unary(self) -> str:
        tok = self.tok
        if self.accept("-"):
            return self.emit(f'sure.apply "neg"({self.unary()})', tok)
        if tok.kind == "num":
            self.pos += 1
            return self.emit(f"sure.constant {_mlir_float(tok, self.error)}", tok)
        if self.accept("("):
            value = self.expr()
            self.expect(")")
            return value
        name = self.name("a number, a variable or a function")
        self.expect("(")
        if name.text in FUNCTIONS:
            args = [self.expr()]
            while self.accept(","):
                args.append(self.expr())
            self.expect(")")
            if len(args) != FUNCTIONS[name.text]:
                raise self.error(f"'{name.text}' takes {FUNCTIONS[name.text]} arguments, "
                                 f"got {len(args)}", name)
            return self.emit(f'sure.apply "{name.text}"({", ".join(args)})', name)
        subscripts = [self.affine()]
        while self.accept(","):
            subscripts.append(self.affine())
        self.expect(")")
        if len(subscripts) != len(self.indices):
            raise self.error(f"tap '{name.text}' has {len(subscripts)} subscripts but the "
                             f"system has rank {len(self.indices)}", name)
        amap = f"affine_map<{self.dims}{self.syms} -> ({', '.join(subscripts)})>"
        return self.emit(f'sure.tap "{name.text}" at {amap}', name)

    # -- file ------------------------------------------------------------------------
    def parse(self, name: str) -> str:
        params: dict[str, int] = {}
        while self.tok.kind == "name" and self.tok.text not in ("system", "tau"):
            tok = self.name("a parameter")
            self.expect("=")
            if tok.text in params:
                raise self.error(f"parameter '{tok.text}' is defined twice", tok)
            params[tok.text] = self.integer()
            self.expect(";")
        system = self.expect("system") if self.tok.text == "system" else None
        if system is None:
            raise self.error(f"expected 'system', found '{self.tok.text}'")
        self.expect("(")
        self.expect("(")
        self.indices = self.index_names()
        self.expect(")")
        self.params = list(params)
        self.space = set(self.indices) | set(self.params)
        for dup in {n for n in self.indices if self.indices.count(n) > 1 or n in params}:
            raise self.error(f"index '{dup}' is defined twice (or is also a parameter)", system)
        self.dims = f"({', '.join(self.indices)})"
        self.syms = f"[{', '.join(self.params)}]" if self.params else ""
        self.expect("|")
        domain = self.integer_set(self.constraints())
        self.expect(")")
        self.expect("{")
        equations: list[str] = []
        while not self.accept("}"):
            if self.tok.kind == "eof":
                raise self.error("missing '}' at the end of the system")
            equations.append(self.equation())
        tau = None
        faces: list[str] = []
        while self.tok.kind != "eof":
            if self.tok.text in ("input", "output"):
                faces.append(self.face())
            elif self.tok.text == "tau" and tau is None:
                self.pos += 1
                self.expect("=")
                self.expect("[")
                tau = [self.integer()]
                while self.accept(","):
                    tau.append(self.integer())
                self.expect("]")
                self.expect(";")
            else:
                raise self.error(f"unexpected '{self.tok.text}' after the system")
        equations.extend(faces)
        strs = lambda xs: "[" + ", ".join(f'"{x}"' for x in xs) + "]"  # noqa: E731
        values = f" values [{', '.join(str(v) for v in params.values())}]" if params else ""
        tau_text = f" tau [{', '.join(map(str, tau))}]" if tau else ""
        return (f'sure.system @{name} indices {strs(self.indices)} parameters {strs(self.params)}'
                f"{values} domain {domain}{tau_text} {{\n" + "\n".join(equations) +
                f"\n}} {self.loc(system)}\n")

    def array_ref(self, name: Token | None = None) -> tuple[Token, list[str]]:
        """NAME[e][e]..., the subscripts affine in the indices and parameters."""
        name = name or self.name("an array")
        subscripts = []
        while self.accept("["):
            subscripts.append(self.affine())
            self.expect("]")
        if not subscripts:
            raise self.error(f"expected '[' after array '{name.text}'")
        return name, subscripts

    def variable_ref(self) -> Token:
        var = self.name("a variable")
        self.expect("(")
        names = self.index_names()
        self.expect(")")
        if names != self.indices:
            raise self.error(f"'{var.text}' must be used at ({', '.join(self.indices)})", var)
        return var

    def face(self) -> str:
        kind = self.tok
        self.pos += 1
        space = self.space
        self.space = set(self.params)  # the shape depends on parameters only
        array, shape = self.array_ref()
        self.space = space
        self.expect("(")
        self.expect("(")
        names = self.index_names()
        self.expect(")")
        if names != self.indices:
            raise self.error(f"a face is over the system's indices ({', '.join(self.indices)})")
        self.expect("|")
        face_set = self.integer_set(self.constraints())
        self.expect(")")
        self.expect(":")
        if kind.text == "input":
            var = self.variable_ref()
            self.expect("=")
            ref, subscripts = self.array_ref()
        else:
            ref, subscripts = self.array_ref()
            self.expect("=")
            var = self.variable_ref()
        if ref.text != array.text:
            raise self.error(f"the face is of array '{array.text}', not '{ref.text}'", ref)
        if len(subscripts) != len(shape):
            raise self.error(f"array '{array.text}' has {len(shape)} dimensions but "
                             f"{len(subscripts)} subscripts", ref)
        self.expect(";")
        shape_map = f"affine_map<(){self.syms} -> ({', '.join(shape)})>"
        subs_map = f"affine_map<{self.dims}{self.syms} -> ({', '.join(subscripts)})>"
        return (f'  sure.{kind.text} "{array.text}" shape {shape_map} on {face_set} '
                f'variable "{var.text}" at {subs_map} {self.loc(kind)}')

    def equation(self) -> str:
        var = self.name("a variable")
        self.expect("(")
        lhs = self.index_names()
        if lhs != self.indices:
            raise self.error(f"'{var.text}' must be defined at ({', '.join(self.indices)})", var)
        branch = ""
        if self.accept("|"):
            branch = f" where {self.integer_set(self.constraints())}"
        self.expect(")")
        self.expect("=")
        self.lines, self.ssa = [], 0
        value = self.expr()
        self.expect(";")
        body = "\n".join(self.lines)
        return (f'  sure.equation "{var.text}"{branch} {{\n{body}\n'
                f"      sure.yield {value} {self.loc(var)}\n  }} {self.loc(var)}")


def sure_to_mlir(text: str, source: str = "<sure>", name: str = "system") -> str:
    """The `.sure` text as `sure` dialect IR (MLIR text with file locations)."""
    if not re.fullmatch(r"[A-Za-z_][\w$.]*", name):
        raise ValueError(f"'{name}' is not a valid system name")
    parser = _Parser(text, source)
    try:
        return parser.parse(name)
    except RecursionError:
        # The parser recurses once per parenthesis; Python's stack is the limit.
        raise parser.error("expression nested too deeply (parentheses or negations)") from None
