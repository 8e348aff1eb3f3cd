"""``python -m harness.simulator [OPTIONS]`` is ``harness sim serve [OPTIONS]``.

One command, defined once (``harness.cli._tools_cmd``): the same flags, help,
error lines and exit codes. This module is an entry point, not part of the
simulator's room, so it imports the CLI above it (an exception the layering
contract in pyproject.toml names).
"""

import sys

from harness.cli import app

if __name__ == "__main__":
    app(["sim", "serve", *sys.argv[1:]], prog_name="harness")
