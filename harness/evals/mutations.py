"""Mutation operators: perturbed model-response sequences derived from a recorded one.

Each operator models a way a model could go wrong while the eval's scaffolding
stays the same: it skips a tool call, calls tools in another order, passes a
wrong argument, garbles or refuses its final answer, answers without working,
or repeats itself. A mutant is the whole sequence with one such change; it is
served positionally (see ``harness.evals.mutants``), so the eval's own
assertions, not a cassette miss, decide whether it is killed.

A *final* is a response without tool calls. Mutants that leave the sequence
unchanged (swapping two identical calls) are not produced.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from harness.core.errors import ProviderError
from harness.core.messages import LLMResponse, ToolCall

__all__ = [
    "REFUSAL",
    "Mutant",
    "Recorded",
    "altered_markers",
    "corrupt_value",
    "derive_mutants",
    "primary_key",
    "without_markers",
]

Recorded = LLMResponse | ProviderError
REFUSAL = "I can't help with that."
# SENTINEL-README-ORBIT-4417, RELEASE-2093-X: upper-case words and digits joined by dashes.
_MARKER = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+){1,}\b")
_PATH_KEYS = ("path", "file_path", "filename", "file", "command", "url", "query", "pattern")


@dataclass(frozen=True, slots=True)
class Mutant:
    """One perturbed sequence: ``id`` is ``<operator>.<site>`` (1-based), stable per cassette."""

    id: str
    operator: str
    description: str
    responses: tuple[Recorded, ...]


def _finals(seq: tuple[Recorded, ...]) -> list[int]:
    return [i for i, r in enumerate(seq) if isinstance(r, LLMResponse) and not r.tool_calls]


def _calls(seq: tuple[Recorded, ...]) -> list[tuple[int, int, ToolCall]]:
    return [
        (i, j, call)
        for i, r in enumerate(seq)
        if isinstance(r, LLMResponse)
        for j, call in enumerate(r.tool_calls)
    ]


def _show(call: ToolCall) -> str:
    args = ", ".join(f"{k}={_clip(v)}" for k, v in list(call.arguments.items())[:2])
    return f"{call.name}({args})"


def _clip(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _replace(seq: tuple[Recorded, ...], index: int, new: Recorded | None) -> tuple[Recorded, ...]:
    return seq[:index] + (() if new is None else (new,)) + seq[index + 1 :]


def _with_calls(response: LLMResponse, calls: tuple[ToolCall, ...]) -> LLMResponse | None:
    if not calls and not response.text:
        return None  # nothing left: the model skipped this step altogether
    return response.model_copy(update={"tool_calls": calls})


def _drop_call(seq: tuple[Recorded, ...]) -> Iterator[tuple[str, tuple[Recorded, ...]]]:
    for i, j, call in _calls(seq):
        response = seq[i]
        assert isinstance(response, LLMResponse)
        calls = response.tool_calls[:j] + response.tool_calls[j + 1 :]
        yield f"drop call {_show(call)}", _replace(seq, i, _with_calls(response, calls))


def _swap_calls(seq: tuple[Recorded, ...]) -> Iterator[tuple[str, tuple[Recorded, ...]]]:
    for i, r in enumerate(seq):
        if isinstance(r, LLMResponse) and len(r.tool_calls) >= 2:
            first, second, *rest = r.tool_calls
            swapped = r.model_copy(update={"tool_calls": (second, first, *rest)})
            yield (
                f"swap calls {first.name} and {second.name} in response {i + 1}",
                _replace(seq, i, swapped),
            )


def _swap_turns(seq: tuple[Recorded, ...]) -> Iterator[tuple[str, tuple[Recorded, ...]]]:
    for i in range(len(seq) - 1):
        a, b = seq[i], seq[i + 1]
        if (
            isinstance(a, LLMResponse)
            and isinstance(b, LLMResponse)
            and a.tool_calls
            and b.tool_calls
        ):
            yield f"swap tool-call responses {i + 1} and {i + 2}", ((*seq[:i], b, a, *seq[i + 2 :]))


def _shift(text: str) -> str:
    """Every digit +1 and every letter one on (9->0, Z->A): same shape, other value."""
    out = []
    for ch in text:
        if "0" <= ch <= "9":
            out.append(str((int(ch) + 1) % 10))
        elif "A" <= ch <= "Z":
            out.append(chr((ord(ch) - 65 + 1) % 26 + 65))
        elif "a" <= ch <= "z":
            out.append(chr((ord(ch) - 97 + 1) % 26 + 97))
        else:
            out.append(ch)
    return "".join(out)


def corrupt_value(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        if ("/" in value or "." in value) and not any(c.isspace() for c in value):
            # a path: the same folder, another file name
            head, _, name = value.rpartition("/")
            return f"{head}/mutant-{name}" if head else f"mutant-{name}"
        return f"{_shift(value)} (mutated)" if value else "mutated"
    if isinstance(value, list):
        return value[1:] if value else ["mutated"]
    return "mutated"


def primary_key(arguments: dict[str, Any]) -> str | None:
    for key in _PATH_KEYS:
        if key in arguments:
            return key
    return next(iter(arguments), None)


def _corrupt_arg(seq: tuple[Recorded, ...]) -> Iterator[tuple[str, tuple[Recorded, ...]]]:
    for i, j, call in _calls(seq):
        key = primary_key(call.arguments)
        if key is None:
            continue
        old = call.arguments[key]
        new = corrupt_value(old)
        changed = call.model_copy(update={"arguments": {**call.arguments, key: new}})
        response = seq[i]
        assert isinstance(response, LLMResponse)
        calls = (*response.tool_calls[:j], changed, *response.tool_calls[j + 1 :])
        yield (
            f"corrupt {call.name} argument {key}: {_clip(old)} -> {_clip(new)}",
            _replace(seq, i, response.model_copy(update={"tool_calls": calls})),
        )


def _corrupt_content(seq: tuple[Recorded, ...]) -> Iterator[tuple[str, tuple[Recorded, ...]]]:
    """Alter the longest other string argument (content, new_text): the right file, wrong data."""
    for i, j, call in _calls(seq):
        primary = primary_key(call.arguments)
        others = [
            (len(v), k) for k, v in call.arguments.items() if k != primary and isinstance(v, str)
        ]
        if not others:
            continue
        key = max(others)[1]
        old = call.arguments[key]
        shifted = _shift(old)
        new = shifted if shifted != old else f"{old} (mutated)"
        changed = call.model_copy(update={"arguments": {**call.arguments, key: new}})
        response = seq[i]
        assert isinstance(response, LLMResponse)
        calls = (*response.tool_calls[:j], changed, *response.tool_calls[j + 1 :])
        yield (
            f"corrupt {call.name} argument {key}: {_clip(old)} -> {_clip(new)}",
            _replace(seq, i, response.model_copy(update={"tool_calls": calls})),
        )


def _final_text_mutants(
    label: str, change: Callable[[str], str | None]
) -> Callable[[tuple[Recorded, ...]], Iterator[tuple[str, tuple[Recorded, ...]]]]:
    def operator(seq: tuple[Recorded, ...]) -> Iterator[tuple[str, tuple[Recorded, ...]]]:
        for n, i in enumerate(_finals(seq), start=1):
            response = seq[i]
            assert isinstance(response, LLMResponse)
            text = change(response.text)
            if text is not None and text != response.text:
                new = response.model_copy(update={"text": text})
                yield f"{label} in final answer {n}", _replace(seq, i, new)

    return operator


def without_markers(text: str) -> str | None:
    if _MARKER.search(text):
        return re.sub(r"[ \t]{2,}", " ", _MARKER.sub("", text))
    return re.sub(r"[0-9]", "", text) if re.search(r"[0-9]", text) else None


def altered_markers(text: str) -> str | None:
    if _MARKER.search(text):
        return _MARKER.sub(lambda m: _alter_marker(m.group(0)), text)
    return (
        re.sub(r"[0-9]", lambda m: str((int(m.group(0)) + 1) % 10), text)
        if re.search(r"[0-9]", text)
        else None
    )


def _alter_marker(marker: str) -> str:
    head, _, last = marker.rpartition("-")
    return f"{head}-{_shift(last)}"


def _stop_early(seq: tuple[Recorded, ...]) -> Iterator[tuple[str, tuple[Recorded, ...]]]:
    finals = _finals(seq)
    if finals and _calls(seq):
        yield "answer at step 1 with the recorded final answer, no tool used", (seq[finals[-1]],)


def _repeat_call(seq: tuple[Recorded, ...]) -> Iterator[tuple[str, tuple[Recorded, ...]]]:
    for i, j, call in _calls(seq):
        response = seq[i]
        assert isinstance(response, LLMResponse)
        again = call.model_copy(update={"id": f"{call.id}_again"})
        calls = (*response.tool_calls[: j + 1], again, *response.tool_calls[j + 1 :])
        yield (
            f"repeat call {_show(call)}",
            _replace(seq, i, response.model_copy(update={"tool_calls": calls})),
        )


_OPERATORS: tuple[
    tuple[str, Callable[[tuple[Recorded, ...]], Iterator[tuple[str, tuple[Recorded, ...]]]]], ...
] = (
    ("drop_call", _drop_call),
    ("swap_calls", _swap_calls),
    ("swap_turns", _swap_turns),
    ("corrupt_arg", _corrupt_arg),
    ("corrupt_content", _corrupt_content),
    ("drop_marker", _final_text_mutants("remove markers/digits", without_markers)),
    ("alter_marker", _final_text_mutants("alter markers/digits", altered_markers)),
    ("refuse", _final_text_mutants("refusal", lambda _text: REFUSAL)),
    ("stop_early", _stop_early),
    ("repeat_call", _repeat_call),
)


def derive_mutants(recorded: tuple[Recorded, ...]) -> list[Mutant]:
    """Every applicable mutant of ``recorded``, in a stable order."""
    mutants: list[Mutant] = []
    for operator, derive in _OPERATORS:
        for site, (description, responses) in enumerate(derive(recorded), start=1):
            if responses != recorded:
                mutants.append(Mutant(f"{operator}.{site}", operator, description, responses))
    return mutants
