"""What a shell command writes, and where: targets resolved against ``cd``.

``cd sub && echo x > ../.env`` writes ``.env`` in the workdir, so paths are
resolved against every directory the command line may be in by then (the
workdir and each ``cd``/``pushd`` target: a ``cd`` inside a subshell does not
last, so both are kept). A ``cd`` to a directory known only at run time makes
the directory unknown.
"""

from __future__ import annotations

import itertools
import os
import posixpath
from dataclasses import dataclass
from pathlib import Path

from harness.effects import inside, sensitive_path_reason
from harness.shell import ResolvedCommand

__all__ = ["CwdTracker", "TreeTooBig", "WriteTarget", "copied_tree_targets", "written_files"]

# A directory copied recursively is walked to judge every file it brings; past this
# many entries the copy is not judged file by file (and needs approval).
_MAX_TREE_ENTRIES = 10_000
_RECURSIVE = frozenset({"-r", "-R", "-a", "--recursive", "--archive"})

# Commands whose file operands they overwrite or create (not their contents' writers).
_TOUCHERS = frozenset({"touch", "mkdir", "rm", "rmdir", "shred", "unlink", "mkfifo", "mknod"})
_OWNERS = frozenset({"chmod", "chown", "chgrp"})
_COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync"})
# Options that name an output file, for any program.
_OUTPUT_OPTIONS = frozenset({"--output", "--outfile", "--out-file", "-out", "--output-file"})
# Programs whose ``-o`` names an output file (elsewhere ``-o`` means other things).
_DASH_O_WRITERS = frozenset(
    {"sort", "gcc", "cc", "c++", "g++", "clang", "clang++", "ld", "as", "go", "rustc", "pandoc",
     "curl", "objcopy", "zig"}
)  # fmt: skip
_FIND_WRITES = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})
# Wrappers that run their command in another directory.
_CHDIR_OPTIONS = {
    "env": frozenset({"-C", "--chdir"}),
    "sudo": frozenset({"-D", "--chdir"}),
    "nsenter": frozenset({"-w", "--wd"}),
    "unshare": frozenset({"-w", "--wd"}),
    "systemd-run": frozenset({"-d", "--working-directory"}),
}


@dataclass(frozen=True, slots=True)
class WriteTarget:
    """A path a command writes.

    Attributes:
        path: as written.
        dynamic: only known at run time (variable, glob, substitution).
        content: the command writes content there (a redirection, ``tee``, ``cp``
            target, ``sed -i``); False for ``touch``/``mkdir``/``rm`` operands,
            which matter only to the state-dir guard.
    """

    path: str
    dynamic: bool = False
    content: bool = True

    @property
    def strict(self) -> bool:
        return self.content


def written_files(command: ResolvedCommand) -> list[WriteTarget]:
    """Every path ``command`` writes, by its redirections and by its own arguments."""
    dynamic = frozenset(command.dynamic_write_targets)
    targets = [WriteTarget(t, t in dynamic) for t in command.write_targets]
    if not command.argv:
        return targets
    name = command.name
    operands = [(i, a) for i, a in enumerate(command.argv) if i > 0 and not a.startswith("-") and a]
    picked: list[int] = []
    content = True
    if name == "tee":
        picked = [i for i, _ in operands]
    elif name in _COPIERS:
        targets.extend(_copy_targets(command, operands))
    elif name in ("sed", "gsed") and _sed_in_place(command.argv):
        picked = _sed_files(command.argv)
    elif name == "perl" and _perl_in_place(command.argv):
        picked = _perl_files(command.argv)
    elif name == "truncate":
        picked = _after_values(command.argv, ("-s", "--size", "-r", "--reference"))
    elif name == "dd":
        targets.extend(
            WriteTarget(a[3:], command.is_dynamic(i))
            for i, a in enumerate(command.argv)
            if a.startswith("of=")
        )
    elif name == "wget":
        flags = ("-O", "--output-document")
        picked = [i + 1 for i, a in enumerate(command.argv[:-1]) if a in flags]
    elif name in ("ed", "red", "ex", "sponge"):
        picked = [i for i, _ in operands]
    elif name in ("awk", "gawk") and _awk_in_place(command.argv):
        picked = [i for i, _ in operands][1:]
    elif name == "find":
        picked = [i + 1 for i, a in enumerate(command.argv[:-1]) if a in _FIND_WRITES]
    elif name in _TOUCHERS or name in _OWNERS:
        content = False
        picked = [i for i, _ in operands][1 if name in _OWNERS else 0 :]
    picked.extend(_output_options(command))
    targets.extend(
        WriteTarget(command.argv[i], command.is_dynamic(i), content)
        for i in picked
        if i < len(command.argv)
    )
    for index, word in enumerate(command.argv):
        option, equals, value = word.partition("=")
        if equals and option in _OUTPUT_OPTIONS | {"--output-document"} and value:
            targets.append(WriteTarget(value, command.is_dynamic(index)))
    return targets


