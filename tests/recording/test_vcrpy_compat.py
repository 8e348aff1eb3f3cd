"""Plain vcrpy and pytest-recording replay every committed cassette.

The documented ``match_on`` (:data:`VCRPY_MATCH_ON`: vcrpy's default plus the
JSON body) replays a harness cassette in vanilla vcrpy for the SDK client harness
builds, because simulator recordings are stored under the provider's real host.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
import vcr
import yaml

from harness.core.wires import host_matches, wire
from harness.recording import VCRPY_MATCH_ON
from harness.testing.cassettes.recorded import RECORDED_PROVIDERS
from tests.recording.vanilla import COMMITTED, ROOT, replay_through_sdk


def test_there_are_plain_and_streaming_cassettes_of_every_provider() -> None:
    names = {
        (p.relative_to(ROOT / "cassettes").parts[0], p.stem.endswith("-stream")) for p in COMMITTED
    }
    assert names == {(p, s) for p in RECORDED_PROVIDERS for s in (False, True)}


def _sample() -> list[Path]:
    """The first plain and streaming cassette of each provider."""
    firsts: dict[tuple[str, bool], Path] = {}
    for path in COMMITTED:
        key = (path.relative_to(ROOT / "cassettes").parts[0], path.stem.endswith("-stream"))
        firsts.setdefault(key, path)
    return sorted(firsts.values())


# The default run replays the sample; the deep tier every committed cassette.
_SAMPLE = frozenset(_sample())  # once: each call walks every cassette (0.4 s a process)


@pytest.mark.parametrize(
    "path",
    [p if p in _SAMPLE else pytest.param(p, marks=pytest.mark.deep) for p in COMMITTED],
    ids=lambda p: p.relative_to(ROOT / "cassettes").as_posix(),
)
def test_vanilla_vcrpy_replays_the_committed_cassette(path: Path) -> None:
    recorder = vcr.VCR(record_mode="none", match_on=VCRPY_MATCH_ON)
    with recorder.use_cassette(str(path)) as cassette:
        answered = replay_through_sdk(path)
    assert answered == len(cassette) > 0
    assert cassette.all_played


@pytest.mark.deep
def test_the_stored_host_is_the_api_and_the_metadata_names_the_simulator() -> None:
    for path in COMMITTED:
        data = yaml.safe_load(path.read_text("utf-8"))
        # The real API's host of the cassette's own wire (the registry's, not a proxy's).
        hosts = wire(path.relative_to(ROOT / "cassettes").parts[0]).hosts
        for interaction in data["interactions"]:
            url = urlsplit(interaction["request"]["uri"])
            assert url.scheme == "https" and any(host_matches(h, url.netloc) for h in hosts), path
        assert data["harness"]["recorded_against"].endswith("(harness simulator)"), path


def test_default_match_on_without_the_body_is_not_what_is_documented() -> None:
    # The body is part of the documented match_on: without it, two requests to the
    # same endpoint are told apart only by order, which parallel tool calls break.
    assert "body" in VCRPY_MATCH_ON
    assert set(VCRPY_MATCH_ON) >= set(vcr.VCR().match_on)


PYTEST_RECORDING_TEST = """
import pytest
from pathlib import Path
from tests.recording.vanilla import COMMITTED, ROOT, replay_through_sdk

MATCH_ON = {match_on!r}


@pytest.fixture
def vcr_config():
    return {{"match_on": MATCH_ON, "record_mode": "none"}}


@pytest.fixture
def vcr_cassette_dir(request):
    return str(request.node.callspec.params["path"].parent)


@pytest.fixture
def default_cassette_name(request):
    return request.node.callspec.params["path"].stem


@pytest.mark.vcr
@pytest.mark.parametrize("path", [Path(p) for p in {paths!r}], ids=lambda p: p.stem)
def test_replays(path, vcr):
    assert replay_through_sdk(path) == len(vcr) > 0
    assert vcr.all_played
"""


@pytest.mark.deep
def test_pytest_recording_replays_every_committed_cassette(pytester: pytest.Pytester) -> None:
    _assert_pytest_recording_replays(pytester, COMMITTED)


@pytest.mark.deep
def test_pytest_recording_replays_a_sample_of_the_committed_cassettes(
    pytester: pytest.Pytester,
) -> None:
    sample = _sample()
    assert len(sample) == 2 * len(RECORDED_PROVIDERS)  # plain and streaming of each row
    _assert_pytest_recording_replays(pytester, sample)


def _assert_pytest_recording_replays(pytester: pytest.Pytester, paths: list[Path]) -> None:
    pytest.importorskip("pytest_recording")
    source = PYTEST_RECORDING_TEST.format(
        match_on=list(VCRPY_MATCH_ON), paths=[str(p) for p in paths]
    )
    pytester.makepyfile(test_replay=source)
    result = pytester.runpytest("--record-mode=none")
    result.assert_outcomes(passed=len(paths))
