"""Shared fixtures for Raptor's Python tests."""

from __future__ import annotations

import pytest
from mlir import ir

import raptor


@pytest.fixture
def ctx() -> ir.Context:
    """A fresh context with Raptor's dialects, entered, with an unknown location."""
    context = raptor.Context()
    with context, ir.Location.unknown():
        yield context
