"""Op classes of the ``sure`` dialect (generated from ODS)."""

from ._sure_ops_gen import *  # noqa: F401,F403
