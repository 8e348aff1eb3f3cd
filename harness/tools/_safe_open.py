"""Opening and replacing files so that nothing swapped in mid-call can redirect them.

``FileScope.resolve`` checks a path by name; between that check and the open,
another process (the agent's own bash) could swap a folder for a symlink and
send a read or a write outside the workdir or into the state dir (TOCTOU).
So every call here walks the resolved path from a descriptor of the workdir,
one component at a time with ``O_NOFOLLOW | O_DIRECTORY``: no symlink is ever
followed, and each folder passed is compared by (device, inode) with the state
dir, which also catches a state dir renamed or reached by another name. The
folder reached is checked once more by its ``/proc/self/fd`` path. Files are
checked with ``lstat`` before the open (so a FIFO is never opened and cannot
block), opened with ``O_NOFOLLOW | O_NONBLOCK`` and checked again with
``fstat`` (same inode, a regular file). Writes create the temp file and rename
it relative to the verified folder descriptor.

Hard links: a regular file may have another name inside the state dir. A write
replaces the name in the workdir with a new inode (temp file + rename), so it
never changes the state dir's copy; a read of a file with several links is
refused when the state dir holds the same inode.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import ParamSpec, TypeVar

from harness.core.errors import ToolError
from harness.tools.paths import FileScope, inside, state_dir_refusal

__all__ = ["read_regular_file", "replace_regular_file"]

_P = ParamSpec("_P")
_R = TypeVar("_R")

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_STATE_ENTRIES = 200_000
"""Entries of the state dir searched for a hard-linked inode before refusing anyway."""

_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


def read_regular_file(scope: FileScope, path: Path, *, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path`` (resolved by ``scope.resolve``).

    Raises:
        ToolError: missing, a folder, not a regular file, too large, inside the
            state dir, changed while being opened, or an OS error.
    """
    shown = scope.show(path)
    with _parent_fd(scope, path, create=False) as dir_fd:
        before = _lstat_entry(dir_fd, path.name, shown)
        if before is None:
            raise ToolError(f"file not found: {shown}", error_type="file_not_found")
        fd = _open_verified(dir_fd, path.name, before, shown)
    try:
        info = os.fstat(fd)
        _refuse_state_dir_link(scope, info, shown)
        if info.st_size > max_bytes:
            raise ToolError(
                f"{shown} is {info.st_size} bytes, over the limit of {max_bytes} bytes "
                "for this tool; use bash (grep, head, sed) for files this large",
                error_type="file_too_large",
            )
        return _read_all(fd, max_bytes, shown)
    finally:
        os.close(fd)


def replace_regular_file(
    scope: FileScope, path: Path, data: bytes, *, exclusive: bool, make_parents: bool
) -> bool:
    """Write ``data`` to ``path`` through a temp file and a rename; True when it existed.

    An existing file keeps its permission bits and, where harness may, its
    owner and group. ``exclusive`` refuses an existing file (``create`` mode),
    atomically: the temp file is linked to the name, which fails if it exists.
    ``make_parents`` creates missing folders, each relative to its verified parent.

    Raises:
        ToolError: the target is a folder or not a regular file, exists when
            ``exclusive``, is inside the state dir, changed mid-call, or an OS error.
    """
    shown = scope.show(path)
    with _parent_fd(scope, path, create=make_parents) as dir_fd:
        existing = _lstat_entry(dir_fd, path.name, shown)
        if existing is not None and exclusive:
            raise _exists(shown)
        tmp = f".{path.name}.{secrets.token_hex(6)}.tmp"
        fd = _os_call("write", shown, os.open, tmp, _TEMP_FLAGS, _new_mode(existing), dir_fd=dir_fd)
        try:
            try:
                _os_call("write", shown, _fill, fd, data, existing)
            finally:
                os.close(fd)
            _publish(dir_fd, tmp, path.name, shown, exclusive=exclusive)
        except BaseException:
            _unlink_quietly(tmp, dir_fd)
            raise
        return existing is not None


