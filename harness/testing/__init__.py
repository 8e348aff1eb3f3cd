"""harness.testing."""
