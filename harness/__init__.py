"""harness: an agent runtime and a pytest toolkit to test and evaluate agents offline."""

__version__ = "0.1.0"
