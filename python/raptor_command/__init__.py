"""The ``raptor`` command's entry point, kept apart from the ``raptor``
package so that it runs before any heavy import: Ctrl-C or SIGTERM while
MLIR, numpy and the compiler load (about a second) ends the command with
exit 130 (143) instead of a traceback from inside an importer (an
interrupted numpy import cannot even be retried: "cannot load module more
than once per process"). The ``raptor`` executable (tools/raptor-launcher)
blocks both signals before Python starts and runs this module, so that the
interpreter's own start is covered too; once the command has run they are
ignored until the process ends."""

from __future__ import annotations

import signal
import sys

_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def main() -> int:
    """Loads the compiler with SIGINT and SIGTERM held, then runs the command."""
    held = hasattr(signal, "pthread_sigmask")
    if held:
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        from raptor.cli import main as run
    finally:
        if held:
            try:
                # A signal that arrived meanwhile is delivered here, before
                # any work: SIGINT as KeyboardInterrupt, SIGTERM by its
                # default action.
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
            except KeyboardInterrupt:
                return 130
    try:
        return run()
    except KeyboardInterrupt:  # (raised before run() installs its own handling)
        return 130
    finally:
        # The command is over: a signal from now on has nothing left to
        # stop, and its handler would raise inside the interpreter's
        # shutdown ("Exception ignored in: <module 'threading'>" and a
        # SystemExit traceback, found by the fuzz harness). Ignored (not
        # only blocked here: the kernel may hand it to a thread of numpy's
        # that does not block it), it ends with the process.
        for number in _SIGNALS:
            signal.signal(number, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(main())
