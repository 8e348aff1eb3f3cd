"""Building the messages of a run and keeping them inside a size budget."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.core.messages import Message, Role
from harness.engine._run_types import Phase, RunMode
from harness.session import MemoryEntry

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "BuiltContext",
    "CompactionResult",
    "ContextBuilder",
    "ContextCompactor",
]

# The prompt names no absolute path: requests stay identical wherever the
# workdir lives, so recorded cassettes replay on any machine.
DEFAULT_SYSTEM_PROMPT = (
    "You are harness, a careful software agent working in a project directory; every "
    "path you use is relative to it. Use the tools you are given to look before you "
    "change anything, keep changes small, and finish with a short answer that says "
    "what you did and found."
)

_PHASE_NOTES = {
    Phase.PLAN: (
        "You are planning. Do not change anything. Reply with a short numbered TODO "
        "plan for the task."
    ),
    Phase.THINK: "Think the task through and answer directly; no tools are available.",
}


@dataclass(frozen=True, slots=True)
class BuiltContext:
    """The opening messages of a run; ``pinned`` leading messages are never compacted."""

    messages: list[Message]
    pinned: int
    prompt_index: int


class ContextBuilder:
    """System prompt + recent session memory + the prompt."""

    def __init__(self, system_prompt: str = DEFAULT_SYSTEM_PROMPT, memory_limit: int = 20) -> None:
        self.system_prompt = system_prompt
        self.memory_limit = memory_limit

    def build(
        self,
        prompt: str,
        *,
        workdir: Path,
        memory: Sequence[MemoryEntry] = (),
        mode: RunMode = RunMode.ACT,
        plan: str | None = None,
    ) -> BuiltContext:
        # replace, not format: a user prompt may hold other braces.
        system = self.system_prompt.replace("{workdir}", str(workdir))
        if mode is RunMode.PLAN_ACT and plan:
            system += f"\n\nThe current TODO plan for this session:\n{plan}"
        messages = [Message.system(system)]
        for entry in list(memory)[-self.memory_limit :] if self.memory_limit else ():
            if entry.role == Role.USER.value:
                messages.append(Message.user(entry.content))
            elif entry.role == Role.ASSISTANT.value:
                messages.append(Message.assistant(entry.content))
        messages.append(Message.user(prompt))
        return BuiltContext(messages, pinned=1, prompt_index=len(messages) - 1)

    @staticmethod
    def phase_note(phase: Phase) -> str | None:
        """An instruction for steps whose phase restricts the model."""
        return _PHASE_NOTES.get(phase)


@dataclass(frozen=True, slots=True)
class CompactionResult:
    messages: list[Message]
    removed_messages: int
    chars_before: int
    chars_after: int


class ContextCompactor:
    """Drops the oldest history when the context passes ``max_chars``.

    It cuts only between whole units, where an assistant message that calls
    tools and the tool results answering it form one unit, so a tool call is
    never separated from its result. Pinned messages (the system prompt) and the
    most recent ``keep_recent`` units always stay; a note says what was removed.
    """

    def __init__(self, max_chars: int = 200_000, keep_recent: int = 6) -> None:
        self.max_chars = max_chars
        self.keep_recent = max(1, keep_recent)
        # Sizes by message identity, so each step measures only the new messages;
        # the message is kept in the value so its id cannot be reused meanwhile.
        self._sizes: dict[int, tuple[Message, int]] = {}

    def measure(self, messages: Sequence[Message]) -> int:
        """Total characters of ``messages`` (content and tool-call arguments)."""
        sizes = self._sizes
        if len(sizes) > 50_000:
            sizes.clear()
        total = 0
        for message in messages:
            known = sizes.get(id(message))
            if known is None or known[0] is not message:
                known = sizes[id(message)] = (message, _size(message))
            total += known[1]
        return total

    def compact(
        self, messages: list[Message], *, pinned: int = 1, anchor: int | None = None
    ) -> CompactionResult | None:
        """Return a shorter history, or None when ``messages`` fit the budget.

        ``anchor`` is the index of the run's prompt: it always stays, in place.
        """
        total = self.measure(messages)
        if total <= self.max_chars:
            return None
        head = messages[:pinned]
        units = _units(messages[pinned:], None if anchor is None else anchor - pinned)
        budget = self.max_chars - _chars(head) - 200
        keep = [unit.anchored for unit in units]
        used = sum(_chars(unit.messages) for unit in units if unit.anchored)
        for recent, position in enumerate(range(len(units) - 1, -1, -1)):
            size = _chars(units[position].messages)
            if recent >= self.keep_recent and used + size > budget:
                break
            keep[position] = True
            used += size
        removed = [
            m for unit, kept in zip(units, keep, strict=True) if not kept for m in unit.messages
        ]
        if not removed:
            return None
        body = [m for unit, kept in zip(units, keep, strict=True) if kept for m in unit.messages]
        result = [*head, Message.system(_note(removed)), *body]
        after = _chars(result)
        if after >= total:  # the note would cost more than what it replaces
            return None
        return CompactionResult(result, len(removed), total, after)


@dataclass(slots=True)
class _Unit:
    messages: list[Message]
    anchored: bool = False


def _size(message: Message) -> int:
    return len(message.content) + sum(len(str(c.arguments)) for c in message.tool_calls)


def _chars(messages: Sequence[Message]) -> int:
    return sum(_size(m) for m in messages)


def _units(messages: Sequence[Message], anchor: int | None) -> list[_Unit]:
    units: list[_Unit] = []
    for index, message in enumerate(messages):
        if message.role is Role.TOOL and units and _open_calls(units[-1].messages):
            units[-1].messages.append(message)
        else:
            units.append(_Unit([message]))
        if index == anchor:
            units[-1].anchored = True
    return units


def _open_calls(unit: list[Message]) -> bool:
    return bool(unit[0].tool_calls) and unit[0].role is Role.ASSISTANT


def _note(removed: Sequence[Message]) -> str:
    tools = Counter(call.name for m in removed for call in m.tool_calls)
    used = ", ".join(f"{name} x{count}" for name, count in sorted(tools.items())) or "none"
    return (
        f"[Earlier context compacted: {len(removed)} older messages were removed to stay "
        f"within the context budget (tool calls among them: {used}). Re-read files if you "
        "need their contents again.]"
    )
