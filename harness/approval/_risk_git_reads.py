"""Which git commands only read: the git part of the read-only allow-list.

``risk_readers`` asks this module about ``git ...`` when bash runs where its
effects cannot be seen. A git command is read-only here when its global options
are harmless ones (no ``-c``, ``--git-dir`` or ``--exec-path``, which pick code
or a foreign repository), its subcommand only reads (``status``, ``log``,
``diff``, ``show`` ...) or is used in its listing form (``branch``, ``tag``,
``stash list``, ``config --get``), and no option writes a file or runs a
program (``--output``, ``--ext-diff``, ``grep -O``). Options are matched by
prefix, as git accepts abbreviations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.approval._risk_git import git_arguments, long_option, short_flag

__all__ = ["git_read_rule"]

_GIT_GLOBALS = frozenset(
    {"-C", "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs",
     "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects",
     "--version"}
)  # fmt: skip
_GIT_READERS = frozenset(
    {"status", "log", "diff", "show", "blame", "annotate", "ls-files", "ls-tree", "rev-parse",
     "describe", "shortlog", "cat-file", "show-ref", "for-each-ref", "rev-list", "merge-base",
     "name-rev", "count-objects", "var", "version", "whatchanged", "diff-tree", "diff-files",
     "diff-index", "check-ignore", "check-attr", "grep", "show-branch", "cherry"}
)  # fmt: skip
_LIST_FLAGS = ("--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at")


def git_read_rule(args: Sequence[str]) -> str | None:
    """Why ``git args`` is not provably read-only, or None when it is."""
    options, rest = git_arguments(("git", *args))
    bad = next((name for name, _ in options if name not in _GIT_GLOBALS), None)
    if bad is not None:
        return f"git {bad} is not a global option known to be read-only"
    if not rest:
        return None
    sub, tail = rest[0], rest[1:]
    flags = [w for w in tail if w.startswith("-")]
    if any(long_option(f, "--output", "--ext-diff", "--open-files-in-pager") for f in flags):
        return f"git {sub} with --output, --ext-diff or --open-files-in-pager writes or runs"
    if sub == "grep" and any(short_flag(f, "O") for f in flags):
        return "git grep -O runs a program"
    if sub in _GIT_READERS:
        return None
    check = _GIT_CONDITIONAL.get(sub)
    if check is None:
        return f"git {sub} is not a subcommand known to be read-only"
    return check(tail, flags)


def _git_listing(kind: str, letters: str, allowed: tuple[str, ...]) -> Callable[..., str | None]:
    def check(tail: Sequence[str], flags: Sequence[str]) -> str | None:
        for flag in flags:
            short = not flag.startswith("--") and all(c in letters for c in flag[1:])
            if not (short or long_option(flag, *allowed)):
                return f"git {kind} {flag} may change {kind}es"
        listing = any(long_option(f, *_LIST_FLAGS) or short_flag(f, "l") for f in flags)
        if not listing and any(not w.startswith("-") for w in tail):
            return f"git {kind} with a name creates or changes a {kind}"
        return None

    return check


def _git_stash(tail: Sequence[str], flags: Sequence[str]) -> str | None:
    return None if tail[:1] in (["list"], ["show"]) else "git stash changes the stash or the tree"


def _git_remote(tail: Sequence[str], flags: Sequence[str]) -> str | None:
    if list(tail) in ([], ["-v"], ["--verbose"]) or tail[:1] == ["get-url"]:
        return None
    return "git remote may change or contact remotes"


def _git_config(tail: Sequence[str], flags: Sequence[str]) -> str | None:
    writes = ("--add", "--unset", "--unset-all", "--replace-all", "--rename-section",
              "--remove-section", "--edit")  # fmt: skip
    if any(long_option(f, *writes) or f == "-e" for f in flags):
        return "git config changes the configuration"
    reads = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list")
    operands = [w for w in tail if not w.startswith("-")]
    if any(long_option(f, *reads) or f == "-l" for f in flags) or operands[:1] in (
        ["get"],
        ["list"],
    ):
        return None
    return "git config without --get or --list may set a value"


def _git_subcommand(sub: str, *allowed: str) -> Callable[..., str | None]:
    def check(tail: Sequence[str], flags: Sequence[str]) -> str | None:
        operands = [w for w in tail if not w.startswith("-")]
        if (operands[:1] and operands[0] in allowed) or (not operands and "" in allowed):
            return None
        return f"git {sub} changes state"

    return check


_GIT_CONDITIONAL: dict[str, Callable[[Sequence[str], Sequence[str]], str | None]] = {
    "branch": _git_listing(
        "branch", "arvlq",
        ("--all", "--remotes", "--verbose", "--show-current", "--sort", "--format", "--color",
         "--no-color", "--column", "--no-column", "--ignore-case", "--abbrev", "--no-abbrev",
         "--quiet", *_LIST_FLAGS),
    ),
    "tag": _git_listing(
        "tag", "lni",
        ("--sort", "--format", "--color", "--column", "--no-column", "--ignore-case",
         *_LIST_FLAGS),
    ),
    "stash": _git_stash,
    "remote": _git_remote,
    "config": _git_config,
    "reflog": _git_subcommand("reflog", "", "show", "exists"),
    "worktree": _git_subcommand("worktree", "list"),
}  # fmt: skip
