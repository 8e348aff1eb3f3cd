"""The options a re-record command must repeat: those that chose the cassette's path.

A hint that drops one sends the re-recording elsewhere: without
``--harness-model`` a new model's test records over the default model's file
(or misses it), without ``--harness-cassette-dir`` into the project's
``cassettes/``, and without ``--harness-stream`` or ``--harness-epochs`` the node
id in the hint (``[stream]``, ``[epoch2]``) names no test at all.
"""

from __future__ import annotations

import shlex

from harness.testing.options import HarnessOptions

__all__ = ["path_flags"]


def path_flags(options: HarnessOptions) -> list[str]:
    """``--harness-...=value`` for each option of this run that chose the cassette path
    (and how its requests match), in the ``=`` form (the two-word form can move the
    rootdir, see ``harness.testing.plugin.rootdir``)."""
    flags: list[str] = []
    if options.model:
        flags.append(f"--harness-model={shlex.quote(options.model)}")
    if options.cassette_dir != options.rootdir / "cassettes":
        flags.append(f"--harness-cassette-dir={shlex.quote(str(options.cassette_dir))}")
    if options.stream != "off":
        flags.append(f"--harness-stream={options.stream}")  # the node id needs it
    if options.epochs > 1:
        flags.append(f"--harness-epochs={options.epochs}")  # the node id needs it
    if options.ignore_query_params:
        joined = ",".join(options.ignore_query_params)
        flags.append(f"--harness-ignore-query-params={shlex.quote(joined)}")
    return flags
