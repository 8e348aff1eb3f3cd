"""harness.integrations."""
