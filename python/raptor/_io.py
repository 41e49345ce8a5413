"""Reading IR and writing outputs without leaving half-written files."""

from __future__ import annotations

import math
import os
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mlir import ir

from . import _raptor


class UserError(Exception):
    """A problem with the user's input: reported as one line, exit code 1."""


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait (are delivered after) while the block runs:
    for the steps of a write that must not be cut in two (creating a
    staging copy and remembering its name, renaming it in, removing it).

    Blocking them in this thread is not enough: numpy's BLAS threads leave
    them unblocked, the kernel may hand a signal to one of them, and Python
    then runs its handler in this thread anyway (a SIGTERM in the middle of
    removing the replaced program left it beside the new one). So the
    Python handlers are swapped for ones that only record the signal, which
    is raised again, to the usual handlers, when the block ends."""
    held = (signal.SIGINT, signal.SIGTERM)
    pending: list[int] = []
    main = threading.current_thread() is threading.main_thread()
    handlers = {s: signal.signal(s, lambda number, _: pending.append(number)) for s in held} if main else {}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        for number, handler in handlers.items():  # (None: a handler not set from Python)
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        for number in dict.fromkeys(pending):
            signal.raise_signal(number)


def make_parents(directory: Path, what: Path) -> list[Path]:
    """Creates ``directory`` and its missing parents, as the user named them
    (``raptor compile m -o out/m`` in a fresh directory); returns the
    directories created, deepest first, for :func:`remove_made` to take
    back after a failure. A parent that is a file is a one-line UserError
    naming ``what``."""
    made: list[Path] = []
    probe = directory
    while not probe.is_dir():
        if probe.exists() or probe.is_symlink():
            raise UserError(f"cannot write '{what}': '{probe}' is not a directory")
        made.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for i in reversed(range(len(made))):
        d = made[i]
        try:
            d.mkdir()
        except FileExistsError:
            pass
        except OSError as e:
            remove_made(made[i + 1:])  # the shallower ones, made already
            raise UserError(f"cannot write '{what}': cannot create '{d}': {e.strerror or e}") from None
    return made


def remove_made(made: list[Path]) -> None:
    """Removes the directories :func:`make_parents` created, deepest first,
    while they are empty (nothing that was there before is touched)."""
    for d in made:
        try:
            d.rmdir()
        except OSError:
            return


def write_atomically(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Writes ``data`` (text or bytes) to ``path`` via a temporary file
    renamed into place, so that a failure or an interruption never leaves
    half a file or the temporary one. Missing parent directories are
    created. The file gets the umask's permissions (not mkstemp's 0600); a
    directory is refused; a symlink is written through (its target
    replaced), and a FIFO or device is written directly, never replaced by
    a regular file."""
    target = Path(path)
    if target.is_dir():
        raise UserError(f"cannot write '{target}': it is a directory")
    if target.exists() and not target.is_file():  # a FIFO, a device: write to it as the user asked
        try:
            with open(target, "wb" if isinstance(data, bytes) else "w") as f:
                f.write(data)
        except OSError as e:
            raise UserError(f"cannot write '{target}': {e.strerror or e}") from None
        return
    if target.is_symlink():
        if not target.exists():
            raise UserError(f"cannot write '{target}': it is a symbolic link to nothing")
        target = target.resolve()
    directory = target.parent if str(target.parent) else Path(".")
    made = make_parents(directory, target)
    tmp: str | None = None
    try:
        # (A signal held here arrives as the block ends: inside this try.)
        with signals_held():
            try:
                fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.", suffix=".tmp")
            except OSError as e:
                raise UserError(f"cannot write '{target}': {e.strerror or e}") from None
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~current_umask())
        with signals_held():
            os.replace(tmp, target)
    except BaseException:
        with signals_held():
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            remove_made(made)
        raise


