"""Op classes of the ``spatial`` dialect (generated from ODS)."""

from ._spatial_ops_gen import *  # noqa: F401,F403
