"""Recurrence systems and pictures: ``raptor rdg`` (the reduced dependency
graph of a .sure system, its picture and analyses), ``raptor rdg-page``
(an HTML page of several) and ``raptor layout-svg`` (a layout or a
morphism of the layout algebra drawn as SVG)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mlir import ir

from raptor._io import UserError, diagnostics_error, read_text, write_atomically
from raptor.rdg.analysis import DEFAULT_MAX_POINTS


def register(sub: argparse._SubParsersAction) -> None:
    """Adds ``rdg``, ``rdg-page`` and ``layout-svg`` to the subcommands."""
    p = sub.add_parser("rdg", help="reduced dependency graph of a .sure recurrence system",
                       epilog="examples: raptor rdg gemm.sure --analyze; "
                              "raptor rdg gemm.sure --json gemm.json --svg gemm.svg")
    p.add_argument("file", help="a .sure file ('-' for stdin)")
    p.add_argument("--json", metavar="OUT", help="write the RDG JSON here (default: stdout)")
    p.add_argument("--extended", action="store_true",
                   help="symbolic parameters and separate branches instead of dfactl's form")
    p.add_argument("--mlir", metavar="OUT", help="also write the system as sure-dialect IR")
    p.add_argument("--svg", metavar="OUT", help="draw the RDG as SVG")
    p.add_argument("--analyze", action="store_true",
                   help="print the verdicts: computability (free schedule, KMW), linear schedule")
    p.add_argument("--max-points", type=int, default=DEFAULT_MAX_POINTS,
                   help=f"enumeration limit of the analyses, which visit every point "
                        f"(default: {DEFAULT_MAX_POINTS}, a few seconds)")
    p.set_defaults(run=_rdg)

    p = sub.add_parser("rdg-page", help="a static HTML page with the RDGs of several systems",
                       epilog="example: raptor rdg-page rdg.html systems/*.sure")
    p.add_argument("output", help="the .html file to write")
    p.add_argument("files", nargs="+", help=".sure files")
    p.set_defaults(run=_rdg_page)

    p = sub.add_parser("layout-svg", help="draw a layout (S:D) or a morphism (S --(m)--> T) as SVG",
                       epilog="examples: raptor layout-svg '(4,2):(1,4)' -o layout.svg; "
                              "raptor layout-svg '(4,4) --(1,3)--> (4,2,4)' -o morphism.svg")
    p.add_argument("spec", help="e.g. '(4,(2,2)):(2,(1,8))' or '(4,4) --(1, 3)--> (4,2,4)'")
    p.add_argument("-o", "--output", required=True, help="the .svg file to write")
    p.set_defaults(run=_layout_svg)


def specs_are_positional(argv: list[str]) -> list[str]:
    """`raptor layout-svg -x ...`: a spec may begin with `-` (a negative
    stride); argparse would take it for an option, so it goes after `--`."""
    if not argv or argv[0] != "layout-svg" or "--" in argv:
        return argv
    out, i = [argv[0]], 1
    while i < len(argv):
        a = argv[i]
        if a in ("-o", "--output") and i + 1 < len(argv):
            out += [a, argv[i + 1]]
            i += 2
            continue
        if a.startswith("-") and a not in ("-h", "--help") and not a.startswith("--output="):
            return out + argv[i + 1:] + ["--", a]  # the options after it, then the spec
        out.append(a)
        i += 1
    return out


_TOO_LARGE = (RecursionError, MemoryError, OverflowError)


def _too_large(source: str, e: BaseException) -> UserError:
    """One line for a system beyond what Python's recursion, memory or
    machine integers take (rather than their tracebacks)."""
    if isinstance(e, OverflowError):
        return UserError(f"'{source}': a value of the system is too large ({e})")
    what = "nested too deeply" if isinstance(e, RecursionError) else "too large for memory"
    return UserError(f"'{source}': the system is {what} to handle")


def _rdg(args: argparse.Namespace) -> int:
    from raptor import rdg

    source = args.file
    # Everything is computed before anything is written: a failing run
    # leaves no output file (and replaces none).
    try:
        name = Path(source).stem if source != "-" else "system"
        name = name if name.isidentifier() else "system"
        module = rdg.parse_sure(read_text(source), source, name)
        text = rdg.to_json(module, "extended" if args.extended else "dfactl")
        svg = None
        if args.svg:
            from raptor.rdg.picture import render_svg

            svg = render_svg(json.loads(rdg.to_json(module)))
        verdicts = None
        if args.analyze:
            from raptor.rdg.analysis import AnalysisError, analyze

            try:
                verdicts = analyze(rdg.extract(module, "extended"), max_points=args.max_points)
            except AnalysisError as e:
                raise UserError(str(e)) from None
    except rdg.SureSyntaxError as e:
        raise UserError(str(e)) from None
    except ir.MLIRError as e:
        raise diagnostics_error(e, source) from None
    except _TOO_LARGE as e:
        raise _too_large(source, e) from None
    if args.mlir:
        write_atomically(args.mlir, str(module))
    if svg is not None:
        write_atomically(args.svg, svg)
    if args.json:
        write_atomically(args.json, text)
    elif not args.analyze and not args.svg:
        sys.stdout.write(text)
    if verdicts is not None:
        print(json.dumps(verdicts, indent=2))
    return 0


def _rdg_page(args: argparse.Namespace) -> int:
    from raptor import rdg
    from raptor.rdg.picture import render_page

    graphs = []
    for i, path in enumerate(args.files, 1):
        print(f"[{i}/{len(args.files)}] {path}", file=sys.stderr)
        try:
            module = rdg.load_sure(path)
        except (rdg.SureSyntaxError, OSError) as e:
            raise UserError(str(e)) from None
        except ir.MLIRError as e:
            raise diagnostics_error(e, path) from None
        graphs.append((Path(path).stem, json.loads(rdg.to_json(module))))
    write_atomically(args.output, render_page(graphs))
    return 0


_LAYOUT_SPEC = ("expected SHAPE:STRIDE of nested integer tuples, e.g. (4,2):(1,4), "
                "or DOMAIN --(MAP)--> CODOMAIN, e.g. (4,4) --(1,3)--> (4,2,4)")


def _int_tuple(text: str) -> int | tuple:
    """An integer or nested tuple of integers spelled as in the paper."""
    import ast

    value = ast.literal_eval(text.strip())

    def valid(v: object) -> bool:
        if isinstance(v, tuple):
            return all(valid(c) for c in v)
        return isinstance(v, int) and not isinstance(v, bool)

    if not valid(value):
        raise ValueError(text)
    return value


def _layout_svg(args: argparse.Namespace) -> int:
    from raptor import layout
    from raptor.layout import picture

    text = args.spec.strip()
    try:
        if "-->" in text:  # a morphism: DOMAIN --(MAP)--> CODOMAIN
            domain, rest = text.split("--", 1)
            mapping, codomain = rest.split("-->", 1)
            image = _int_tuple(mapping)
            parts = (_int_tuple(domain), _int_tuple(codomain),
                     image if isinstance(image, tuple) else (image,))
        else:  # a layout: SHAPE:STRIDE
            shape, stride = text.split(":")
            parts = (_int_tuple(shape), _int_tuple(stride))
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        raise UserError(f"cannot draw '{text}': {_LAYOUT_SPEC}") from None
    try:  # the algebra's own checks (profiles, the Tuple condition, ...)
        if len(parts) == 3:
            svg = picture.render_morphism_svg(layout.Morphism(*parts))
        else:
            svg = picture.render_svg(layout.Layout(*parts))
    except ValueError as e:
        raise UserError(f"cannot draw '{text}': {e}") from None
    write_atomically(args.output, svg)
    return 0


