"""DefaultRiskPolicy: which tool calls a human must approve before they run.

The policy reads only the tool name and its arguments (plus the workdir, to
resolve paths); it never runs anything. Three families of risk are judged:

* ``bash``: dangerous programs found by ``shell_parse.resolve_commands`` (so
  quoting, wrappers and ``bash -c`` strings cannot hide them), downloads piped
  into an interpreter, and redirections that write sensitive files.
* ``write`` / ``edit``: sensitive paths (``.env*``, ``pyproject.toml``,
  lockfiles, CI config, any path component containing "secret" or "key").
* ``edit``: large deletions, counted from the arguments alone.

Whatever cannot be judged (unparseable shell, missing arguments, a tool listed
as required but unknown to this policy) needs approval: the policy fails closed.
"""

from __future__ import annotations

import itertools
import os
import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from harness.approval.shell_parse import ResolvedCommand, ShellParseError, resolve_commands
from harness.tools.execution import ToolExecutionContext

__all__ = [
    "DefaultRiskPolicy",
    "RiskDecision",
    "RiskLevel",
    "RiskVerdict",
    "count_deleted_lines",
    "sensitive_path_reason",
    "shell_command_reasons",
]


class RiskVerdict(StrEnum):
    """What should happen to a tool call."""

    ALLOW = "allow"
    DENY = "deny"
    APPROVAL_REQUIRED = "approval_required"


class RiskLevel(StrEnum):
    """How risky a call is: ``high`` whenever it is not simply allowed."""

    LOW = "low"
    HIGH = "high"


@dataclass(frozen=True, slots=True)
class RiskDecision:
    """The policy's answer for one tool call.

    Attributes:
        verdict: allow, deny or approval_required.
        reasons: human-readable reasons, shown to the approver; empty when allowed.
        risk_level: ``high`` whenever the call is not simply allowed.
    """

    verdict: RiskVerdict
    reasons: tuple[str, ...] = ()
    risk_level: RiskLevel = RiskLevel.LOW

    @classmethod
    def allow(cls) -> RiskDecision:
        return cls(RiskVerdict.ALLOW)

    @classmethod
    def approval_required(cls, reasons: Iterable[str]) -> RiskDecision:
        return cls(RiskVerdict.APPROVAL_REQUIRED, _unique(reasons), RiskLevel.HIGH)

    @classmethod
    def deny(cls, reasons: Iterable[str]) -> RiskDecision:
        return cls(RiskVerdict.DENY, _unique(reasons), RiskLevel.HIGH)

    @property
    def requires_approval(self) -> bool:
        return self.verdict is RiskVerdict.APPROVAL_REQUIRED


class DefaultRiskPolicy:
    """Judges ``bash``, ``write`` and ``edit`` calls by their arguments.

    It never denies on its own: a risky call needs approval, so a human can still
    let a legitimate lockfile update or release through.

    Args:
        required_tools: tools this policy judges; any other tool is allowed.
            ``read`` (when listed) is judged by its path like ``write``; a listed
            tool the policy has no rules for always needs approval.
        large_deletion_lines: an edit deleting at least this many lines needs
            approval.
    """

    def __init__(
        self,
        required_tools: Iterable[str] = ("bash", "write", "edit"),
        large_deletion_lines: int = 20,
    ) -> None:
        self.required_tools = tuple(required_tools)
        self.large_deletion_lines = large_deletion_lines

    def evaluate(self, ctx: ToolExecutionContext) -> RiskDecision:
        """Judge the call in ``ctx`` (its tool name, arguments and workdir)."""
        return self.evaluate_call(ctx.tool_name, ctx.arguments, workdir=ctx.tool_input.workdir)

    def evaluate_call(
        self, tool_name: str, arguments: Mapping[str, Any], *, workdir: Path | None = None
    ) -> RiskDecision:
        """Judge a call without a context; ``workdir`` lets paths be resolved."""
        if tool_name not in self.required_tools:
            return RiskDecision.allow()
        if tool_name == "bash":
            reasons = shell_command_reasons(arguments.get("command"), workdir)
        elif tool_name in ("write", "read"):
            action = "write to" if tool_name == "write" else "read of"
            reasons = _path_reasons(action, arguments.get("path"), workdir)
        elif tool_name == "edit":
            reasons = _path_reasons("edit of", arguments.get("path"), workdir)
            reasons += self._deletion_reasons(arguments)
        else:
            reasons = [f"tool {tool_name!r} always requires approval (no finer rules for it)"]
        return RiskDecision.approval_required(reasons) if reasons else RiskDecision.allow()

    def _deletion_reasons(self, arguments: Mapping[str, Any]) -> list[str]:
        deleted = count_deleted_lines(arguments)
        if deleted < self.large_deletion_lines:
            return []
        return [
            f"large deletion: edit removes {deleted} lines of {arguments.get('path')} "
            f"(threshold {self.large_deletion_lines})"
        ]


