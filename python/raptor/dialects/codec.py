"""Op classes of the ``codec`` dialect (generated from ODS)."""

from ._codec_ops_gen import *  # noqa: F401,F403
