"""Two processes racing to resume one approval: the tool runs exactly once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from harness import Settings, build_application
from harness.providers import ScriptedProvider, tool_call

RACER = r"""
import sys, threading
from pathlib import Path
from harness import Settings, build_application
from harness.core import ApprovalError
from harness.providers import ScriptedProvider

work, state, approval_id = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
settings = Settings(workdir=work, state_dir=state, enabled_tools=("read", "bash"))
app = build_application(settings, provider=ScriptedProvider(["done"] * 10))
start = threading.Barrier(10)
wins = []

def attempt():
    start.wait(timeout=20)
    try:
        app.resume_approval(approval_id, "approve", session="race")
        wins.append(1)
    except ApprovalError:
        pass

threads = [threading.Thread(target=attempt) for _ in range(10)]
for t in threads: t.start()
for t in threads: t.join(timeout=60)
print(len(wins))
"""


def test_two_processes_of_ten_threads_execute_once(tmp_path: Path) -> None:
    work, state = tmp_path / "work", tmp_path / "state"
    work.mkdir()
    (work / "scratch").write_text("deleting an existing file needs approval\n")
    provider = ScriptedProvider(
        [tool_call("bash", command="echo ran >> counter.txt; rm -f scratch")]
    )
    settings = Settings(workdir=work, state_dir=state, enabled_tools=("read", "bash"))
    paused = build_application(settings, provider=provider).run("go", session="race")
    assert paused.approval_id is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(work), str(state), paused.approval_id],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    wins = []
    for racer in racers:
        out, err = racer.communicate(timeout=120)
        assert racer.returncode == 0, err
        wins.append(int(out.strip().splitlines()[-1]))
    assert sum(wins) == 1
    assert (work / "counter.txt").read_text() == "ran\n"
    record = json.loads(
        next((state / "sessions" / "race" / "approvals").glob("*.json")).read_text()
    )
    assert record["status"] == "consumed"