# ---------------------------------------------------------------- edit size


def count_deleted_lines(arguments: Mapping[str, Any]) -> int:
    """Lines an ``edit`` call removes, from its arguments alone.

    Each replacement counts ``(lines in old_text - lines in new_text) *
    expected_replacements``, never below zero, summed over ``edits`` when given,
    so one growing replacement cannot hide a shrinking one.
    """
    edits = arguments.get("edits")
    items = edits if isinstance(edits, list) else [arguments]
    total = 0
    for item in items:
        if not isinstance(item, Mapping):
            continue
        old, new = item.get("old_text"), item.get("new_text")
        times = item.get("expected_replacements", 1)
        if isinstance(times, bool) or not isinstance(times, int) or times < 1:
            times = 1
        removed = _line_count(old) - _line_count(new)
        total += max(removed, 0) * times
    return total


def _line_count(text: object) -> int:
    return len(text.splitlines()) if isinstance(text, str) else 0


# ----------------------------------------------------------- sensitive paths

_LOCKFILES = frozenset(
    {"poetry.lock", "uv.lock", "package-lock.json", "yarn.lock", "pnpm-lock.yaml",
     "cargo.lock", "gemfile.lock", "go.sum", "pipfile.lock", "composer.lock"}
)  # fmt: skip


def sensitive_path_reason(path: str, workdir: Path | None = None) -> str | None:
    """Why writing ``path`` is sensitive, or None when it is not.

    Paths are judged relative to ``workdir`` (so a workdir that happens to live
    under ``/home/keyboard`` does not make every file sensitive), both as
    written and, when a workdir is given, with symlinks resolved.
    """
    for parts in _path_variants(path, workdir):
        reason = _parts_reason(parts)
        if reason is not None:
            return reason
    return None


def _path_variants(path: str, workdir: Path | None) -> list[tuple[str, ...]]:
    text = path.replace("\\", "/")
    if workdir is None:
        return [_parts(text)]
    root = posixpath.normpath(workdir.as_posix())
    variants = [_relative_to(posixpath.normpath(posixpath.join(root, text)), root)]
    try:
        real_root = os.path.realpath(root)
        real = os.path.realpath(posixpath.join(real_root, text))
    except (OSError, ValueError):
        return [_parts(v) for v in variants]  # e.g. a NUL byte: the tool refuses it anyway
    variants.append(_relative_to(real, real_root))
    return [_parts(v) for v in variants]


def _relative_to(path: str, root: str) -> str:
    if path == root or path.startswith(root.rstrip("/") + "/"):
        return posixpath.relpath(path, root)
    return path


def _parts(path: str) -> tuple[str, ...]:
    return tuple(p for p in posixpath.normpath(path).lower().split("/") if p not in ("", "."))


def _parts_reason(parts: tuple[str, ...]) -> str | None:
    if not parts:
        return None
    base = parts[-1]
    for part in parts:
        if part.startswith(".env"):
            return "environment file"
    if base == "pyproject.toml":
        return "project configuration"
    if base in _LOCKFILES:
        return "dependency lockfile"
    if any(a == ".github" and b == "workflows" for a, b in itertools.pairwise(parts)):
        return "CI workflow"
    if any(part.startswith(".gitlab-ci") for part in parts):
        return "CI configuration"
    for word in ("secret", "key"):
        if any(word in part for part in parts):
            return f"path contains {word!r}"
    return None


def _path_reasons(action: str, path: object, workdir: Path | None) -> list[str]:
    if not isinstance(path, str) or not path.strip():
        return [f"{action} a file whose path argument is missing or not text (cannot be judged)"]
    reason = sensitive_path_reason(path, workdir)
    return [f"{action} sensitive file: {path} ({reason})"] if reason else []


# --------------------------------------------------------------- shell rules

