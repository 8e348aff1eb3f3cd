"""Landlock, the kernel's unprivileged access control, through its three syscalls.

Landlock (Linux 5.13+) lets any process give up rights for itself and every
process it starts; nothing, not even root, gets them back. A ruleset names the
rights it *handles*; each rule grants some of them under one file or folder (a
folder's rule covers everything beneath it); a handled right no rule grants is
denied. It is an allow-list only: to deny one folder, grant every sibling along
its ancestors and nothing on the ancestors themselves. ``zone_rules`` does that.

A process under a Landlock domain also cannot ptrace (so cannot read
``/proc/<pid>/environ`` or ``mem`` of) a process outside it, with or without
``CAP_SYS_PTRACE``; from ABI 6 it cannot signal one or reach its abstract unix
sockets either. It can still connect to a *named* unix socket: no ABI up to 7
controls that (the seccomp filter every call runs under refuses unix sockets
altogether: see ``seccomp``).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

__all__ = [
    "DIR_ONLY",
    "FILE_RIGHTS",
    "READ",
    "WRITE",
    "Ruleset",
    "handled_rights",
    "landlock_abi",
    "zone_rules",
]

# Syscall numbers are the same on every architecture (the unified table).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK = 1 << 8, 1 << 9, 1 << 10, 1 << 11
MAKE_SYM, REFER, TRUNCATE, IOCTL_DEV = 1 << 12, 1 << 13, 1 << 14, 1 << 15
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
# No MAKE_CHAR / MAKE_BLOCK anywhere: a device node is a way around every rule.
WRITE = (
    READ | WRITE_FILE | TRUNCATE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SOCK
    | MAKE_FIFO | MAKE_SYM | REFER
)  # fmt: skip
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
DIR_ONLY = READ_DIR

_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long
_prctl = _libc.prctl
_capset = _libc.capset
_PR_CAPBSET_DROP, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4
_CAPABILITY_VERSION_3 = 0x20080522
_LAST_CAPABILITY = 63


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is missing or disabled."""
    version = int(_syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION))
    return max(version, 0)


def handled_rights(abi: int) -> int:
    """Every file-system right the ABI knows: what a ruleset handles (so denies by default)."""
    rights = (1 << 13) - 1  # ABI 1: EXECUTE .. MAKE_SYM
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


class Ruleset:
    """An open ruleset: add rules in the parent, ``restrict`` in the child, then ``close``."""

    def __init__(self, abi: int, *, tcp: bool = True) -> None:
        """``tcp`` False: no TCP connect or bind at all (ABI 4+; UDP and unix sockets stay)."""
        self.handled = handled_rights(abi)
        scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
        net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 and not tcp else 0
        attr = _RulesetAttr(self.handled, net, scoped)
        size = 24 if abi >= 6 else 16 if abi >= 4 else 8
        fd = int(_syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0))
        if fd < 0:
            raise OSError(ctypes.get_errno(), f"landlock_create_ruleset: {_errno_text()}")
        self.fd = fd

    def allow(self, path: str | Path, rights: int, *, is_dir: bool) -> None:
        """Grant ``rights`` (those the ruleset handles) on ``path`` and, for a folder, beneath."""
        rights &= self.handled & (~0 if is_dir else FILE_RIGHTS)
        if not rights:
            return
        try:
            target = os.open(path, os.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            return  # gone meanwhile: no rule, so no access, which is the safe side
        try:
            attr = _PathBeneathAttr(rights, target)
            if _syscall(_ADD_RULE, self.fd, _RULE_PATH_BENEATH, ctypes.byref(attr), 0) != 0:
                raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}: {_errno_text()}")
        finally:
            os.close(target)

    def restrictor(self) -> Callable[[], None]:
        """What the child runs between fork and exec: every capability gone, then the domain.

        A root process keeps reading other processes' ``environ`` and ``maps``
        under Landlock while it holds ``CAP_SYS_PTRACE`` (measured on 6.18), and
        could load a module or write a root-owned file with the rest: so the
        child drops the bounding set, the ambient set and all of its own
        capabilities first (a no-op for an ordinary user). It touches only C
        functions and structures made beforehand, so it is safe after a fork.
        """
        fd, syscall, prctl, capset = self.fd, _syscall, _prctl, _capset
        header = _CapHeader(_CAPABILITY_VERSION_3, 0)
        nothing = (_CapData * 2)()

        def restrict() -> None:
            for cap in range(_LAST_CAPABILITY + 1):
                prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the last, EPERM unprivileged
            prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
            if capset(ctypes.byref(header), nothing) != 0:
                raise OSError(ctypes.get_errno(), "capset (dropping capabilities) failed")
            if prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or syscall(_RESTRICT_SELF, fd, 0):
                raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")

        return restrict

    def close(self) -> None:
        os.close(self.fd)


def zone_rules(zones: Mapping[Path, int]) -> Iterator[tuple[str, int, bool]]:
    """Rules that give each path the rights of the deepest zone holding it.

    ``zones`` maps resolved absolute paths to rights and must contain ``/``.
    Landlock rights only add up going down, so a folder holding a zone with
    fewer rights (a hidden dir: none) gets only what that zone has, and each
    of its other entries gets the rest by its own rule. An ancestor of a hidden
    dir therefore cannot be listed, nor can entries be created in or removed
    from it; its existing entries are as usable as ever. Symlinks get no rule
    (what they point to is judged where it lives); an entry that appears later
    has none either, so it is out of reach until the next call.

    Yields:
        ``(path, rights, is_dir)`` for each rule to add.
    """
    by_name = {str(path): rights for path, rights in zones.items()}
    # Every folder on the way to a zone, with the zones beneath it (itself excluded).
    beneath: dict[str, list[str]] = {}
    for name in by_name:
        for parent in Path(name).parents:
            beneath.setdefault(str(parent), []).append(name)
    yield from _place("/", by_name["/"], by_name, beneath, inherited=0)


def _place(
    node: str, own: int, zones: dict[str, int], beneath: dict[str, list[str]], inherited: int
) -> Iterator[tuple[str, int, bool]]:
    inside = beneath.get(node, [])
    floor = own
    for zone in inside:
        floor &= zones[zone]
    if floor & ~inherited:
        yield node, floor & ~inherited, os.path.isdir(node)
    inherited |= floor
    if not inside:
        return
    try:
        entries = list(os.scandir(node))
    except OSError:
        return  # unreadable to harness too: nothing beneath is granted
    for entry in entries:
        if entry.path in zones or entry.path in beneath:
            yield from _place(entry.path, zones.get(entry.path, own), zones, beneath, inherited)
        elif not entry.is_symlink() and own & ~inherited:
            yield entry.path, own & ~inherited, entry.is_dir(follow_symlinks=False)


def _errno_text() -> str:
    return os.strerror(ctypes.get_errno())
