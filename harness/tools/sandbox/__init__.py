"""The bash sandbox: bubblewrap on Linux, a scrubbed environment and no survivors.

Threat model. The agent (the model and every process its bash calls start) is
untrusted; only a human decides an approval, and only harness writes harness's
state (SPEC section 14).

Sandboxed (``HARNESS_BASH_SANDBOX=auto`` with a working bwrap, or ``required``):

* protected: the harness state dir and the approval-key dir are invisible (an
  empty tmpfs covers them, created first when they belong in the workdir, so
  nothing can be planted there either); ``/`` is read-only, only the workdir is
  writable; ``/tmp`` is private and ``/run`` empty (no host D-Bus, systemd or
  docker socket); the network, loopback included, is off unless
  ``HARNESS_BASH_NETWORK=on``; every process the call starts dies with it (PID
  namespace), and no host process is visible; nothing can type into the user's
  terminal (no controlling terminal, no TIOCSTI); no capability is kept even when
  harness runs as root; the environment holds no key, token, secret,
  ``HARNESS_*`` or provider variable, nor a socket address (``SSH_AUTH_SOCK``,
  ``TMUX``, ``DBUS_SESSION_BUS_ADDRESS``, ...).
* not protected: whatever the user can read stays readable (read-only), e.g.
  ``~/.ssh``, ``~/.aws``, a ``.env`` in the workdir; the workdir itself is fully
  writable (``.git/hooks`` included, which a later human ``git commit`` runs,
  and harness itself when its venv or an editable install lives there); with
  the network on, anything reachable over TCP/UDP can be reached (a local
  ``harness serve`` too); kernel bugs.

Both paths: no unix socket, named or abstract, wherever it lives, and no kernel
keyring (a seccomp filter, see ``_seccomp``; each call also starts in a new
session keyring); memory, processes, file size, CPU time and output are limited
(``_limits``; as root, processes by a pids cgroup where harness can make one).

Unsandboxed (``off``, or ``auto`` without a working bwrap, with one warning):
the same scrubbed environment, process-group + session + tag-variable reaping
(see ``_reaper``) after every call, and a Landlock domain per call (see
``_confinement``): the state dir, the approval-key dir and harness's process out
of reach, only the workdir and ``/tmp`` writable, no capability even as root.
Where Landlock cannot promise that (no Landlock, the state dir inside the
workdir, a bind mount of it, a reachable systemd/D-Bus/docker/tmux socket)
bash refuses, saying why. What remains open there: the network, processes that
leave the session with a new environment (``env -i setsid -f``; as root with a
pids cgroup, those end with the call too), everything the user can read.
"""

from harness.tools.sandbox._argv import ISOLATION_FLAGS, KERNEL_KNOBS, OverlayMount, bwrap_argv
from harness.tools.sandbox._confinement import (
    Confinement,
    confine,
    confinement_problem,
    landlock_problem,
    unsandboxed_status,
)
from harness.tools.sandbox._discovery import (
    BwrapCheck,
    check_bwrap,
    find_bwrap,
    probe_bwrap,
    probe_overlay,
)
from harness.tools.sandbox._environment import (
    DEFAULT_PATH,
    NON_INTERACTIVE,
    EnvironmentFilter,
    is_forbidden_name,
)
from harness.tools.sandbox._exposure import make_undumpable, secret_names
from harness.tools.sandbox._hidden import approval_key_dir, existing_hidden_dirs
from harness.tools.sandbox._launch import SCRATCH_PLACES, OverlayDirs, ShellLauncher, ShellRun
from harness.tools.sandbox._limits import ResourceLimits
from harness.tools.sandbox._reaper import TAG_VARIABLE, kill_survivors, open_pidfd, wait_for_exit
from harness.tools.sandbox._selection import (
    SANDBOX_MODES,
    BwrapFinder,
    SandboxChoice,
    SandboxMode,
    choose_sandbox,
)

__all__ = [
    "DEFAULT_PATH",
    "ISOLATION_FLAGS",
    "KERNEL_KNOBS",
    "NON_INTERACTIVE",
    "SANDBOX_MODES",
    "SCRATCH_PLACES",
    "TAG_VARIABLE",
    "BwrapCheck",
    "BwrapFinder",
    "Confinement",
    "EnvironmentFilter",
    "OverlayDirs",
    "OverlayMount",
    "ResourceLimits",
    "SandboxChoice",
    "SandboxMode",
    "ShellLauncher",
    "ShellRun",
    "approval_key_dir",
    "bwrap_argv",
    "check_bwrap",
    "choose_sandbox",
    "confine",
    "confinement_problem",
    "existing_hidden_dirs",
    "find_bwrap",
    "is_forbidden_name",
    "kill_survivors",
    "landlock_problem",
    "make_undumpable",
    "open_pidfd",
    "probe_bwrap",
    "probe_overlay",
    "secret_names",
    "unsandboxed_status",
    "wait_for_exit",
]