_PROGRAMS: dict[str, str] = {
    **dict.fromkeys(("rm", "unlink", "rimraf"), "deletes files"),
    "rmdir": "deletes directories",
    "shred": "destroys file contents",
    **dict.fromkeys(("sudo", "su", "doas", "pkexec", "run0"), "runs with elevated privileges"),
    "chmod": "changes file permissions",
    **dict.fromkeys(("chown", "chgrp"), "changes file ownership"),
    **dict.fromkeys(("kill", "pkill", "killall"), "kills processes"),
    "dd": "writes raw data to files or devices",
    **dict.fromkeys(("fdisk", "sfdisk", "parted", "wipefs", "mkswap"), "changes disk partitions"),
    **dict.fromkeys(("goreleaser", "semantic-release"), "publishes a release"),
}
_DOWNLOADERS = frozenset({"curl", "wget", "fetch", "http", "https", "aria2c"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish"})
_INTERPRETERS = _SHELLS | {"perl", "ruby", "node", "nodejs", "php", "lua", "deno", "bun"}
_PYTHON = re.compile(r"(python|pypy)[0-9.]*")
_DOWNLOAD_OUTPUT_FLAGS = frozenset({"-o", "--output", "-O", "--output-document"})
_INLINE_PROGRAM_FLAGS = frozenset({"-c", "-m", "-e", "-E", "-r"})
_RELEASE_WORD = re.compile(r"(?<![a-z])(deploy|publish|release|unpublish)")
_NOT_RELEASE = frozenset({"lsb_release"})
_RELEASE_TOOLS = frozenset(
    {"make", "npm", "pnpm", "yarn", "bun", "cargo", "poetry", "uv", "hatch", "flit", "pdm",
     "rye", "fly", "flyctl", "firebase", "vercel", "netlify", "serverless", "sls", "heroku",
     "mvn", "gradle", "gradlew", "just", "task", "invoke", "rake", "dotnet", "helm", "lerna",
     "changeset", "cdk", "sam", "gcloud", "az", "eb", "nox", "tox"}
)  # fmt: skip
_RELEASE_SUBCOMMANDS = {
    "twine": {"upload"}, "docker": {"push"}, "podman": {"push"}, "gem": {"push"},
    "terraform": {"apply", "destroy"}, "pulumi": {"up", "destroy"}, "kubectl": {"apply", "delete"},
}  # fmt: skip
_GIT_OPTIONS_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
_PLAIN_WORD = re.compile(r"[^\s'\"\\;&|<>()`]+")
_BLOCK_DEVICE = re.compile(r"/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|mapper/)")


def shell_command_reasons(command: object, workdir: Path | None = None) -> list[str]:
    """Reasons a ``bash`` command needs approval; empty when it looks safe."""
    if not isinstance(command, str):
        return ["shell command is missing or not text (cannot be judged)"]
    try:
        commands = resolve_commands(command)
    except ShellParseError as exc:
        return [f"shell command could not be parsed ({exc}); it cannot be judged"]
    reasons: list[str] = []
    downloaded = _downloaded_files(commands)
    for resolved in commands:
        if resolved.dynamic_name:
            reasons.append(
                f"shell command runs a program chosen at run time: {_show(resolved)} "
                "(cannot be judged)"
            )
            continue
        reasons.extend(
            f"dangerous shell command: {_show(resolved)} ({why})"
            for rule in _SHELL_RULES
            if (why := rule(resolved)) is not None
        )
        if _runs_file(resolved, downloaded):
            reasons.append(f"dangerous shell command: {_show(resolved)} (runs a downloaded script)")
        for target in _written_files(resolved):
            why = _write_target_reason(target, workdir)
            if why is not None:
                reasons.append(f"shell command writes to sensitive file: {target} ({why})")
    return reasons


def _downloaded_files(commands: Iterable[ResolvedCommand]) -> frozenset[str]:
    """Basenames of files a downloader in the same command line writes."""
    names: set[str] = set()
    for command in commands:
        if command.name not in _DOWNLOADERS:
            continue
        argv = command.argv
        names.update(command.write_targets)
        names.update(v for o, v in itertools.pairwise(argv) if o in _DOWNLOAD_OUTPUT_FLAGS)
        if command.name == "wget" and not _DOWNLOAD_OUTPUT_FLAGS.intersection(argv):
            names.update(a for a in argv[1:] if "://" in a)  # wget saves under the URL's name
    return frozenset(n.rstrip("/").rsplit("/", 1)[-1] for n in names if n not in ("-", ""))


def _runs_file(command: ResolvedCommand, downloaded: frozenset[str]) -> bool:
    if not downloaded or not command.argv:
        return False
    if "/" in command.argv[0] and command.argv[0].rsplit("/", 1)[-1] in downloaded:
        return True  # ./install.sh
    runs_code = command.name in ("source", ".") or _is_interpreter(command.name)
    operands = [a for a in command.argv[1:] if not a.startswith("-")]
    return runs_code and bool(operands) and operands[0].rsplit("/", 1)[-1] in downloaded


def _show(command: ResolvedCommand) -> str:
    # Quote only what would read ambiguously: ``git reset --hard HEAD~1`` stays as typed.
    text = " ".join(a if _PLAIN_WORD.fullmatch(a) else shlex.quote(a) for a in command.argv)
    return text if len(text) <= 120 else text[:117] + "..."


def _program_rule(command: ResolvedCommand) -> str | None:
    if command.name.startswith("mkfs"):
        return "formats a filesystem"
    return _PROGRAMS.get(command.name)


def _git_rule(command: ResolvedCommand) -> str | None:
    if command.name != "git":
        return None
    args = list(command.argv[1:])
    while args and args[0].startswith("-"):
        args = args[2:] if args[0] in _GIT_OPTIONS_WITH_VALUE else args[1:]
    if not args:
        return None
    sub, rest = args[0], args[1:]
    flags = [a for a in rest if a.startswith("-")]
    if sub == "reset" and "--hard" in rest:
        return "discards uncommitted changes"
    if sub == "clean" and not any(f == "--dry-run" or _short_flag(f, "n") for f in flags):
        return "deletes untracked files"
    if sub == "push":
        positional = [a for a in rest if not a.startswith("-")]
        if any(
            f in ("--force", "--mirror") or f.startswith("--force-") or _short_flag(f, "f")
            for f in flags
        ) or any(p.startswith("+") for p in positional):
            return "force-pushes, rewriting remote history"
        if "--delete" in flags or any(_short_flag(f, "d") for f in flags):
            return "deletes a remote branch"
        if any(p.startswith(":") for p in positional):
            return "deletes a remote branch"
    return None


def _short_flag(flag: str, letter: str) -> bool:
    return flag.startswith("-") and not flag.startswith("--") and letter in flag[1:]


def _find_rule(command: ResolvedCommand) -> str | None:
    if command.name == "find" and "-delete" in command.argv:
        return "deletes files"
    return None


def _is_interpreter(name: str) -> bool:
    return name in _INTERPRETERS or _PYTHON.fullmatch(name) is not None


def _reads_program_from_stdin(argv: tuple[str, ...]) -> bool:
    for arg in argv[1:]:
        if arg in ("-", "-s"):
            return True
        if arg in _INLINE_PROGRAM_FLAGS or (_short_flag(arg, "c") and len(arg) <= 4):
            return False
        if not arg.startswith(("-", "+")):
            return False
    return True


def _pipe_rule(command: ResolvedCommand) -> str | None:
    name = command.name
    runs_code = name in ("source", ".", "eval") or _is_interpreter(name)
    if runs_code and _DOWNLOADERS.intersection(command.fed_by):
        return "runs a downloaded script"
    if not (_is_interpreter(name) and command.upstream):
        return None
    if not _reads_program_from_stdin(command.argv):
        return None
    if _DOWNLOADERS.intersection(command.upstream):
        return "runs a downloaded script piped into it"
    return "runs piped input as a program"


def _release_rule(command: ResolvedCommand) -> str | None:
    name = command.name
    if name not in _NOT_RELEASE and _RELEASE_WORD.search(name.split(".", 1)[0]):
        return "deploys or publishes"
    operands = [a.lower() for a in command.argv[1:] if not a.startswith("-")]
    if _is_interpreter(name) and operands and _reads_script(command.argv):
        script = operands[0].rsplit("/", 1)[-1]
        if _RELEASE_WORD.search(script):
            return "runs a deploy or release script"
    if name in _RELEASE_TOOLS and any(_RELEASE_WORD.match(a) for a in operands[:3]):
        return "deploys or publishes"
    if name == "gh" and operands[:1] == ["release"] and operands[1:2] != ["list"]:
        return "publishes a release"
    if operands and operands[0] in _RELEASE_SUBCOMMANDS.get(name, ()):
        return "deploys or publishes"
    return None


def _reads_script(argv: tuple[str, ...]) -> bool:
    return not any(a in _INLINE_PROGRAM_FLAGS or _short_flag(a, "c") for a in argv[1:])


_SHELL_RULES: tuple[Callable[[ResolvedCommand], str | None], ...] = (
    _program_rule,
    _git_rule,
    _find_rule,
    _pipe_rule,
    _release_rule,
)


def _written_files(command: ResolvedCommand) -> list[str]:
    targets = list(command.write_targets)
    operands = [a for a in command.argv[1:] if not a.startswith("-")]
    if command.name == "tee":
        targets.extend(operands)
    elif command.name in ("cp", "mv", "install", "ln") and len(operands) >= 2:
        targets.append(operands[-1])
    return targets


def _write_target_reason(target: str, workdir: Path | None) -> str | None:
    if _BLOCK_DEVICE.match(target):
        return "a block device"
    return sensitive_path_reason(target, workdir)


def _unique(reasons: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(reasons))
