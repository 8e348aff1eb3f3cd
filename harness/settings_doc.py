"""The settings reference (docs/reference/settings.md), generated from ``Settings``.

Generated, so the table and the code cannot drift.

Which variable sets which field is asked of ``Settings.from_env`` itself: it is
handed a mapping that records every name it looks up. Every field then needs a
line in ``MEANINGS``; a new field without one fails ``settings_rows`` (and the
settings-table test) with the fix in the message.

Print the table: ``python -m harness.settings_doc``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic_core import PydanticUndefined

from harness.core.errors import ConfigurationError
from harness.core.wires import runtime_wires
from harness.settings import Settings

__all__ = ["MEANINGS", "env_variables", "settings_rows", "settings_table"]

# field -> (default as the settings reference shows it, or None to show the real default; meaning)
MEANINGS: dict[str, tuple[str | None, str]] = {
    "provider": (
        None,
        "`echo`, `scripted`, "
        + ", ".join(f"`{w.name}`" for w in runtime_wires())
        + " (`claude`: another name of `anthropic`)",
    ),
    "model": ("provider default", "model name"),
    "base_url": (
        "SDK default",
        "OpenAI-compatible / Anthropic base URL (e.g. the simulator `http://127.0.0.1:8765`)",
    ),
    "workdir": ("cwd", "where tools work; tools cannot reach outside it"),
    "state_dir": ("`<workdir>/.harness`", "where sessions, memory, traces, approvals live"),
    "enabled_tools": (None, "tools the model may see: read, write, edit, bash, explore"),
    "tool_allowlist": (None, "policy: only these tools run (empty narrows nothing)"),
    "tool_denylist": (None, "policy: these tools never run (deny wins over allow)"),
    "log_level": (None, "log level of the CLI (stderr)"),
    "max_steps": (None, "step limit of a run"),
    "script": (
        None,
        "JSON/YAML turns for `HARNESS_PROVIDER=scripted`; the turn is chosen by the number "
        "of assistant turns already in the conversation, so run → approve works across "
        "processes",
    ),
    "trace_mode": (None, "`off`, `metadata` (no text), `replay` (redacted payloads)"),
    "trace_max_payload_chars": (None, "strings in `replay` payloads are cut to this length"),
    "max_parallel_tools": (None, "threads for consecutive parallel-safe calls (`read`)"),
    "max_retries": (None, "SDK retries of a failed model call"),
    "stream": (None, "stream model responses (openai / openai-responses / anthropic)"),
    "max_tokens": (None, "max output tokens per model call"),
    "context_max_chars": (
        None,
        "context size (chars) past which the oldest history is dropped, with a note",
    ),
    "approval_provider": (None, "`off`, `cli`, `feishu`"),
    "approval_required_tools": (None, "tools judged by the risk policy"),
    "approval_timeout_seconds": (None, "approval expiry"),
    "subagent_max_result_chars": (None, "longest Explorer report the parent sees"),
    "edit_fuzzy_threshold": (
        None,
        "similarity floor of the `edit` tool's fuzzy stage; off if unset",
    ),
    "cassette": (
        None,
        "cassette file for a recorded provider (validated; `harness run` does not use it yet)",
    ),
    "record_mode": (
        None,
        "`none`, `once`, `new_episodes`, `all`, `rewrite` (validated; recording runs "
        "through pytest `--record-mode`)",
    ),
    "system_prompt": ("built-in", "system prompt of the agent (`{workdir}` is filled in)"),
    "approval_key": (
        "key file",
        "approval signing key; else `$XDG_STATE_HOME/harness/approval.key` (never shown)",
    ),
    "bash_sandbox": (None, "`auto`, `required`, `off`: run bash in bubblewrap"),
    "bash_network": (None, "let sandboxed bash reach the network"),
    "bash_env": (None, "extra variable names passed to bash (secret-like names never are)"),
    "bash_memory_mb": (None, "writable memory of each process a bash call starts, in MB (0: none)"),
    "bash_processes": (None, "processes and threads a bash call may start (0: no limit)"),
    "bash_file_mb": (None, "largest file a bash call may write, in MB (0: no limit)"),
    "bash_cpu_seconds": (None, "CPU seconds of each process a bash call starts (0: no limit)"),
    "bash_output_mb": (None, "output of a bash call harness reads before it stops it (0: none)"),
    "sensitive_paths": (
        "CI, build, hook files",
        "files that run code later, whose changes need approval: comma-separated glob "
        "patterns, `+PATTERN` adds, `-PATTERN` removes a default",
    ),
    "judge_model": (
        "the run's model",
        "model a case's `judge` check asks (recorded through the test's cassette)",
    ),
    "undo_budget": (
        "64 MiB",
        "bytes of prior content one change may keep in the undo journal; more pauses it",
    ),
    "apply_budget": (
        "256 MiB",
        "new bytes one change may write; more (or a sparse file) pauses it",
    ),
    "mcp_servers": (
        "none",
        "a JSON file in the `mcpServers` shape; those servers' tools join the builtins as "
        "`<server>__<tool>` (extra `mcp`)",
    ),
    "otel": (
        None,
        "`off`, `console` (stderr), `otlp` (OTLP/HTTP; standard `OTEL_*` variables); extra `otel`",
    ),
}


class _Recorder(dict[str, str]):
    """An empty environment that remembers which names were looked up."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.append(key)
        return default


def env_variables() -> dict[str, str]:
    """Field name -> the variable ``Settings.from_env`` reads it from."""
    recorder = _Recorder()
    Settings.from_env(recorder)
    found: dict[str, str] = {}
    for variable in recorder.asked:
        field = variable.removeprefix("HARNESS_").lower()
        if field not in Settings.model_fields:
            raise ConfigurationError(
                f"Settings.from_env reads {variable}, which names no Settings field; "
                "name the variable HARNESS_<FIELD>"
            )
        found[field] = variable
    return found


def settings_rows() -> Iterator[tuple[str, str, str]]:
    """``(variable or field, default, meaning)`` for every ``Settings`` field, in field order."""
    variables = env_variables()
    for field, info in Settings.model_fields.items():
        if field not in MEANINGS:
            raise ConfigurationError(
                f"Settings.{field} has no line in harness/settings_doc.py MEANINGS; add one, "
                "then paste `python -m harness.settings_doc` into the settings table of "
                "docs/reference/settings.md"
            )
        shown, meaning = MEANINGS[field]
        if shown is None:
            shown = _default(info.default)
        name = variables.get(field)
        yield (f"`{name}`" if name else f"`{field}` (Python only)", shown, meaning)


def _default(value: Any) -> str:
    if value is None or value is PydanticUndefined or value == ():
        return "–" if value is None or value is PydanticUndefined else "empty"
    if isinstance(value, tuple):
        return f"`{','.join(map(str, value))}`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return f"`{value}`"


def settings_table() -> str:
    """The markdown table of every setting (no trailing newline)."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    lines += [f"| {name} | {default} | {meaning} |" for name, default, meaning in settings_rows()]
    return "\n".join(lines)


if __name__ == "__main__":
    print(settings_table())
