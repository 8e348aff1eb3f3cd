"""Git commands that destroy work or rewrite shared history.

Git accepts any unambiguous prefix of a long option (``--har`` is ``--hard``,
``--delet`` is ``--delete``), so long options are matched by prefix: a word that
git could read as a dangerous option is judged as that option. Short options
may be bundled (``-uf``, ``-df``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.shell import ResolvedCommand

__all__ = ["git_arguments", "git_rule", "long_option", "short_flag"]

# Global options that take the next word as their value.
_GLOBAL_WITH_VALUE = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix",
     "--exec-path"}
)  # fmt: skip
_HISTORY_REWRITERS = {"filter-branch": "rewrites history", "filter-repo": "rewrites history"}


def long_option(word: str, *names: str) -> bool:
    """Whether ``word`` is (an abbreviation git or GNU getopt accepts of) one of ``names``."""
    if not word.startswith("--") or len(word) < 3:
        return False
    given = word.split("=", 1)[0]
    return any(name.startswith(given) for name in names)


def short_flag(word: str, letter: str) -> bool:
    """Whether the bundle of short options ``word`` (``-uf``) holds ``letter``."""
    return word.startswith("-") and not word.startswith("--") and letter in word[1:]


def git_arguments(argv: Sequence[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Split ``git ...`` into its global options (name, value) and the rest."""
    options: list[tuple[str, str]] = []
    args = list(argv[1:])
    while args and args[0].startswith("-"):
        word = args[0]
        name, _, attached = word.partition("=")
        if word in _GLOBAL_WITH_VALUE and len(args) > 1:
            options.append((word, args[1]))
            args = args[2:]
        else:
            options.append((name, attached))
            args = args[1:]
    return options, args


def git_rule(command: ResolvedCommand, exists: Callable[[str], bool]) -> str | None:
    """Why this git command is dangerous, or None.

    ``exists`` says whether a word names a file in the command's directory, so
    ``git checkout docs`` (a path) differs from ``git checkout main`` (a branch).
    """
    if command.name != "git":
        return None
    _, args = git_arguments(command.argv)
    if not args:
        return None
    sub, rest = args[0], args[1:]
    check = _SUBCOMMANDS.get(sub)
    if check is not None:
        return check(rest, exists)
    return _HISTORY_REWRITERS.get(sub)


def _flags(rest: Sequence[str]) -> list[str]:
    flags: list[str] = []
    for word in rest:
        if word == "--":
            break
        if word.startswith("-"):
            flags.append(word)
    return flags


def _operands(rest: Sequence[str]) -> list[str]:
    return [w for w in rest if not w.startswith("-")]


def _any(flags: Sequence[str], letters: str, *names: str) -> bool:
    return any(
        long_option(f, *names) or any(short_flag(f, letter) for letter in letters) for f in flags
    )


