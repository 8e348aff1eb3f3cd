"""``llm_cassette`` knows its model (``--harness-model``, else the marker's ``model=``)
and keeps each model's recording at its own path; cassettes recorded before the
model was in the path still replay, with a note on moving them; and every
re-record hint repeats the options that chose the path."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.testing.cassettes.llm_cassette import llm_cassette_path

# A cassette with nothing in it: the tests below only open it.
EMPTY = "interactions: []\nversion: 1\n"

PROBE = """
import os
import pytest


@pytest.mark.llm_cassette(model="gpt-4.1-mini")
def test_pinned(llm_cassette):
    print("\\nPATH", os.path.relpath(llm_cassette.path), "MODEL", llm_cassette.model)


def test_free(llm_cassette):
    print("\\nPATH", os.path.relpath(llm_cassette.path), "MODEL", llm_cassette.model)
"""


def _cassette(pytester: pytest.Pytester, *parts: str) -> Path:
    path = pytester.path.joinpath("cassettes", *parts)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(EMPTY, "utf-8")
    return path


def _probe(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_probe=PROBE)
    return pytester.runpytest("--assert=plain", "-s", "-p", "no:randomly", *args)


@given(model=st.text(min_size=1, max_size=30))
def test_any_model_name_is_one_folder_inside_the_cassette_dir(model: str) -> None:
    root = Path("/c")
    path = llm_cassette_path(root, "tests/test_a.py", "test_x", model)
    assert path.parent.parent.parent.parent == root  # <root>/<model>/tests/test_a/
    assert path.parts[2] not in ("", ".", "..") and "/" not in path.parts[2]
    assert llm_cassette_path(root, "tests/test_a.py", "test_x") == root / "tests/test_a/test_x.yaml"


def test_the_marker_and_the_option_set_the_model_and_its_path(pytester: pytest.Pytester) -> None:
    _cassette(pytester, "gpt-4.1-mini", "test_probe", "test_pinned.yaml")
    _cassette(pytester, "test_probe", "test_free.yaml")
    pinned = _probe(pytester)
    pinned.assert_outcomes(passed=2)
    pinned.stdout.fnmatch_lines(
        [
            "PATH cassettes/gpt-4.1-mini/test_probe/test_pinned.yaml MODEL gpt-4.1-mini",
            "PATH cassettes/test_probe/test_free.yaml MODEL None",
        ]
    )

    _cassette(pytester, "gpt-5-mini", "test_probe", "test_pinned.yaml")
    _cassette(pytester, "gpt-5-mini", "test_probe", "test_free.yaml")
    upgraded = _probe(pytester, "--harness-model=gpt-5-mini")  # wins over the marker
    upgraded.assert_outcomes(passed=2)
    upgraded.stdout.fnmatch_lines(
        [
            "PATH cassettes/gpt-5-mini/test_probe/test_pinned.yaml MODEL gpt-5-mini",
            "PATH cassettes/gpt-5-mini/test_probe/test_free.yaml MODEL gpt-5-mini",
        ]
    )


def test_a_cassette_without_a_model_part_still_replays_with_a_note_to_move_it(
    pytester: pytest.Pytester,
) -> None:
    legacy = _cassette(pytester, "test_probe", "test_pinned.yaml")
    _cassette(pytester, "test_probe", "test_free.yaml")
    result = _probe(pytester)
    result.assert_outcomes(passed=2)
    moved = pytester.path / "cassettes" / "gpt-4.1-mini" / "test_probe" / "test_pinned.yaml"
    note = f"harness: {legacy} has no model in its path; move it to {moved}*"
    result.stdout.fnmatch_lines([note])
    assert result.stdout.str().count("has no model in its path") == 1

    # A new model never replays the old model's answers: its own file is missing.
    other = _probe(pytester, "--harness-model=gpt-5-mini", "-k", "pinned")
    other.assert_outcomes(errors=1)
    assert "gpt-5-mini/test_probe/test_pinned.yaml" in other.stdout.str()


@pytest.mark.parametrize(
    "mode",
    [
        "all",
        pytest.param("rewrite", marks=pytest.mark.deep),
        pytest.param("new_episodes", marks=pytest.mark.deep),
    ],
)
def test_recording_the_marker_model_writes_its_own_file_never_the_baseline(
    pytester: pytest.Pytester, mode: str
) -> None:
    legacy = _cassette(pytester, "test_probe", "test_pinned.yaml")
    result = _probe(pytester, f"--record-mode={mode}", "-k", "pinned")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["PATH cassettes/gpt-4.1-mini/test_probe/test_pinned.yaml *"])
    assert legacy.read_text("utf-8") == EMPTY and "has no model" not in result.stdout.str()


def test_a_model_in_the_config_fixture_is_refused_in_one_line(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture\ndef llm_cassette_config():\n"
        "    return {'model': 'gpt-5-mini'}\n"
    )
    result = _probe(pytester, "-k", "free")
    assert "use @pytest.mark.llm_cassette(model=...) or --harness-model" in result.stdout.str()


HINTED = """
import pytest


@pytest.mark.eval("hinted")
def test_cassette(llm_cassette):
    pass


@pytest.mark.eval("hinted provider")
@pytest.mark.parametrize("provider_name", ["openai"])
def test_provider(provider):
    pass
