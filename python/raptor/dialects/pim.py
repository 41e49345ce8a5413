"""Op classes of the ``pim`` dialect (generated from ODS)."""

from ._pim_ops_gen import *  # noqa: F401,F403
