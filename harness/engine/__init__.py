"""harness.engine."""
