"""The environment a bash call sees: a short allowlist, never a secret.

The harness process holds provider keys, the Feishu secret, the approval key and
``HARNESS_*`` settings that point at the state dir. None of it may reach a
process the agent starts, in any sandbox mode: the child gets PATH, HOME, the
locale, TERM, TZ and USER, plus the names the user lists in ``HARNESS_BASH_ENV``
unless a name looks like a secret or belongs to harness or a provider. A listed
name that is refused is logged once per tool, so the user learns why it is missing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping

from harness.core.wires import env_prefixes

__all__ = ["DEFAULT_PATH", "NON_INTERACTIVE", "EnvironmentFilter", "is_forbidden_name"]

logger = logging.getLogger(__name__)

# Used when the harness process itself has no PATH (e.g. started by a bare exec).
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Pagers and credential prompts would hang a call that has no stdin.
NON_INTERACTIVE = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}

_BASE_NAMES = frozenset({"PATH", "HOME", "LANG", "TERM", "TZ", "USER"})
# Substrings and prefixes of names that must never pass, whatever the user lists;
# the providers' prefixes (OPENAI_, ANTHROPIC_, AWS_, ...) come from the wire registry.
_PREFIXES = ("HARNESS_", "FEISHU_", *env_prefixes())
_FORBIDDEN = re.compile(
    "|".join(["KEY", "TOKEN", "SECRET", "PASSWORD", *(f"^{re.escape(p)}" for p in _PREFIXES)]),
    re.IGNORECASE,
)
_FORBIDDEN_HELP = ", ".join(
    ["*KEY*", "*TOKEN*", "*SECRET*", "*PASSWORD*", *(f"{p}*" for p in _PREFIXES)]
)
# Variables that name a way into another process (an agent's, a multiplexer's, a bus):
# never passed, listed or not. The seccomp filter refuses unix sockets anyway;
# this keeps the addresses themselves out of the call.
_SOCKET_NAMES = frozenset(
    {
        "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "TMUX", "TMUX_PANE",
        "TMUX_TMPDIR", "STY", "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS",
        "DOCKER_HOST", "CONTAINER_HOST", "XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "DISPLAY",
        "XAUTHORITY", "KITTY_LISTEN_ON", "NVIM", "NVIM_LISTEN_ADDRESS", "VSCODE_IPC_HOOK_CLI",
        "PULSE_SERVER", "NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "SYSTEMD_EXEC_PID",
    }
)  # fmt: skip
_SOCKET_LIKE = re.compile(r"_SOCK$|SOCKET|_IPC", re.IGNORECASE)
_VALID_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_forbidden_name(name: str) -> bool:
    """True for a secret-looking name, one of harness or a provider, or a socket address."""
    return (
        _FORBIDDEN.search(name) is not None
        or name.upper() in _SOCKET_NAMES
        or _SOCKET_LIKE.search(name) is not None
    )


class EnvironmentFilter:
    """The variables a bash call may see; built once per tool, applied per call.

    Args:
        extra_names: names from ``HARNESS_BASH_ENV``. Forbidden or malformed
            names are dropped, each with one warning when the filter is built.
    """

    def __init__(self, extra_names: Iterable[str] = ()) -> None:
        allowed = set(_BASE_NAMES)
        for name in dict.fromkeys(extra_names):
            if not _VALID_NAME.fullmatch(name):
                logger.warning("HARNESS_BASH_ENV: %r is not a variable name; ignored", name)
            elif is_forbidden_name(name):
                logger.warning(
                    "HARNESS_BASH_ENV: %r is never passed to bash: it looks like a secret, "
                    "belongs to harness or a provider (%s) or names another process's socket "
                    "(SSH_AUTH_SOCK, TMUX, DBUS_SESSION_BUS_ADDRESS, DOCKER_HOST, ...)",
                    name,
                    _FORBIDDEN_HELP,
                )
            else:
                allowed.add(name)
        self.allowed: frozenset[str] = frozenset(allowed)

    def apply(self, source: Mapping[str, str]) -> dict[str, str]:
        """The allowed part of ``source`` plus the non-interactive overrides."""
        env = {
            name: value
            for name, value in source.items()
            if (name in self.allowed or name.startswith("LC_")) and not is_forbidden_name(name)
        }
        env.setdefault("PATH", DEFAULT_PATH)
        env.update(NON_INTERACTIVE)
        return env
