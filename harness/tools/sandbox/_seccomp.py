"""A seccomp filter: no unix socket to connect with, no kernel keyring, no io_uring.

A listening unix socket is a door out of any sandbox that leaves it reachable:
a tmux server (on any socket, ``tmux -S /tmp/x``), D-Bus, docker, an
ssh-agent, harness's own processes. Landlock (up to ABI 7, Linux 6.18) governs
abstract sockets but not connecting to a named one, and a list of known paths
misses every socket nobody thought of. So the rule is by system call, the same
in and out of bwrap: a bash call cannot make an ``AF_UNIX`` socket at all
(``socket`` fails with ``EACCES``), which closes every named and abstract
socket at once, wherever it lives. What stays: ``socketpair`` of stream or
seqpacket type (pipes between the call's own processes; a datagram pair is
refused, since its ``sendto``/``connect`` can still name any socket path),
TCP/UDP as the network setting allows, netlink.

``AF_VSOCK`` is refused as well: it reaches the hypervisor's host, past the
network namespace and Landlock's TCP rules. ``prlimit`` may change only the
caller's own limits, so a call can neither lift its own limits through a
child nor shrink harness's (a crash waiting for the next allocation).

The kernel keyrings hold what harness or the user keeps there (``keyctl``,
``add_key``, ``request_key``): refused too, whichever keyring, the session's
or the user's. ``io_uring`` is refused because its operations (connect,
socket) bypass the filter.

Supported: x86_64 and aarch64. A system call of any other ABI (a 32-bit
binary, x32) is refused with ``ENOSYS``, as the filter could not see its
arguments the same way. Elsewhere ``program`` returns None and bash refuses to run.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
from collections.abc import Callable

__all__ = ["install_filter", "memfd_with", "program", "session_keyring_leaver"]

_LD_W_ABS, _JEQ, _JGE, _AND, _RET = 0x20, 0x15, 0x35, 0x54, 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_AF_UNIX, _AF_VSOCK = 1, 40
_SOCK_STREAM, _SOCK_SEQPACKET = 1, 5
_X32_BIT = 0x40000000
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, _PR_SET_NO_NEW_PRIVS = 22, 2, 38

# machine -> (audit arch, socket, socketpair, keyring calls, io_uring calls, prlimit64)
_ARCHES: dict[str, tuple[int, int, int, tuple[int, ...], tuple[int, ...], int]] = {
    "x86_64": (0xC000003E, 41, 53, (248, 249, 250), (425, 426, 427), 302),
    "aarch64": (0xC00000B7, 198, 199, (217, 218, 219), (425, 426, 427), 261),
}

# seccomp_data: nr at 0, arch at 4, args at 16 + 8 * i (low word first: little endian).
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24

Op = tuple[int, str | int, str | int, int]


def program(machine: str | None = None) -> bytes | None:
    """The filter as raw ``sock_filter`` records; None on an unsupported machine."""
    entry = _ARCHES.get(machine or platform.machine())
    if entry is None:
        return None
    arch, socket_nr, pair_nr, keyring, uring, prlimit_nr = entry
    ops: list[Op | str] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ, 0, "nosys", arch),
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if arch == _ARCHES["x86_64"][0]:
        ops.append((_JGE, "nosys", 0, _X32_BIT))
    ops += [(_JEQ, "socket", 0, socket_nr), (_JEQ, "pair", 0, pair_nr)]
    ops += [(_JEQ, "deny", 0, nr) for nr in keyring]
    ops += [(_JEQ, "nosys", 0, nr) for nr in uring]
    ops += [
        (_JEQ, "prlimit", 0, prlimit_nr),
        (_RET, 0, 0, _ALLOW),
        "socket",
        (_LD_W_ABS, 0, 0, _ARG0),
        (_JEQ, "deny", 0, _AF_UNIX),
        (_JEQ, "deny", 0, _AF_VSOCK),
        (_RET, 0, 0, _ALLOW),
        "prlimit",  # its own limits only (pid 0): not harness's, not anyone else's
        (_LD_W_ABS, 0, 0, _ARG0),
        (_JEQ, 0, "deny", 0),
        (_LD_W_ABS, 0, 0, _ARG0 + 4),
        (_JEQ, "allow", "deny", 0),
        "pair",
        (_LD_W_ABS, 0, 0, _ARG0),
        (_JEQ, 0, "allow", _AF_UNIX),
        (_LD_W_ABS, 0, 0, _ARG1),
        (_AND, 0, 0, 0xF),  # SOCK_NONBLOCK and SOCK_CLOEXEC are flags above the type
        (_JEQ, "allow", 0, _SOCK_STREAM),
        (_JEQ, "allow", "deny", _SOCK_SEQPACKET),
        "allow",
        (_RET, 0, 0, _ALLOW),
        "deny",
        (_RET, 0, 0, _ERRNO | errno.EACCES),
        "nosys",
        (_RET, 0, 0, _ERRNO | errno.ENOSYS),
    ]
    return _assemble(ops)


def _assemble(ops: list[Op | str]) -> bytes:
    """Resolve labels into the relative jump offsets classic BPF uses."""
    labels: dict[str, int] = {}
    count = 0
    for op in ops:
        if isinstance(op, str):
            labels[op] = count
        else:
            count += 1
    out = bytearray()
    index = 0
    for op in ops:
        if isinstance(op, str):
            continue
        code, true, false, k = op
        jt = labels[true] - index - 1 if isinstance(true, str) else true
        jf = labels[false] - index - 1 if isinstance(false, str) else false
        out += struct.pack("=HBBI", code, jt, jf, k)
        index += 1
    return bytes(out)


class _Filter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                ("k", ctypes.c_uint32)]  # fmt: skip


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


def install_filter(raw: bytes) -> Callable[[], None]:
    """What a child runs before exec to load ``raw`` (setting no_new_privs, which it needs).

    The structures are made here, in the parent: the returned function only
    calls ``prctl``, so it is safe between fork and exec.
    """
    count = len(raw) // 8
    records = (_Filter * count).from_buffer_copy(raw)
    prog = _Program(count, ctypes.cast(records, ctypes.POINTER(_Filter)))
    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def install() -> None:
        _ = records  # kept alive with the closure
        if prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or prctl(
            _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0
        ):
            raise OSError(ctypes.get_errno(), "seccomp filter could not be loaded")

    return install


def memfd_with(raw: bytes) -> int:
    """A close-on-exec descriptor holding ``raw``, for ``bwrap --seccomp FD`` (pass it on)."""
    fd = os.memfd_create("harness-seccomp", os.MFD_CLOEXEC)
    os.write(fd, raw)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


_KEYCTL_JOIN_SESSION_KEYRING = 1


def session_keyring_leaver(machine: str | None = None) -> Callable[[], None]:
    """What a child runs before exec to join a new, empty session keyring.

    A process inherits its parent's session keyring; joining an anonymous new
    one leaves harness's behind (the filter then refuses every keyring call
    anyway, the user's keyring included). Safe between fork and exec.
    """
    entry = _ARCHES.get(machine or platform.machine())
    libc = ctypes.CDLL(None, use_errno=True)
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    keyctl = entry[3][2] if entry is not None else -1

    def leave() -> None:
        if keyctl >= 0:
            syscall(keyctl, _KEYCTL_JOIN_SESSION_KEYRING, None)  # fails only without keyrings

    return leave
