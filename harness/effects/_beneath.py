"""Reaching a path below a root without following any symlink on the way.

Harness reads the real workdir (and a layer's upper dir) at paths the agent
chose, after the agent's own commands ran there. A name checked with ``lstat``
and then opened can meanwhile be swapped for a symlink, and a symlink in any
*folder* of the path (``kd -> ~/.local/state/harness``) is followed by every
ordinary call, ``O_NOFOLLOW`` included: it only guards the last component.
So every folder here is reached from a descriptor of the root, with
``openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)``
where the kernel has it (Linux 5.6+), else one component at a time with
``O_NOFOLLOW | O_DIRECTORY``; the last component is then looked at, read or
listed relative to that folder's descriptor, never through a path string.

A path with a symlink (or a file) among its folders has nothing below it as
far as the tree goes: the functions answer None, as for a missing path, which
is also what an overlay sees (it never merges a folder into a symlink).
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ParamSpec, TypeVar

__all__ = [
    "getxattr_beneath",
    "listdir_beneath",
    "lstat_beneath",
    "open_dir_beneath",
    "open_regular_beneath",
    "openat2_available",
    "read_beneath",
    "readlink_beneath",
    "split_relative",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
# A symlink, a file where a folder should be, a name that is not there, a way out.
_ABSENT = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EXDEV})

_SYS_OPENAT2 = 437  # the same number on every Linux architecture (generic table)
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_NO_SYMLINKS = 0x04
_RESOLVE_BENEATH = 0x08
_RESOLVE = _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


class _Openat2:
    """The ``openat2`` system call through libc's ``syscall``, or None where it is missing."""

    def __init__(self) -> None:
        self.usable = sys.platform == "linux"
        self._call = None
        if self.usable:
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                self._call = libc.syscall
                self._call.restype = ctypes.c_long
            except (OSError, AttributeError):
                self.usable = False

    def open(self, dir_fd: int, rel: bytes, flags: int) -> int | None:
        """A descriptor, or None when the kernel lacks the call (then never tried again)."""
        assert self._call is not None
        how = _OpenHow(flags, 0, _RESOLVE)
        while True:
            fd = int(
                self._call(
                    ctypes.c_long(_SYS_OPENAT2),
                    ctypes.c_int(dir_fd),
                    ctypes.c_char_p(rel),
                    ctypes.byref(how),
                    ctypes.c_size_t(ctypes.sizeof(how)),
                )
            )
            if fd >= 0:
                return fd
            code = ctypes.get_errno()
            if code in (errno.EINTR, errno.EAGAIN):
                continue  # EAGAIN: a rename raced the lookup; the kernel asks to retry
            if code in (errno.ENOSYS, errno.E2BIG, errno.EPERM):
                self.usable = False  # an old kernel, or a seccomp filter without it
                return None
            raise OSError(code, os.strerror(code), rel.decode("utf-8", "surrogateescape"))


_OPENAT2 = _Openat2()


def openat2_available() -> bool:
    """Whether folders are reached with ``openat2`` (else component by component)."""
    return _OPENAT2.usable


def split_relative(rel: str) -> list[str]:
    """The components of ``rel``; refuses what could leave the root or name it twice.

    Raises:
        ValueError: absolute, empty component, ``.``, ``..`` or a NUL byte.
    """
    if rel in ("", "."):
        return []
    parts = rel.split("/")
    if rel.startswith("/") or "\x00" in rel or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"not a plain relative path below the root: {rel!r}")
    return parts