@contextmanager
def _parent_fd(scope: FileScope, path: Path, *, create: bool) -> Iterator[int]:
    """A descriptor of ``path``'s folder, reached from the workdir without following links."""
    shown = scope.show(path)
    if path == scope.workdir:
        raise ToolError(f"{shown} is a directory, not a file", error_type="is_directory")
    state = _identity(scope.state_dir)
    fd = _os_call("open", shown, os.open, scope.workdir, _DIR_FLAGS)
    try:
        _refuse_state_fd(fd, state, shown, scope)
        for part in path.parent.relative_to(scope.workdir).parts:
            child = _open_child_dir(fd, part, shown, create=create)
            os.close(fd)
            fd = child
            _refuse_state_fd(fd, state, shown, scope)
        _check_fd_path(fd, scope, shown)
        yield fd
    finally:
        os.close(fd)


def _open_child_dir(dir_fd: int, name: str, shown: str, *, create: bool) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        if not create:
            raise ToolError(
                f"file not found: {shown} (its folder {name!r} does not exist)",
                error_type="file_not_found",
            ) from None
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise _os_error("open", shown, exc) from None
        try:
            mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
        except OSError:
            raise _changed(shown) from None
        if stat.S_ISLNK(mode):
            raise _changed(shown) from None
        raise ToolError(
            f"cannot use {shown}: {name!r} in its path is a file, not a folder",
            error_type="not_a_directory",
        ) from None
    try:
        os.mkdir(name, 0o777, dir_fd=dir_fd)
    except FileExistsError:
        pass  # made by someone else meanwhile; the open below checks what it is
    except OSError as exc:
        raise _os_error("create a folder for", shown, exc) from None
    return _open_child_dir(dir_fd, name, shown, create=False)


def _lstat_entry(dir_fd: int, name: str, shown: str) -> os.stat_result | None:
    """The entry ``name`` without following it: None if missing; refuse non-files."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _os_error("open", shown, exc) from None
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(
            f"{shown} is a directory, not a file; give the path of a file inside it",
            error_type="is_directory",
        )
    if stat.S_ISLNK(info.st_mode):
        raise _changed(shown)  # the resolved path had no symlink here a moment ago
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(shown, info.st_mode)
    return info


def _open_verified(dir_fd: int, name: str, before: os.stat_result, shown: str) -> int:
    """Open ``name`` for reading only if it is still the regular file ``before``.

    With ``O_PATH`` the entry is pinned without opening it (a device's open
    can have effects), checked, then reopened through ``/proc/self/fd``.
    """
    pin = getattr(os, "O_PATH", 0)
    if pin and os.path.isdir("/proc/self/fd"):
        handle = _os_call(
            "open", shown, os.open, name, pin | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd
        )
        try:
            _check_same_regular(os.fstat(handle), before, shown)
            # The magic link names the pinned inode; O_NOFOLLOW would refuse the link itself.
            reopen = _READ_FLAGS & ~os.O_NOFOLLOW
            fd = _os_call("open", shown, os.open, f"/proc/self/fd/{handle}", reopen)
        finally:
            os.close(handle)
    else:
        fd = _os_call("open", shown, os.open, name, _READ_FLAGS, dir_fd=dir_fd)
    try:
        _check_same_regular(os.fstat(fd), before, shown)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check_same_regular(info: os.stat_result, before: os.stat_result, shown: str) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(shown, info.st_mode)
    if (info.st_dev, info.st_ino) != (before.st_dev, before.st_ino):
        raise _changed(shown)


def _refuse_state_fd(fd: int, state: tuple[int, int] | None, shown: str, scope: FileScope) -> None:
    info = os.fstat(fd)
    if state is not None and (info.st_dev, info.st_ino) == state:
        raise state_dir_refusal(shown, scope.state_dir)


def _check_fd_path(fd: int, scope: FileScope, shown: str) -> None:
    """Where the folder descriptor really is now (Linux ``/proc``; skipped without it)."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return
    where = Path(real)
    if inside(where, scope.state_dir):
        raise state_dir_refusal(shown, scope.state_dir)
    if not real.startswith("/") or not inside(where, scope.workdir):
        raise _changed(shown)


