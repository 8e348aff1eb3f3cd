"""How ``make_harness_app(mcp_servers=...)`` records and replays its MCP servers.

The cassette sits beside the test's model cassette (``<test>.mcp.json``), or,
with no model cassette (a scripted provider), under
``<cassette dir>/mcp/<test file>/<test>.mcp.json``; a test's second application
with MCP servers gets ``<test>-2.mcp.json``. The record mode is the plugin's
(``none`` replays, ``once`` records what is missing, ``new_episodes``/``all``/
``rewrite`` record the servers' whole sessions again: a server is stateful, so
half a session replayed and half run live would not be the session it was).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.testing.naming import test_file, test_name
from harness.testing.options import HarnessOptions

__all__ = [
    "fixture_mcp_cassette",
    "mcp_cassette_for",
    "old_fixture_mcp_cassette",
    "recorded_mcp_servers",
]


def fixture_mcp_cassette(node: Any, options: HarnessOptions) -> Path:
    """The MCP cassette of the ``mcp_cassette`` fixture in test ``node``.

    It is beside the model cassette ``llm_cassette`` opens for ``node``, by that
    cassette's own rules (``harness.testing.cassettes.llm_paths``: the model part from
    ``--harness-model`` or the marker, the stream variant, the epoch), whether or
    not the test uses ``llm_cassette``: ``--harness-mutants`` finds the tool
    results to mutate beside that model cassette, so the two must never part.
    """
    from harness.mcp import mcp_cassette_path
    from harness.testing.cassettes.llm_paths import resolve_llm_target

    return mcp_cassette_path(resolve_llm_target(node, options).path)


def old_fixture_mcp_cassette(node: Any, options: HarnessOptions, path: Path) -> Path | None:
    """Where ``mcp_cassette`` recorded before it followed the model cassette (no model
    part, no stream or epoch part), when a file is there and not at ``path``: the
    replay's error then says how to move it."""
    from harness.mcp import mcp_cassette_path
    from harness.testing.cassettes.llm_cassette import llm_cassette_path

    relative = test_file(Path(str(node.path)), options.rootdir)
    old = mcp_cassette_path(llm_cassette_path(options.cassette_dir, relative, test_name(node)))
    return old if old != path and old.is_file() and not path.exists() else None


def mcp_cassette_for(
    node: Any, options: HarnessOptions, model_cassette: Path | None, index: int
) -> Path:
    """The MCP cassette of the ``index``-th (from 1) application of test ``node``."""
    from harness.mcp import mcp_cassette_path, numbered_mcp_cassette

    if model_cassette is not None:
        return mcp_cassette_path(model_cassette, index)
    relative = Path(test_file(Path(str(node.path)), options.rootdir)).with_suffix("")
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in test_name(node))
    return numbered_mcp_cassette(
        options.cassette_dir / "mcp" / relative / f"{safe}.mcp.json", index
    )


def recorded_mcp_servers(value: Any, cassette: Path, options: HarnessOptions) -> Any:
    """``value`` (a mapping, a path) bound to ``cassette`` in the plugin's record mode."""
    from harness.mcp import McpRecording, load_mcp_config

    config = load_mcp_config(value)
    if config is None:
        return None
    if options.tools == "live":
        return config  # --harness-tools live: the real servers; their cassette is left alone
    recording = McpRecording(cassette, options.record_mode, options.block_live)
    return config.with_recording(recording)
