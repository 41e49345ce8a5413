"""The ONNX frontend's errors: one-line reasons for input it cannot import,
and the signal a conversion rule gives for a node it does not model."""

from __future__ import annotations


class OnnxImportError(ValueError):
    """The model cannot be imported (unreadable file, opset, dynamic shape)."""


class DynamicShapeError(OnnxImportError):
    """A graph input has a dynamic size: ``input`` names it, ``sizes`` spells
    the ``--input-shape`` value to give (``N`` where a size is unknown)."""

    def __init__(self, message: str, input: str, sizes: str) -> None:
        super().__init__(message)
        self.input = input
        self.sizes = sizes


class UnsupportedOperatorError(OnnxImportError):
    """Raised in strict mode when operators have no ``nn`` op (all named)."""


class Unsupported(Exception):
    """A node outside what the ``nn`` ops model: kept generic (or, in
    strict mode, named), never shown to the user as such."""


def one_line(e: BaseException) -> str:
    """An exception of the ``onnx`` package (protobuf, the reference
    evaluator) as one line of at most 300 characters."""
    text = " ".join(str(e).split())
    return text[:300] + ("..." if len(text) > 300 else "")
