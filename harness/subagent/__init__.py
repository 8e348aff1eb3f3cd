"""harness.subagent."""
