"""The tool seam: what a tool is, what it receives, what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from harness.session import SessionRef

__all__ = ["Tool", "ToolInput", "ToolOutput"]


@dataclass(frozen=True, slots=True)
class ToolInput:
    """Everything a tool may use: parsed arguments and where it runs."""

    arguments: dict[str, Any]
    workdir: Path
    session: SessionRef | None = None
    visible_tool_names: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """A richer return value than ``str``: the observation text plus metadata.

    ``metadata`` reaches the trace and the tool result (e.g. edit flags large
    deletions); it never reaches the model.
    """

    text: str
    metadata: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Tool(Protocol):
    """A capability the model can call.

    Contract: ``run`` returns the observation the model will read (a ``str`` or a
    ``ToolOutput``). It raises ``ToolError`` for input it refuses, with a message
    that tells the model how to fix the call; any other exception is a bug and the
    executor reports it as an error observation. ``parameters`` is a JSON schema
    for the arguments object.
    """

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> dict[str, Any]: ...

    def run(self, tool_input: ToolInput) -> str | ToolOutput: ...