def open_dir_beneath(root: Path, parts: list[str], *, walk: bool = False) -> int | None:
    """A descriptor of the folder ``root/parts...``, no symlink followed; None when absent.

    ``root`` itself is opened by its path (it is harness's own, not the agent's).
    ``walk`` forces the component-by-component way (also the fallback).

    Raises:
        OSError: for anything but an absent path (permissions, I/O).
    """
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    if not parts:
        return fd
    try:
        if not walk and _OPENAT2.usable:
            try:
                opened = _OPENAT2.open(fd, os.fsencode("/".join(parts)), _DIR_FLAGS)
            except OSError as exc:
                if exc.errno in _ABSENT:
                    return None
                raise
            if opened is not None:
                return opened
            # openat2 turned out to be missing: walk instead, from the same root.
        for part in parts:
            child = _absent_as_none(os.open, part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = -1
            if child is None:
                return None
            fd = child
        result, fd = fd, -1
        return result
    finally:
        if fd >= 0:
            os.close(fd)


@contextmanager
def _parent(root: Path, rel: str) -> Iterator[tuple[int | None, str]]:
    """The descriptor of ``rel``'s folder (None when absent) and its last name."""
    parts = split_relative(rel)
    if not parts:
        raise ValueError("the root itself has no parent below the root")
    fd = open_dir_beneath(root, parts[:-1])
    try:
        yield fd, parts[-1]
    finally:
        if fd is not None:
            os.close(fd)


def lstat_beneath(root: Path, rel: str) -> os.stat_result | None:
    """``lstat`` of ``root/rel`` with no symlink followed in any folder; None when absent."""
    if not split_relative(rel):
        return os.stat(root)
    with _parent(root, rel) as (fd, name):
        if fd is None:
            return None
        return _absent_as_none(os.stat, name, dir_fd=fd, follow_symlinks=False)


def readlink_beneath(root: Path, rel: str) -> str | None:
    """The target of the symlink ``root/rel``; None when absent or not a symlink."""
    with _parent(root, rel) as (fd, name):
        if fd is None:
            return None
        try:
            return os.readlink(name, dir_fd=fd)
        except OSError as exc:
            if exc.errno in _ABSENT or exc.errno == errno.EINVAL:
                return None
            raise


def listdir_beneath(root: Path, rel: str) -> list[str] | None:
    """The sorted names in the folder ``root/rel``; None when it is absent or no folder."""
    fd = open_dir_beneath(root, split_relative(rel))
    if fd is None:
        return None
    try:
        return sorted(os.listdir(fd))
    finally:
        os.close(fd)


def getxattr_beneath(root: Path, rel: str, attribute: str) -> bytes | None:
    """The extended attribute of the folder ``root/rel``; None when absent or unset."""
    fd = open_dir_beneath(root, split_relative(rel))
    if fd is None:
        return None
    try:
        return os.getxattr(fd, attribute)
    except OSError:
        return None
    finally:
        os.close(fd)


def open_regular_beneath(root: Path, rel: str) -> int | None:
    """A read descriptor of the regular file ``root/rel``; None when absent or not one.

    The entry is checked before the open (a FIFO or device is never opened) and
    the descriptor after it (same inode, still a regular file).
    """
    with _parent(root, rel) as (fd, name):
        if fd is None:
            return None
        before = _absent_as_none(os.stat, name, dir_fd=fd, follow_symlinks=False)
        if before is None or not stat.S_ISREG(before.st_mode):
            return None
        handle = _absent_as_none(os.open, name, _FILE_FLAGS, dir_fd=fd)
    if handle is None:
        return None
    info = os.fstat(handle)
    if (info.st_dev, info.st_ino) != (before.st_dev, before.st_ino) or not stat.S_ISREG(
        info.st_mode
    ):
        os.close(handle)
        return None
    return handle


def read_beneath(root: Path, rel: str, limit: int) -> tuple[bytes | None, int | None]:
    """The bytes of the regular file ``root/rel`` when at most ``limit`` long, and its size.

    (None, None): absent or not a regular file. (None, size): over ``limit``.
    """
    handle = open_regular_beneath(root, rel)
    if handle is None:
        return None, None
    try:
        size = os.fstat(handle).st_size
        if size > limit:
            return None, size
        data = _read_up_to(handle, limit + 1)
        return (None, len(data)) if len(data) > limit else (data, len(data))
    finally:
        os.close(handle)


def _read_up_to(fd: int, count: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while total < count:
        chunk = os.read(fd, min(1 << 20, count - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def _absent_as_none(call: Callable[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> _R | None:
    """``call``, with an absent path (missing, a symlink, a file as a folder) as None."""
    try:
        return call(*args, **kwargs)
    except OSError as exc:
        if exc.errno in _ABSENT:
            return None
        raise
