"""Op classes of the ``layout`` dialect (generated from ODS)."""

from ._layout_ops_gen import *  # noqa: F401,F403
