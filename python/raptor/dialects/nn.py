"""Op classes of the ``nn`` model-graph dialect (generated from ODS)."""

from ._nn_ops_gen import *  # noqa: F401,F403