def _output_options(command: ResolvedCommand) -> list[int]:
    flags = set(_OUTPUT_OPTIONS)
    if command.name in _DASH_O_WRITERS:
        flags.add("-o")
    return [i + 1 for i, a in enumerate(command.argv[:-1]) if i > 0 and a in flags]


def _awk_in_place(argv: tuple[str, ...]) -> bool:
    pairs = itertools.pairwise(argv)
    return any(a in ("-i", "--include") and b == "inplace" for a, b in pairs) or (
        "--include=inplace" in argv
    )


def _copy_targets(command: ResolvedCommand, operands: list[tuple[int, str]]) -> list[WriteTarget]:
    """The destination of ``cp``/``mv``/``ln``/``install``/``rsync``.

    The destination may be a directory, so each source's name in it counts too
    (``cp /tmp/.env .`` writes ``.env``); a sensitive-named source is thus judged
    wherever it is copied.
    """
    argv = command.argv
    destination: WriteTarget | None = None
    sources = operands
    for index, word in enumerate(argv):
        if word in ("-t", "--target-directory") and index + 1 < len(argv):
            destination = WriteTarget(argv[index + 1], command.is_dynamic(index + 1))
            sources = [(i, a) for i, a in operands if i != index + 1]
            break
        if word.startswith("--target-directory="):
            destination = WriteTarget(word.split("=", 1)[1], command.is_dynamic(index))
            break
    if destination is None:
        if len(operands) < 2:
            return []
        last, path = operands[-1]
        destination = WriteTarget(path, command.is_dynamic(last))
        sources = operands[:-1]
    targets = [destination]
    if not destination.dynamic:
        for index, source in sources:
            if not command.is_dynamic(index) and source not in ("/dev/null",):
                name = source.rstrip("/").rsplit("/", 1)[-1]
                if name not in ("", ".", ".."):
                    joined = posixpath.join(destination.path, name)
                    targets.append(WriteTarget(joined))
    return targets


def _sed_in_place(argv: tuple[str, ...]) -> bool:
    return any(
        a.startswith("--in-place") or (a.startswith("-") and not a.startswith("--") and "i" in a)
        for a in argv[1:]
    )


def _sed_files(argv: tuple[str, ...]) -> list[int]:
    has_script = any(a in ("-e", "--expression", "-f", "--file") for a in argv)
    files: list[int] = []
    skip = False
    for index in range(1, len(argv)):
        word = argv[index]
        if skip:
            skip = False
            continue
        if word in ("-e", "--expression", "-f", "--file", "-l", "--line-length"):
            skip = True
            continue
        if word.startswith("-") and len(word) > 1:
            continue
        if not has_script:
            has_script = True  # the first operand is the script
            continue
        files.append(index)
    return files


def _perl_in_place(argv: tuple[str, ...]) -> bool:
    return any(a.startswith("-") and not a.startswith("--") and "i" in a for a in argv[1:])


def _perl_files(argv: tuple[str, ...]) -> list[int]:
    files: list[int] = []
    code_next = False
    for index in range(1, len(argv)):
        word = argv[index]
        if code_next:
            code_next = False
            continue
        if word.startswith("-") and len(word) > 1:
            code_next = word[-1] in "eE"
            continue
        files.append(index)
    return files


def _after_values(argv: tuple[str, ...], with_value: tuple[str, ...]) -> list[int]:
    picked: list[int] = []
    skip = False
    for index in range(1, len(argv)):
        if skip:
            skip = False
        elif argv[index] in with_value:
            skip = True
        elif not argv[index].startswith("-"):
            picked.append(index)
    return picked


