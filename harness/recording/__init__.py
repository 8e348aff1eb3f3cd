"""harness.recording."""
