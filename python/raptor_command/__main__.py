"""``python -m raptor_command``: what the ``raptor`` launcher runs
(tools/raptor-launcher), with SIGINT and SIGTERM already blocked."""

import sys

from raptor_command import main

sys.exit(main())