def _reset(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    if _any(_flags(rest), "", "--hard", "--merge", "--keep"):
        return "discards uncommitted changes"
    before = rest[: rest.index("--")] if "--" in rest else rest
    commits = [o for o in _operands(before) if o not in ("HEAD", "@") and not exists(o)]
    if commits:  # ``git reset file`` only unstages; ``git reset HEAD~1`` moves the branch
        return "moves the current branch to another commit; commits after it leave the branch"
    return None


def _checkout_index(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    return "overwrites uncommitted changes" if _any(_flags(rest), "f", "--force") else None


def _read_tree(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    if _any(_flags(rest), "u", "--reset"):
        return "replaces the index and working tree, discarding uncommitted changes"
    return None


def _tag(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    flags = _flags(rest)
    if _any(flags, "d", "--delete"):
        return "deletes a tag"
    return "moves an existing tag" if _any(flags, "f", "--force") else None


def _gc(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    if _any(_flags(rest), "", "--prune", "--aggressive"):
        return "deletes unreachable commits that only the reflog still holds"
    return None


def _mv(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    return "overwrites the target file" if _any(_flags(rest), "f", "--force") else None


def _in_progress(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    if _any(_flags(rest), "", "--abort", "--quit"):
        return "discards the merge, rebase or cherry-pick in progress"
    return None


def _rebase(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    if _any(_flags(rest), "", "--continue", "--show-current-patch", "--edit-todo"):
        return None
    return _in_progress(rest, exists) or "rewrites the commits of the branch"


def _clean(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    if _any(_flags(rest), "n", "--dry-run"):
        return None
    return "deletes untracked files"


def _push(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    flags, operands = _flags(rest), _operands(rest)
    if _any(flags, "f", "--force", "--force-with-lease", "--force-if-includes", "--mirror"):
        return "force-pushes, rewriting remote history"
    if any(o.startswith("+") for o in operands):
        return "force-pushes, rewriting remote history"
    if _any(flags, "d", "--delete", "--prune") or any(o.startswith(":") for o in operands):
        return "deletes a remote branch"
    return None


def _checkout(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    flags = _flags(rest)
    if _any(flags, "fp", "--force", "--patch", "--ours", "--theirs", "--overlay"):
        return "discards uncommitted changes"
    if "--" in rest and rest.index("--") + 1 < len(rest):
        return "discards uncommitted changes to the named paths"
    paths = [o for o in _operands(rest) if o in (".", "./", ":/") or exists(o)]
    if paths and not _any(flags, "bB", "--orphan"):
        return "discards uncommitted changes to the named paths"
    if any(short_flag(f, "B") for f in flags):
        return "overwrites an existing branch"
    return None


def _restore(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    flags = _flags(rest)
    staged_only = _any(flags, "S", "--staged") and not _any(flags, "W", "--worktree")
    return None if staged_only else "discards uncommitted changes"


def _switch(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    if _any(_flags(rest), "f", "--force", "--discard-changes"):
        return "discards uncommitted changes"
    if _any(_flags(rest), "C", "--force-create"):
        return "overwrites an existing branch"
    return None


def _stash(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    return "deletes stashed changes" if rest[:1] in (["drop"], ["clear"]) else None


def _branch(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    flags = _flags(rest)
    if any(short_flag(f, "D") for f in flags):
        return "deletes a branch and its unmerged commits"
    if _any(flags, "d", "--delete") and _any(flags, "f", "--force"):
        return "deletes a branch and its unmerged commits"
    if _any(flags, "d", "--delete"):
        return "deletes a branch"
    if any(short_flag(f, "M") or short_flag(f, "C") for f in flags):
        return "overwrites an existing branch"
    if _any(flags, "f", "--force"):
        return "moves an existing branch; its commits can leave it"
    return None


def _rm(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    return None if _any(_flags(rest), "", "--cached") else "deletes files"


def _reflog(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    return "discards reflog entries" if rest[:1] in (["expire"], ["delete"]) else None


def _update_ref(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    if _any(_flags(rest), "d", "--stdin"):
        return "deletes a ref"
    return "moves a ref; commits can leave its branch" if _operands(rest) else None


def _worktree(rest: Sequence[str], exists: Callable[[str], bool]) -> str | None:
    return "deletes a worktree" if rest[:1] in (["remove"], ["prune"]) else None


_SUBCOMMANDS: dict[str, Callable[[Sequence[str], Callable[[str], bool]], str | None]] = {
    "reset": _reset,
    "clean": _clean,
    "push": _push,
    "checkout": _checkout,
    "restore": _restore,
    "switch": _switch,
    "stash": _stash,
    "branch": _branch,
    "rm": _rm,
    "reflog": _reflog,
    "update-ref": _update_ref,
    "worktree": _worktree,
    "checkout-index": _checkout_index,
    "read-tree": _read_tree,
    "tag": _tag,
    "gc": _gc,
    "prune": lambda rest, exists: "deletes unreachable commits that only the reflog still holds",
    "mv": _mv,
    "merge": _in_progress,
    "cherry-pick": _in_progress,
    "revert": _in_progress,
    "am": _in_progress,
    "rebase": _rebase,
}
