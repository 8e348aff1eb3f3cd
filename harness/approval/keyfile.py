"""Where the approval signing key comes from: ``HARNESS_APPROVAL_KEY`` or a key file.

The key must live where the agent cannot reach it. The default file is
``$XDG_STATE_HOME/harness/approval.key`` (``~/.local/state/harness/approval.key``):
outside the workdir, and hidden from sandboxed bash. A key file inside the
workdir or the state dir would let a tool call read or replace it, so that
layout is refused rather than used.

The file is created once, atomically: the key is written to a fresh temp file
opened with ``O_CREAT|O_EXCL`` (mode 0600) and hard-linked into place, so two
processes starting together agree on one key and nobody ever reads a half
written one. A key file that others can read, that is not a regular file, or
that another user owns is refused.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

from harness.core.errors import ConfigurationError

__all__ = [
    "KEY_ENV",
    "MIN_KEY_CHARS",
    "approval_key_folder",
    "default_key_path",
    "load_approval_key",
]

KEY_ENV = "HARNESS_APPROVAL_KEY"
MIN_KEY_CHARS = 16
_KEY_BYTES = 32


def default_key_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/harness/approval.key``, else ``~/.local/state/harness/approval.key``.

    A relative ``XDG_STATE_HOME`` is ignored, as the XDG spec says.
    """
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return root / "harness" / "approval.key"


def approval_key_folder(
    *, workdir: Path | None, state_dir: Path | None, environ: Mapping[str, str] | None = None
) -> Path:
    """The folder of the key file (and the decision ledger), checked to be out of reach.

    Raises:
        ConfigurationError: it resolves inside the workdir or the state dir.
    """
    folder = default_key_path(environ).parent.resolve()
    for name, place in (("workdir", workdir), ("state dir", state_dir)):
        if place is not None and folder.is_relative_to(place.resolve()):
            raise ConfigurationError(
                f"the approval key folder {folder} would be inside the {name} "
                f"({place.resolve()}), where a tool call could read or replace the key; "
                "set XDG_STATE_HOME to a folder outside both"
            )
    return folder


def load_approval_key(
    secret: str | None,
    *,
    workdir: Path | None,
    state_dir: Path | None,
    environ: Mapping[str, str] | None = None,
) -> bytes:
    """The key: ``secret`` (from ``HARNESS_APPROVAL_KEY``) or the key file, created if missing.

    Raises:
        ConfigurationError: the secret is too short, the key file would sit inside
            the workdir or the state dir, or the key file is unsafe or unreadable.
    """
    if secret is not None and secret.strip():
        if len(secret.strip()) < MIN_KEY_CHARS:
            raise ConfigurationError(
                f"{KEY_ENV} is too short ({len(secret.strip())} characters); use at least "
                f"{MIN_KEY_CHARS} random characters, e.g. the output of "
                "`python -c 'import secrets; print(secrets.token_hex(32))'`"
            )
        return secret.strip().encode("utf-8")
    folder = approval_key_folder(workdir=workdir, state_dir=state_dir, environ=environ)
    path = folder / default_key_path(environ).name
    if not path.exists():
        _create(path)
    return _read(path)


def _create(path: Path) -> None:
    folder = path.parent
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if folder.stat().st_uid == os.getuid() and stat.S_IMODE(folder.stat().st_mode) != 0o700:
            os.chmod(folder, 0o700)
        temp = folder / f".{path.name}.{secrets.token_hex(6)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(temp, flags, 0o600)
        try:
            os.write(fd, (secrets.token_hex(_KEY_BYTES) + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, path)  # fails if another process created the key first
        except FileExistsError:
            pass
        finally:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
    except OSError as exc:
        raise ConfigurationError(
            f"cannot create the approval key file {path} ({exc.strerror or exc}); make its "
            f"folder writable, set XDG_STATE_HOME elsewhere, or set {KEY_ENV}"
        ) from None


def _read(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise ConfigurationError(
            f"cannot open the approval key file {path} ({exc.strerror or exc}); it must be a "
            f"regular file (not a symlink) readable by you, or set {KEY_ENV}"
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigurationError(f"the approval key file {path} is not a regular file")
        if info.st_uid != os.getuid():
            raise ConfigurationError(
                f"the approval key file {path} belongs to another user (uid {info.st_uid}); "
                "remove it so harness creates a new one"
            )
        if stat.S_IMODE(info.st_mode) & 0o077:
            raise ConfigurationError(
                f"the approval key file {path} is readable or writable by others "
                f"(mode {stat.S_IMODE(info.st_mode):04o}); run `chmod 600 {path}`"
            )
        text = os.read(fd, 4096).decode("ascii", errors="replace").strip()
    finally:
        os.close(fd)
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < MIN_KEY_CHARS:
        raise ConfigurationError(
            f"the approval key file {path} does not hold a key (expected {_KEY_BYTES * 2} hex "
            "digits); remove it so harness creates a new one (pending approvals are then void)"
        )
    return key
