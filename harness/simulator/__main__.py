"""``python -m harness.simulator [OPTIONS]`` is ``harness sim serve [OPTIONS]``.

One command, defined once (``harness.cli.tools_cmd``): the same flags, help,
error lines and exit codes. The CLI sits on a floor above the simulator, so it
is reached by its dotted path, as lower rooms reach a wire's parts.
"""

import sys
from importlib import import_module

if __name__ == "__main__":
    cli = import_module("harness.cli.main")
    cli.app(["sim", "serve", *sys.argv[1:]], prog_name="harness")
