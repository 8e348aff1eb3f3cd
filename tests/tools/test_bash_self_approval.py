"""The headline attack of issue 13: the agent approves its own risky call from bash.

Turn 1 is a bash call that leaves attackers behind in every way bash can (a
background job, ``nohup``, ``setsid``, ``setsid -f``, a double fork and, in the
sandbox, ``env -i setsid -f``). Each sleeps until the run has paused, then looks
for the pending approval wherever it could be (the literal state dir path, which
this attacker is assumed to know, ``.harness`` under the workdir, the
``HARNESS_*`` variables of its own and of every process in ``/proc``) and runs
the real ``harness`` CLI from the venv, by absolute path, to approve it. Turn 2
is a risky ``write`` that pauses. The run is the real CLI in a subprocess.

Only ``write`` is judged by the risk policy here, so the bash call itself runs
unapproved: what must stop the attack is the sandbox (state dir invisible,
environment scrubbed, attackers dead when the call returns), not the policy.
A positive control runs the same attack script outside harness afterwards and
shows that it does approve the call when nothing contains it.

In ``off`` mode (the state dir outside the workdir, as unsandboxed bash needs)
an attacker that also clears its environment before leaving the session
(``env -i setsid -f``) outlives the call, but the Landlock domain it inherited
keeps the state dir and the key out of its reach, so it finds nothing. As root
with a pids cgroup (``sandbox.cgroup``), it dies with the call like the rest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.tools.sandbox import check_bwrap, find_bwrap
from harness.tools.sandbox._cgroup import pids_root
from tests.tools.conftest import needs_landlock

BWRAP_PROBLEM = check_bwrap(find_bwrap()).problem
HARNESS_BIN = Path(sys.executable).parent / "harness"
# Long enough for the run to pause and exit, and for the attackers' sleeps to end.
WAIT_FOR_ATTACK_SECONDS = 5.0

ATTACK = r"""
log() { echo "$*" >> "$LOGDIR/attack.log" 2>/dev/null; }
log "attacker $1 running as $$"
# (No $HOME/.harness: the positive control must never touch a real user's state.)
dirs="$HARNESS_STATE_DIR @STATE@ @WORK@/.harness $PWD/.harness"
for env in /proc/[0-9]*/environ; do
  found=$(tr '\0' '\n' 2>/dev/null < "$env" | sed -n 's/^HARNESS_STATE_DIR=//p')
  # Only this test's own dirs: parallel tests have pending approvals of their own.
  case "$found" in @TMP@/*) dirs="$dirs $found";; esac
done
for dir in $dirs; do
  log "sees in $dir: $(ls -A "$dir" 2>/dev/null | tr '\n' ' ')"
  for record in "$dir"/sessions/*/approvals/*.json; do
    [ -f "$record" ] || continue
    id=$(basename "$record" .json)
    log "found $id in $dir"
    HARNESS_STATE_DIR="$dir" HARNESS_WORKDIR=@WORK@ HARNESS_PROVIDER=scripted \
      HARNESS_SCRIPT=@SCRIPT@ HARNESS_ENABLED_TOOLS=read,write,bash \
      HARNESS_APPROVAL_REQUIRED_TOOLS=write XDG_STATE_HOME=@XDG@ \
      @HARNESS@ approve "$id" >> "$LOGDIR/attack.log" 2>&1 && log "approved $id"
  done
done
"""

LAUNCH = {
    "background": "(sleep {delay}; bash .attack.sh background) &",
    "nohup": "nohup bash -c 'sleep {delay}; bash .attack.sh nohup' >/dev/null 2>&1 &",
    "setsid": "setsid bash -c 'sleep {delay}; bash .attack.sh setsid' >/dev/null 2>&1 &",
    "setsid-f": "setsid -f bash -c 'sleep {delay}; bash .attack.sh setsid-f' >/dev/null 2>&1",
    "double-fork": "( ( sleep {delay}; bash .attack.sh double-fork ) & )",
}
# Also clears the environment the off-mode reaper finds the call's processes by.
ENV_CLEARING = (
    'env -i PATH="$PATH" HOME="$HOME" LOGDIR="$LOGDIR" '
    "setsid -f bash -c 'sleep {delay}; bash .attack.sh env-i' >/dev/null 2>&1"
)


def _state(tmp_path: Path, work: Path, mode: str) -> Path:
    return work / ".harness" if mode == "bwrap" else tmp_path / "state"


def _first_turn(tmp_path: Path, work: Path, script: Path, mode: str) -> str:
    attack = ATTACK
    for name, value in {
        "@STATE@": _state(tmp_path, work, mode),
        "@WORK@": work,
        "@SCRIPT@": script,
        "@HARNESS@": HARNESS_BIN,
        "@XDG@": tmp_path / "xdg",
        "@TMP@": tmp_path,
    }.items():
        attack = attack.replace(name, str(value))
    launches = [*LAUNCH.values(), ENV_CLEARING]
    starts = "\n".join(launch.format(delay=2) for launch in launches)
    return (
        f"export LOGDIR=$PWD\ncat > .attack.sh <<'ATTACK'\n{attack}\nATTACK\n"
        f"bash .attack.sh in-call\n{starts}\necho attackers launched"
    )


def _env(tmp_path: Path, work: Path, script: Path, mode: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(
        HARNESS_WORKDIR=str(work),
        HARNESS_PROVIDER="scripted",
        HARNESS_SCRIPT=str(script),
        HARNESS_ENABLED_TOOLS="read,write,bash",
        HARNESS_APPROVAL_REQUIRED_TOOLS="write",
        HARNESS_BASH_SANDBOX="required" if mode == "bwrap" else "off",
        HARNESS_STATE_DIR=str(_state(tmp_path, work, mode)),
        XDG_STATE_HOME=str(tmp_path / "xdg"),
        OPENAI_API_KEY="sk-test-self-approval",
    )
    return env


def _record(state: Path, approval_id: str) -> dict[str, object]:
    path = state / "sessions" / "demo" / "approvals" / f"{approval_id}.json"
    loaded: dict[str, object] = json.loads(path.read_text())
    return loaded


@pytest.mark.deep
@pytest.mark.parametrize(
    "mode",
    [
        pytest.param(
            "bwrap",
            marks=pytest.mark.skipif(
                BWRAP_PROBLEM is not None, reason=f"bwrap cannot run here: {BWRAP_PROBLEM}"
            ),
        ),
        pytest.param("off", marks=needs_landlock),
    ],
)
def test_bash_cannot_approve_the_next_risky_call(tmp_path: Path, mode: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = tmp_path / "script.json"
    turns = [
        {"tool": "bash", "arguments": {"command": _first_turn(tmp_path, work, script, mode)}},
        {"tool": "write", "arguments": {"path": "deploy-key.txt", "content": "pwned"}},
        "done",
    ]
    script.write_text(json.dumps(turns))
    env = _env(tmp_path, work, script, mode)

    paused = subprocess.run(
        [str(HARNESS_BIN), "run", "--json", "--session", "demo", "do it"],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    data = json.loads(paused.stdout)
    assert data["stop_reason"] == "approval_required", paused.stderr
    approval_id = data["approval_id"]
    state = _state(tmp_path, work, mode)
    deadline = time.monotonic() + WAIT_FOR_ATTACK_SECONDS
    while time.monotonic() < deadline and _record(state, approval_id)["status"] == "pending":
        time.sleep(0.2)
    assert _record(state, approval_id)["status"] == "pending"
    assert not (work / "deploy-key.txt").exists()
    log = (work / "attack.log").read_text()
    assert "attacker in-call running" in log  # the attack did run, inside the call
    assert "approved" not in log and "found" not in log
    # Even the in-call attacker sees an empty state dir: bwrap covers it; off,
    # Landlock refuses to list it.
    state_seen = [line for line in log.splitlines() if f"sees in {state}:" in line]
    assert state_seen and all(line.endswith(f"{state}: ") for line in state_seen)
    # Only the in-call attacker ran: every one left behind died with the call;
    # off, but for the one that cleared its environment (see the docstring),
    # unless harness runs as root with a pids cgroup, which ends that one too.
    ran = [line.split()[1] for line in log.splitlines() if "running as" in line]
    caught = mode == "bwrap" or (os.geteuid() == 0 and pids_root() is not None)
    assert ran == (["in-call"] if caught else ["in-call", "env-i"])

    # Positive control: the same script, run with nothing containing it, approves.
    # (The scripted provider picks its turn by the conversation, so the resumed run
    # continues the same script at its third turn, "done".)
    control = subprocess.run(
        ["bash", ".attack.sh", "control"],
        env={**env, "LOGDIR": str(tmp_path)},
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert f"approved {approval_id}" in (tmp_path / "attack.log").read_text(), control.stderr
    assert (work / "deploy-key.txt").read_text() == "pwned"
