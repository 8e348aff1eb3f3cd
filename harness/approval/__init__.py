"""harness.approval."""
