"""Generated Python op classes of Raptor's dialects."""
