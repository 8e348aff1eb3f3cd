"""harness.tracing."""
