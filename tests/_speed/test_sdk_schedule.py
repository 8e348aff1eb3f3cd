"""The controller's scheduler under ``-n``: pytest-xdist's ``load`` mode, with a
worker kept on one SDK while that SDK has rows left.

The scheduler is driven as xdist's controller drives it (add the nodes, their
collections, schedule, then one completed row at a time), with stand-in worker
nodes that only record what they were sent; a worker that dies is replaced, as
xdist replaces it. The plugin's hook is checked on a configured pytest.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdist.scheduler import LoadScheduling

from harness._speed.sdk_schedule import SdkAffineScheduling, sdk_of_nodeid

PROVIDERS = ["openai", "openai-responses", "anthropic", None]


class _Node:
    """What the scheduler touches of xdist's WorkerController."""

    def __init__(self, name: str, log: list[tuple[_Node, list[int]]]) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self._log = log

    def send_runtest_some(self, indices: Sequence[int]) -> None:
        self._log.append((self, list(indices)))

    def shutdown(self) -> None:
        self.shutting_down = True

    def __repr__(self) -> str:
        return str(self.gateway.id)


def _nodeid(i: int, provider: str | None) -> str:
    if provider is None:
        return f"tests/test_rows.py::test_plain_{i}"
    return f"tests/test_rows.py::test_rows[case{i}-{provider}]"


def _drive(
    config: pytest.Config,
    scheduler: type[Any],
    collection: list[str],
    nodes: int,
    seed: int,
    crash_after: int | None = None,
) -> tuple[list[tuple[_Node, list[int]]], list[int], str | None]:
    """Run the scheduler to the end; returns the sends, the rows run, a crashed row."""
    sends: list[tuple[_Node, list[int]]] = []
    sched = scheduler(config)
    workers = [_Node(f"gw{n}", sends) for n in range(nodes)]
    for node in workers:
        sched.add_node(node)
    for node in workers:
        sched.add_node_collection(node, collection)
    sched.schedule()
    rng, ran, crashed = random.Random(seed), [], None
    while sched.has_pending:
        if crash_after is not None and len(ran) == crash_after:
            # A worker dies; xdist starts another in its place, as it does by default.
            victim = next(n for n in sched.nodes if sched.node2pending[n])
            crashed = sched.remove_node(victim)
            crash_after = None
            spare = _Node(f"gw{nodes}", sends)
            sched.add_node(spare)
            sched.add_node_collection(spare, collection)
            sched.schedule()
            continue
        node = rng.choice([n for n in sched.nodes if sched.node2pending[n]])
        index = sched.node2pending[node][0]
        ran.append(index)
        sched.mark_test_complete(node, index)
    return sends, ran, crashed


@pytest.fixture(scope="module")
def config_for() -> Any:
    made: dict[int, pytest.Config] = {}

    def config(nodes: int) -> pytest.Config:
        if nodes not in made:
            made[nodes] = pytest.Config.fromdictargs({"tx": [f"{nodes}*popen"]}, [])
        return made[nodes]

    return config


def test_sdk_of_nodeid() -> None:
    assert sdk_of_nodeid("evals/test_cases.py::test_cases[gen-0214-openai]") == "openai"
    assert sdk_of_nodeid("t.py::test[gen-1-openai-responses]") == "openai"
    assert sdk_of_nodeid("t.py::Test::test[anthropic]") == "anthropic"
    # The last token naming an SDK wins: the provider id comes after the case's.
    assert sdk_of_nodeid("t.py::test[anthropic-notes-openai]") == "openai"
    assert sdk_of_nodeid("t.py::test_plain") is None
    assert sdk_of_nodeid("t.py::test[scripted]") is None
    assert sdk_of_nodeid("dir[openai]/t.py::test_plain") is None  # brackets of the path


