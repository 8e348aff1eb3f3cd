"""The ``harness`` command line (typer); glue only, the library does the work."""

from harness.cli._main import app, main

__all__ = ["app", "main"]