class CwdTracker:
    """The directories a command line may be in, as ``cd`` moves it."""

    def __init__(self, workdir: Path | None) -> None:
        self.workdir = workdir
        self.root = posixpath.normpath(workdir.as_posix()) if workdir is not None else None
        self.dirs: list[str] = [self.root or "."]
        self.unknown = False

    def observe(self, command: ResolvedCommand) -> None:
        """Follow ``cd``/``pushd``/``popd`` (and ``env -C DIR``) in ``command``."""
        if command.name in _CHDIR_OPTIONS:
            self._chdir_option(command)
            return
        if command.name not in ("cd", "pushd", "popd", "chdir"):
            return
        skipped = ("-L", "-P", "--")
        operands = [(i, a) for i, a in enumerate(command.argv) if i > 0 and a not in skipped]
        if command.name == "popd" or len(operands) != 1:
            self.unknown = True
            return
        index, target = operands[0]
        if command.is_dynamic(index) or target in ("-", "~") or target.startswith("~"):
            self.unknown = True
            return
        moved = [posixpath.normpath(posixpath.join(d, target)) for d in self.dirs]
        self.dirs.extend(d for d in moved if d not in self.dirs)

    def _chdir_option(self, command: ResolvedCommand) -> None:
        options = _CHDIR_OPTIONS[command.name]
        for index, word in enumerate(command.argv):
            name, equals, attached = word.partition("=")
            if name not in options:
                continue
            if equals:
                target, dynamic = attached, command.is_dynamic(index)
            elif index + 1 < len(command.argv):
                target, dynamic = command.argv[index + 1], command.is_dynamic(index + 1)
            else:
                continue
            if dynamic:
                self.unknown = True
            else:
                moved = [posixpath.normpath(posixpath.join(d, target)) for d in self.dirs]
                self.dirs.extend(d for d in moved if d not in self.dirs)

    def resolutions(self, path: str) -> list[str]:
        """``path`` joined to every directory the command line may be in."""
        found: list[str] = []
        for directory in self.dirs:
            joined = posixpath.normpath(posixpath.join(directory, path))
            if joined not in found:
                found.append(joined)
        return found

    def sensitive(self, path: str) -> list[tuple[str, str]]:
        """(path as shown, why) for each resolution of ``path`` that is sensitive."""
        found: list[tuple[str, str]] = []
        candidates = self.resolutions(path)
        if self.unknown:
            candidates.append(path)
        for candidate in candidates:
            why = sensitive_path_reason(candidate, self.workdir)
            shown = self.shown(candidate)
            if why is not None and (shown, why) not in found:
                found.append((shown, why))
        return found

    def shown(self, path: str) -> str:
        if self.root is not None and posixpath.isabs(path) and inside(path, self.root):
            return posixpath.relpath(path, self.root)
        return path

    def exists(self, word: str) -> bool:
        """Whether ``word`` names an existing path in one of the directories."""
        if self.root is None:
            return False
        return any(os.path.lexists(p) for p in self.resolutions(word))


class TreeTooBig(Exception):
    """A directory copied recursively holds too many entries to judge."""


def copied_tree_targets(
    command: ResolvedCommand, cwd: CwdTracker, max_entries: int = _MAX_TREE_ENTRIES
) -> list[str]:
    """Paths a recursive ``cp``/``rsync``/``mv`` of a directory writes, file by file.

    ``cp -r /tmp/x/. .`` writes whatever ``/tmp/x`` holds; each file is joined to
    the destination both with and without the source directory's own name, as
    the two spellings (``src`` and ``src/``) differ between cp and rsync.

    Raises:
        TreeTooBig: a source directory has more than ``max_entries`` entries.
    """
    if command.name not in ("cp", "rsync", "mv"):
        return []
    argv = command.argv
    recursive = command.name == "mv" or any(
        a in _RECURSIVE
        or (a.startswith("-") and not a.startswith("--") and set(a[1:]) & set("rRa"))
        for a in argv[1:]
    )
    operands = [(i, a) for i, a in enumerate(argv) if i > 0 and not a.startswith("-")]
    if not recursive or len(operands) < 2 or command.is_dynamic(operands[-1][0]):
        return []
    destination = operands[-1][1]
    targets: list[str] = []
    for index, source in operands[:-1]:
        if command.is_dynamic(index):
            continue
        for directory in cwd.resolutions(source):
            if os.path.isdir(directory):
                name = posixpath.basename(posixpath.normpath(directory))
                for relative in _walk(directory, max_entries):
                    targets.append(posixpath.join(destination, relative))
                    targets.append(posixpath.join(destination, name, relative))
    return targets


def _walk(root: str, max_entries: int) -> list[str]:
    found: list[str] = []
    for folder, folders, files in os.walk(root):
        for entry in [*folders, *files]:
            found.append(posixpath.relpath(posixpath.join(folder, entry), root))
            if len(found) > max_entries:
                raise TreeTooBig(root)
    return found