@settings(max_examples=60, deadline=None)
@given(
    providers=st.lists(st.sampled_from(PROVIDERS), min_size=1, max_size=120),
    nodes=st.integers(1, 4),
    seed=st.integers(0, 2**16),
    crash=st.booleans(),
)
def test_every_row_once_and_no_sdk_taken_up_twice(
    config_for: Any, providers: list[str | None], nodes: int, seed: int, crash: bool
) -> None:
    collection = [_nodeid(i, p) for i, p in enumerate(providers)]
    crash_after = len(collection) // 3 if crash else None
    sends, ran, crashed = _drive(
        config_for(nodes), SdkAffineScheduling, collection, nodes, seed, crash_after
    )
    # Every row runs once; a crashed worker's current row is reported, not run again.
    expected = sorted(i for i in range(len(collection)) if collection[i] != crashed)
    assert sorted(ran) == expected
    sdks = [sdk_of_nodeid(nodeid) for nodeid in collection]
    if len({s for s in sdks if s}) < 2 or crashed is not None:
        return  # a crash puts rows back in the queue: an SDK may come back
    # An SDK a worker leaves has no rows left to send, to anyone.
    held: dict[_Node, str] = {}
    finished: set[str] = set()
    for node, indices in sends:
        for sdk in {sdks[i] for i in indices} - {None}:
            assert sdk is not None and sdk not in finished, (node, sdk, sends)
            if held.get(node, sdk) != sdk:
                finished.add(held[node])
            held[node] = sdk


@settings(max_examples=30, deadline=None)
@given(
    size=st.integers(1, 80),
    provider=st.sampled_from(PROVIDERS),
    nodes=st.integers(1, 4),
    seed=st.integers(0, 2**16),
)
def test_one_sdk_is_plain_load(
    config_for: Any, size: int, provider: str | None, nodes: int, seed: int
) -> None:
    collection = [_nodeid(i, provider) for i in range(size)]
    config = config_for(nodes)
    ours = _drive(config, SdkAffineScheduling, collection, nodes, seed)
    plain = _drive(config, LoadScheduling, collection, nodes, seed)
    assert [(str(n), i) for n, i in ours[0]] == [(str(n), i) for n, i in plain[0]]


def test_two_workers_start_on_different_sdks(config_for: Any) -> None:
    # Interleaved, as the case runner parametrizes: each case over every provider.
    collection = [_nodeid(i, p) for i in range(100) for p in ("openai", "anthropic")]
    sends, _, _ = _drive(config_for(2), SdkAffineScheduling, collection, 2, seed=1)
    first = [{sdk_of_nodeid(collection[i]) for i in indices} for _, indices in sends[:2]]
    assert sorted(map(sorted, first)) == [["anthropic"], ["openai"]]
    # plain load sends both SDKs to both workers in the first chunks
    plain, _, _ = _drive(config_for(2), LoadScheduling, collection, 2, seed=1)
    assert all(len({sdk_of_nodeid(collection[i]) for i in ix}) == 2 for _, ix in plain[:2])


@pytest.mark.parametrize(
    ("args", "chosen"),
    [
        (("--tx", "2*popen", "--dist", "load"), SdkAffineScheduling),
        (("--tx", "2*popen", "--dist", "worksteal"), None),  # the user chose that mode
    ],
)
def test_the_plugin_schedules_load_mode(
    pytester: pytest.Pytester, args: tuple[str, ...], chosen: type[Any] | None
) -> None:
    config = pytester.parseconfigure(*args)
    scheduler = config.hook.pytest_xdist_make_scheduler(config=config, log=None)
    if chosen is None:
        assert not isinstance(scheduler, SdkAffineScheduling)
    else:
        assert type(scheduler) is chosen


def test_a_conftest_scheduler_of_the_projects_own_wins(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from xdist.scheduler import LoadScopeScheduling

        def pytest_xdist_make_scheduler(config, log):
            return LoadScopeScheduling(config, log)
        """
    )
    config = pytester.parseconfigure("--tx", "2*popen", "--dist", "load")
    scheduler = config.hook.pytest_xdist_make_scheduler(config=config, log=None)
    assert type(scheduler).__name__ == "LoadScopeScheduling"


def test_without_xdist_a_conftests_optional_scheduler_hook_breaks_nothing(
    pytester: pytest.Pytester,
) -> None:
    # An optionalhook implementation makes pluggy add an undeclared caller for the
    # hook; harness took that for xdist and registered an implementation pluggy refused.
    pytester.makeconftest(
        """
        import pytest

        @pytest.hookimpl(optionalhook=True)
        def pytest_xdist_make_scheduler(config, log):
            return None
        """
    )
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    pytester.runpytest_inprocess("-p", "no:xdist").assert_outcomes(passed=1)
