"""``python -m raptor``: the same as the ``raptor`` command."""

from raptor.cli import main

raise SystemExit(main())
