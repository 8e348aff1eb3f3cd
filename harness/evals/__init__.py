"""harness.evals."""