"""


def test_re_record_hints_keep_every_option_that_chose_the_path(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_hinted=HINTED)
    elsewhere = pytester.path / "recordings"
    result = pytester.runpytest(
        "--assert=plain",
        "-p",
        "no:randomly",
        "--harness-model=gpt-5-mini",
        f"--harness-cassette-dir={elsewhere}",
        "--harness-epochs=2",
        "--harness-stream=on",
    )
    result.assert_outcomes(errors=4)  # no cassette recorded yet, for either fixture
    hints = [line for line in result.stdout.lines if "pytest 'test_hinted.py::" in line]
    assert len(hints) >= 4, result.stdout.str()
    for flag in (
        "--harness-model=gpt-5-mini",
        f"--harness-cassette-dir={elsewhere}",
        "--harness-epochs=2",
        "--harness-stream=on",
    ):
        assert all(flag in line for line in hints), (flag, hints)
    assert any("--harness-provider=openai" in line for line in hints)


UPGRADED = """
import pytest


@pytest.mark.eval("hello")
@pytest.mark.llm_cassette(model="gpt-4.1-mini")
def test_hello(llm_cassette):
    client = llm_cassette.openai()
    answer = client.chat.completions.create(
        model=llm_cassette.model, messages=[{"role": "user", "content": "say hello"}]
    )
    assert answer.choices[0].message.content == "hello"
"""


@pytest.mark.deep
def test_an_upgrade_records_beside_the_baseline_and_view_opens_each_rows_own(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    import hashlib
    import json
    import os
    import subprocess
    import sys

    from harness.evals import load_report
    from harness.simulator import SimulatorServer
    from harness.view import unpack_json

    pytester.makepyfile(test_up=UPGRADED)
    script = {"version": 1, "rules": [{"when": {"last_user_contains": "hello"}, "reply": "hello"}]}
    with SimulatorServer(script) as sim:
        for model in ("gpt-4.1-mini", "gpt-5-mini"):
            recorded = pytester.runpytest(
                "--assert=plain",
                "--record-mode=once",
                f"--harness-base-url={sim.url}",
                f"--harness-model={model}",
            )
            recorded.assert_outcomes(passed=1)
    old, new = (
        pytester.path / "cassettes" / m / "test_up" / "test_hello.yaml"
        for m in ("gpt-4.1-mini", "gpt-5-mini")
    )
    assert old.is_file() and new.is_file() and old.read_bytes() != new.read_bytes()
    for model, report in (("gpt-4.1-mini", "old.json"), ("gpt-5-mini", "new.json")):
        replay = pytester.runpytest(
            "--assert=plain", f"--harness-model={model}", f"--harness-report={report}"
        )
        replay.assert_outcomes(passed=1)
    (row,) = load_report(pytester.path / "new.json").rows
    assert row.model == "gpt-5-mini" and row.cassette_path == str(new)
    assert row.cassette_sha256 == hashlib.sha256(new.read_bytes()).hexdigest()

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    page = elsewhere / "new.html"
    done = subprocess.run(
        [sys.executable, "-m", "harness", "view", str(pytester.path / "new.json"), "-o", str(page)],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    text = page.read_text("utf-8")
    start = text.index('id="harness-data">') + len('id="harness-data">')
    data = json.loads(text[start : text.index("</script>", start)])
    (run,) = data["reports"][0]["cases"][0]["rows"]
    shown = unpack_json(data["packed"])["transcripts"][run["transcript"]["index"]]
    assert shown["from"] == str(new)


def test_a_model_named_in_the_requests_is_checked_against_the_cassettes() -> None:
    from harness.testing.cassettes.llm_paths import other_model_note

    path = Path("cassettes/gpt-5-mini/test_up/test_hello.yaml")
    assert other_model_note(path, "gpt-5-mini", "gpt-5-mini") is None
    assert other_model_note(path, "gpt-5-mini", "gpt-5-mini-2025-08-07") is None  # dated
    assert other_model_note(path, "gpt-5-mini", "") is None  # no model call
    said = other_model_note(path, "gpt-5-mini", "gpt-4.1-mini")
    assert said is not None and "pass llm_cassette.model to the agent" in said


@pytest.mark.deep
def test_a_test_that_ignores_its_model_is_told_after_recording(pytester: pytest.Pytester) -> None:
    from harness.simulator import SimulatorServer

    pytester.makepyfile(
        test_up=UPGRADED.replace("model=llm_cassette.model", 'model="gpt-4.1-mini"')
    )
    script = {"version": 1, "rules": [{"when": {"last_user_contains": "hello"}, "reply": "hello"}]}
    with SimulatorServer(script) as sim:
        recorded = pytester.runpytest(
            "--assert=plain",
            "--record-mode=once",
            f"--harness-base-url={sim.url}",
            "--harness-model=gpt-5-mini",
        )
    recorded.assert_outcomes(passed=1)
    recorded.stdout.fnmatch_lines(
        [
            "harness: *gpt-5-mini/test_up/test_hello.yaml is gpt-5-mini's cassette but the test's "
            "requests named gpt-4.1-mini*; pass llm_cassette.model to the agent"
        ]
    )