def current_umask() -> int:
    """The process's umask (reading it means setting it: set back at once)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def load_npy(path: str | os.PathLike[str], what: str) -> "np.ndarray":
    """A .npy file as untrusted input: its header read and checked against
    the file's size first, then the data memory-mapped, so that nothing is
    allocated that the file does not hold (a header claiming terabytes is
    one line, not an allocation); a one-line UserError naming ``what``
    otherwise. numpy's header parser evaluates the header's text, so a
    damaged header fails in many ways (a tokenizer or syntax error, a
    ValueError, a TypeError): every one is this file's fault, not ours."""
    import numpy as np

    if not Path(path).is_file():
        raise UserError(f"cannot read {what} '{path}': not a regular file")
    try:
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                           (2, 0): np.lib.format.read_array_header_2_0}.get(version)
            if read_header is None:
                raise ValueError(f"unsupported .npy format version {version[0]}.{version[1]}")
            try:
                shape, fortran, dtype = read_header(f)
            except Exception as e:  # noqa: BLE001
                reason = e.args[0] if e.args and isinstance(e.args[0], str) else type(e).__name__
                raise ValueError(f"its header is damaged ({reason.splitlines()[0]})") from None
            data_offset = f.tell()
        size = Path(path).stat().st_size
        count = math.prod(shape)
        if any(n < 0 for n in shape):
            raise ValueError(f"its header has a negative dimension in the shape {tuple(shape)}")
        if dtype.hasobject:
            raise ValueError("it holds Python objects, which are not read")
        if count * dtype.itemsize > size - data_offset:
            raise ValueError(f"its header claims {count * dtype.itemsize} bytes of data but the file holds "
                             f"{size - data_offset}")
        if count == 0:
            return np.empty(shape, dtype)  # (nothing to map: mmap refuses a length of 0)
        # The header is checked: map the data after it (np.load would parse the header again).
        return np.memmap(path, dtype=dtype, mode="r", offset=data_offset, shape=tuple(shape),
                         order="F" if fortran else "C")
    except Exception as e:  # noqa: BLE001 (see above: a damaged header raises anything)
        raise UserError(f"cannot read {what} '{path}': {str(e) or type(e).__name__}".splitlines()[0]) from None


def parse_module(text: str, source: str, context: ir.Context) -> ir.Module:
    """Parses ``text``; a syntax or verifier error becomes a UserError whose
    message carries MLIR's located diagnostics. Text with a shaped type whose
    element count overflows int64 is refused before MLIR parses it (MLIR's
    parser aborts the process on such types)."""
    oversized = _raptor.find_oversized_shape(text)
    if oversized is not None:
        offset, message = oversized
        data = text.encode()  # the offset counts UTF-8 bytes, as MLIR's columns do
        line = data.count(b"\n", 0, offset) + 1
        column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
        raise UserError(f"{source}:{line}:{column}: {message}")
    try:
        with context:
            module = ir.Module.parse(text)
    except ir.MLIRError as e:
        raise diagnostics_error(e, source) from None
    # Types the text screen does not see (signatures, results) whose element
    # count overflows: MLIR asserts when a pass counts them.
    found = _raptor.oversized_tensor(module)
    if found is not None:
        filename, line, column, message = found
        name = source if filename in ("-", "") else filename
        raise UserError(f"{name}:{line}:{column}: {message}" if line else f"{source}: {message}")
    return module


def diagnostics_error(error: ir.MLIRError, source: str) -> UserError:
    """MLIR's error diagnostics as a UserError, one ``source:line:col: message``
    line each (``source`` names the file the IR was read from)."""
    lines = [f"{_where(d.location, source)}: {d.message}" for d in error.error_diagnostics]
    return UserError("\n".join(lines) or f"{source}: {error}")


def _where(location: ir.Location, source: str) -> str:
    """Where in the user's model a diagnostic points: ``source:line:col``
    for a file location, ``source: node 'name'`` for an imported operator
    (the torch node or ONNX node it came from), ``source`` alone when MLIR
    knows nothing better (never ``loc(unknown)``)."""
    if location.is_a_file():
        # IR parsed from a string says "-"; a frontend's own locations (the
        # .sure parser's) already name their file.
        name = source if location.filename in ("-", "") else location.filename
        return f"{name}:{location.start_line}:{location.start_col}"
    if location.is_a_name():
        return f"{source}: node '{location.name_str}'"
    if location.is_a_callsite():
        return _where(location.callee, source)
    if location.is_a_fused():
        known = [_where(loc, source) for loc in location.locations]
        return next((w for w in known if w != source), source)
    return source


def located_error(location: ir.Location, message: str, source: str) -> UserError:
    """A one-line error about the operator at ``location`` of ``source``."""
    return UserError(f"{_where(location, source)}: {message}")


def read_text(path: str) -> str:
    """The contents of ``path`` (``-`` for stdin)."""
    import sys

    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text()
    except OSError as e:
        raise UserError(f"cannot read '{path}': {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise UserError(f"cannot read '{path}': not UTF-8 text (byte {e.start})") from None

