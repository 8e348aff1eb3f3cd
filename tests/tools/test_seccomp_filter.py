"""The seccomp program, run by a small classic-BPF interpreter against its rules.

The kernel tests show the filter works for the calls tried; these run the very
bytes bwrap and the Landlock path load over any system call, architecture and
arguments, so a wrong jump offset or a missed case shows too.
"""

from __future__ import annotations

import errno
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.tools.sandbox._seccomp import program

ALLOW, ERRNO = 0x7FFF0000, 0x00050000
ARCHES = {
    "x86_64": (0xC000003E, 41, 53, {248, 249, 250}, {425, 426, 427}, 302),
    "aarch64": (0xC00000B7, 198, 199, {217, 218, 219}, {425, 426, 427}, 261),
}


def run_bpf(raw: bytes, nr: int, arch: int, args: list[int]) -> int:
    """Interpret ``raw`` over one ``seccomp_data`` (little endian), as the kernel would."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, *args)
    ops = [struct.unpack("=HBBI", raw[i : i + 8]) for i in range(0, len(raw), 8)]
    acc, pc = 0, 0
    for _ in range(len(ops) + 1):
        code, jt, jf, k = ops[pc]
        if code == 0x20:  # ld [k]
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == 0x54:  # and #k
            acc &= k
        elif code == 0x15:  # jeq #k
            pc += jt if acc == k else jf
        elif code == 0x35:  # jge #k
            pc += jt if acc >= k else jf
        elif code == 0x06:  # ret #k
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        pc += 1
    raise AssertionError("the program did not return")


def expected(machine: str, nr: int, arch: int, args: list[int]) -> int:
    native, socket_nr, pair_nr, keyring, uring, prlimit_nr = ARCHES[machine]
    low = [arg & 0xFFFFFFFF for arg in args]
    if arch != native or (machine == "x86_64" and nr & 0xFFFFFFFF >= 0x40000000):
        return ERRNO | errno.ENOSYS
    nr &= 0xFFFFFFFF
    if nr == socket_nr and low[0] in (1, 40):
        return ERRNO | errno.EACCES
    if nr == pair_nr and low[0] == 1 and low[1] & 0xF not in (1, 5):
        return ERRNO | errno.EACCES
    if nr in keyring:
        return ERRNO | errno.EACCES
    if nr in uring:
        return ERRNO | errno.ENOSYS
    if nr == prlimit_nr and args[0] != 0:
        return ERRNO | errno.EACCES
    return ALLOW


interesting_nr = st.sampled_from([41, 53, 198, 199, 217, 248, 250, 261, 302, 425, 0, 1, 59])
any_nr = st.one_of(
    interesting_nr, interesting_nr, st.integers(0, 2**31 - 1), st.integers(0x40000000, 0x40000200)
)
# Domains and types are small numbers, often with SOCK_NONBLOCK/SOCK_CLOEXEC or high bits.
small = st.builds(
    lambda value, flags: value | flags,
    st.integers(0, 16) | st.sampled_from([40]),
    st.sampled_from([0, 0x800, 0x80000, 0x80800, 1 << 32]),
)
arg = st.one_of(small, st.integers(0, 2**64 - 1))


@settings(max_examples=200)
@given(
    machine=st.sampled_from(sorted(ARCHES)),
    nr=any_nr,
    foreign=st.booleans(),
    args=st.tuples(small, small, arg, arg, arg, arg).map(list),
)
def test_the_filter_decides_every_call_as_its_rules_say(
    machine: str, nr: int, foreign: bool, args: list[int]
) -> None:
    raw = program(machine)
    assert raw is not None
    arch = 0x40000003 if foreign else ARCHES[machine][0]  # i386 as the foreign one

    assert run_bpf(raw, nr, arch, args) == expected(machine, nr, arch, args)


@pytest.mark.parametrize("machine", sorted(ARCHES))
@pytest.mark.parametrize(
    ("call", "args", "verdict"),
    [
        ("socket", [1, 1], ERRNO | errno.EACCES),  # AF_UNIX stream
        ("socket", [1, 0x80002], ERRNO | errno.EACCES),  # AF_UNIX dgram, cloexec
        ("socket", [40, 1], ERRNO | errno.EACCES),  # AF_VSOCK
        ("socket", [2, 1], ALLOW),  # AF_INET
        ("socket", [16, 3], ALLOW),  # AF_NETLINK
        ("pair", [1, 1], ALLOW),
        ("pair", [1, 0x80005], ALLOW),  # seqpacket, cloexec
        ("pair", [1, 2], ERRNO | errno.EACCES),  # dgram
        ("pair", [1, 0x80802], ERRNO | errno.EACCES),
        ("prlimit", [0, 7], ALLOW),
        ("prlimit", [4242, 7], ERRNO | errno.EACCES),
    ],
)
def test_the_socket_and_prlimit_cases(
    machine: str, call: str, args: list[int], verdict: int
) -> None:
    native, socket_nr, pair_nr, _, _, prlimit_nr = ARCHES[machine]
    nr = {"socket": socket_nr, "pair": pair_nr, "prlimit": prlimit_nr}[call]
    raw = program(machine)
    assert raw is not None

    assert run_bpf(raw, nr, native, [*args, 0, 0, 0, 0]) == verdict


def test_an_unknown_machine_has_no_filter() -> None:
    assert program("riscv64") is None and program("i686") is None
