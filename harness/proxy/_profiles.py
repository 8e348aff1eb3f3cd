"""Profiles: the per-run values of agents that run as their own process, by name.

- ``codex`` (OpenAI Codex CLI, Responses wire): ``client_metadata`` and
  ``prompt_cache_key`` change every run, and so do the ids of input items; the
  output of its shell tool opens with a ``Chunk ID`` and a ``Wall time``
  line; its environment context names the working folder (``<cwd>``,
  ``<root>``) and the date; its skills table names folders under ``CODEX_HOME``.
- ``claude-code`` (Claude Code, and the Claude Agent SDK that drives it,
  Messages wire): ``metadata.user_id`` is a per-install, per-session id; its
  system prompt names the working directory and today's date, its environment
  reminder the primary working directory and the kernel's version.

Both pin the date and working-folder lines of the system prompt to
placeholders. A test adds its own rules (``normalize={regex: placeholder}``)
beside a profile's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from harness.core.errors import ConfigurationError
from harness.proxy._normalise import RequestNormaliser, TextRule

__all__ = ["PROFILES", "ProxyProfile", "normaliser_for", "profile"]


@dataclass(frozen=True, slots=True)
class ProxyProfile:
    """The body fields and text a profile pins to placeholders."""

    name: str
    ignore_body_fields: tuple[str, ...]
    rules: tuple[TextRule, ...]
    # Variables the agent's process gets under ``llm_proxy`` (its own switches).
    env: tuple[tuple[str, str], ...] = ()


_DATE = r"\d{4}-\d{2}-\d{2}"
# The lines both agents write into their system prompt or environment context.
_SHARED = (
    # Claude Code: "Today's date: 2026-12-03" (older: "Today's date is 2026-12-03.").
    TextRule(rf"(Today's date(?: is|:) ){_DATE}", r"\1<date>"),
    TextRule(r"(?m)^(Working directory: ).+$", r"\1<workdir>"),
    # Codex's <environment_context>.
    TextRule(r"<cwd>[^<]*</cwd>", "<cwd><workdir></cwd>"),
    TextRule(rf"<current_date>{_DATE}</current_date>", "<current_date><date></current_date>"),
)

PROFILES: dict[str, ProxyProfile] = {
    "codex": ProxyProfile(
        name="codex",
        ignore_body_fields=("client_metadata", "prompt_cache_key", "input.*.id"),
        rules=(
            *_SHARED,
            TextRule(r"(?m)^(Chunk ID: )\S+$", r"\1<chunk-id>"),
            TextRule(r"(?m)^(Wall time: )[0-9.]+( seconds?)$", r"\1<wall-time>\2"),
            # Its environment context also lists the workspace roots (the working
            # folder again), and its skills table the folders skills are read from
            # (under CODEX_HOME, a fresh folder per test).
            TextRule(r"<root>[^<]*</root>", "<root><workdir></root>"),
            TextRule(r"(?m)^(- `r\d+` = `)[^`\n]+(`)$", r"\1<skill-root>\2"),
        ),
    ),
    "claude-code": ProxyProfile(
        name="claude-code",
        ignore_body_fields=("metadata.user_id",),
        rules=(
            *_SHARED,
            # Its environment reminder (Claude Code 2.1): the working folder again,
            # and the kernel the run happened on.
            TextRule(r"(?m)^( - Primary working directory: ).+$", r"\1<workdir>"),
            TextRule(r"(?m)^( - OS Version: ).+$", r"\1<os-version>"),
            # The budget left after the last answer: its token count follows the
            # length of the prompt as sent, working folder included.
            TextRule(
                r"<total_tokens>\d+ tokens left</total_tokens>",
                "<total_tokens><n> tokens left</total_tokens>",
            ),
        ),
        # Claude Code's own switch: no telemetry, error reports, update checks
        # or title requests, only the model calls of the task.
        env=(("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),),
    ),
}


def profile(name: str) -> ProxyProfile:
    """The profile called ``name``.

    Raises:
        ConfigurationError: no such profile (the message lists the known ones).
    """
    found = PROFILES.get(name)
    if found is None:
        raise ConfigurationError(
            f"unknown proxy profile {name!r}; known: {', '.join(sorted(PROFILES))}"
        )
    return found


def normaliser_for(
    profiles: Iterable[str],
    ignore_body_fields: Iterable[str] = (),
    normalize: Iterable[tuple[str, str]] = (),
) -> RequestNormaliser:
    """The normaliser of ``profiles``, a test's own fields and ``(regex, placeholder)`` rules."""
    chosen = [profile(name) for name in profiles]
    fields = [f for p in chosen for f in p.ignore_body_fields] + list(ignore_body_fields)
    rules = [r for p in chosen for r in p.rules]
    rules += [TextRule(pattern, placeholder) for pattern, placeholder in normalize]
    return RequestNormaliser(dict.fromkeys(fields), dict.fromkeys(rules))