def _refuse_state_dir_link(scope: FileScope, info: os.stat_result, shown: str) -> None:
    """Refuse a file whose inode also has a name inside the state dir."""
    if info.st_nlink < 2:
        return
    state = _identity(scope.state_dir)
    if state is None or state[0] != info.st_dev:
        return  # no state dir yet, or another filesystem: a hard link cannot cross
    seen = 0
    for dirpath, dirnames, filenames in os.walk(scope.state_dir):
        for name in filenames + dirnames:
            seen += 1
            if seen > _MAX_STATE_ENTRIES:
                raise ToolError(
                    f"{shown} has {info.st_nlink} hard links and the state dir is too large "
                    "to check that none of them is inside it; refused",
                    error_type="state_dir",
                )
            try:
                other = os.stat(os.path.join(dirpath, name), follow_symlinks=False)
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
                raise state_dir_refusal(shown, scope.state_dir)


def _identity(folder: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(folder)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _new_mode(existing: os.stat_result | None) -> int:
    # A new file gets 0o666 less the umask, as open(2) would; an existing one's
    # bits are copied by _fill, and the temp file stays private until then.
    return 0o666 if existing is None else 0o600


def _fill(fd: int, data: bytes, existing: os.stat_result | None) -> None:
    if existing is not None:
        try:
            os.fchown(fd, existing.st_uid, existing.st_gid)
        except OSError as exc:
            # Not root and not the file's group, or a filesystem without owners:
            # the file becomes ours, as with any editor.
            if exc.errno not in (errno.EPERM, errno.EINVAL, errno.ENOTSUP):
                raise
        os.fchmod(fd, stat.S_IMODE(existing.st_mode))  # after chown, which clears set-id bits
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def _publish(dir_fd: int, tmp: str, name: str, shown: str, *, exclusive: bool) -> None:
    if not exclusive:
        _os_call("write", shown, os.replace, tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        return
    try:
        os.link(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
    except FileExistsError:
        raise _exists(shown) from None
    except OSError as exc:
        raise _os_error("write", shown, exc) from None
    _unlink_quietly(tmp, dir_fd)


def _read_all(fd: int, max_bytes: int, shown: str) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while total <= max_bytes:
        chunk = _os_call("read", shown, os.read, fd, min(1 << 20, max_bytes + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > max_bytes:  # grew while being read
        raise ToolError(
            f"{shown} is over the limit of {max_bytes} bytes for this tool",
            error_type="file_too_large",
        )
    return b"".join(chunks)


def _unlink_quietly(name: str, dir_fd: int) -> None:
    with suppress(OSError):
        os.unlink(name, dir_fd=dir_fd)


def _os_call(
    action: str, shown: str, call: Callable[_P, _R], *args: _P.args, **kw: _P.kwargs
) -> _R:
    """``call`` with its ``OSError`` translated into a ``ToolError`` the model can act on."""
    try:
        return call(*args, **kw)
    except OSError as exc:
        raise _os_error(action, shown, exc) from None


def _not_regular(shown: str, mode: int) -> ToolError:
    kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
    return ToolError(
        f"{shown} is {kind}, not a regular file; the file tools only open regular files "
        "(reading a FIFO or a device could block or never end)",
        error_type="not_regular_file",
    )


def _changed(shown: str) -> ToolError:
    return ToolError(
        f"{shown} changed while the tool was using it (a folder or the file was replaced "
        "by a symlink or moved); nothing was read or written. Check the path and try again",
        error_type="path_changed",
    )


def _exists(shown: str) -> ToolError:
    return ToolError(
        f"{shown} already exists; use mode='overwrite' to replace the whole file, "
        "mode='append' to add to its end, or the edit tool to change part of it",
        error_type="file_exists",
    )


def _os_error(action: str, shown: str, exc: OSError) -> ToolError:
    reason = exc.strerror or type(exc).__name__
    return ToolError(
        f"could not {action} {shown}: {reason}; check the path and its permissions",
        error_type="os_error",
    )
