"""The harness pytest plugin (entry point ``harness``)."""
