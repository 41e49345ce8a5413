"""Frontends that bring models into Raptor's ``nn`` dialect.

``raptor.frontend.torch`` imports a ``torch.export.ExportedProgram``; it needs
the project's ``torch`` extra and is imported on demand.
"""
