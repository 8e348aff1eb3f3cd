"""Rows grouped by SDK on xdist workers: a module's rows side by side per SDK,
tests without a provider first, then the smallest group; stable within a group;
nothing moves to another module; a serial run keeps its order."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness._speed.sdk_order import group_rows_by_sdk, sdk_of

ROWS = """
import pytest

@pytest.mark.parametrize("provider_name", ["openai", "openai-responses", "anthropic"])
@pytest.mark.parametrize("case", ["a", "b", "c"])
def test_rows(case, provider_name):
    pass

def test_plain():
    pass

@pytest.mark.parametrize("provider_name", ["anthropic", "openai"])
def test_more(provider_name):
    pass
"""


OTHER = """
import pytest

@pytest.mark.parametrize("provider_name", ["openai"])
def test_only(provider_name):
    pass
"""


# Each process writes the order it collected, after every plugin reordered.
ORDER_CONFTEST = """
import pytest

@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    # Not PYTEST_XDIST_WORKER: an outer xdist run sets it for this process too.
    worker = getattr(session.config, "workerinput", {}).get("workerid", "main")
    with open(f"order-{worker}.txt", "w") as out:
        out.write("\\n".join(item.nodeid for item in session.items))
"""


def _orders(pytester: pytest.Pytester, *args: str) -> dict[str, list[str]]:
    pytester.makeconftest(ORDER_CONFTEST)
    for old in pytester.path.glob("order-*.txt"):
        old.unlink()
    result = pytester.runpytest("-q", "-p", "no:cacheprovider", *args)
    result.assert_outcomes(passed=13 if (pytester.path / "test_other.py").exists() else 12)
    return {
        path.stem.removeprefix("order-"): path.read_text().splitlines()
        for path in sorted(pytester.path.glob("order-*.txt"))
    }


@pytest.mark.deep
def test_workers_group_rows_by_sdk_within_each_module(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_rows=ROWS, test_other=OTHER)
    orders = _orders(pytester, "-p", "no:randomly", "-n", "2")
    assert sorted(orders) == ["gw0", "gw1"]
    assert orders["gw0"] == orders["gw1"]  # xdist needs the same collection everywhere
    names = [nodeid.partition("::")[2] for nodeid in orders["gw0"]]
    assert names == [
        "test_only[openai]",  # another module, one SDK: left alone, and not merged into this one
        "test_plain",  # no provider: first
        # the four anthropic rows, then the seven openai ones, each in collected order
        "test_rows[a-anthropic]",
        "test_rows[b-anthropic]",
        "test_rows[c-anthropic]",
        "test_more[anthropic]",
        "test_rows[a-openai]",
        "test_rows[a-openai-responses]",
        "test_rows[b-openai]",
        "test_rows[b-openai-responses]",
        "test_rows[c-openai]",
        "test_rows[c-openai-responses]",
        "test_more[openai]",
    ]


def test_a_serial_run_keeps_the_collected_order(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_rows=ROWS)
    plain = _orders(pytester, "-p", "no:randomly", "-p", "no:harness")["main"]
    assert _orders(pytester, "-p", "no:randomly")["main"] == plain
    assert [_sdk(n) for n in plain][:3] == ["openai", "openai", "anthropic"]


@pytest.mark.deep
def test_a_shuffled_order_stays_shuffled_within_each_sdk(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_rows=ROWS)
    seed = ["-p", "randomly", "--randomly-seed=7"]
    shuffled = _orders(pytester, *seed, "-p", "no:harness")["main"]
    grouped = _orders(pytester, *seed, "-n", "2")["gw0"]
    assert shuffled != sorted(shuffled)  # the seed does shuffle them
    assert sorted(grouped) == sorted(shuffled)
    for sdk in (None, "anthropic", "openai"):
        mine = [n for n in grouped if _sdk(n) == sdk]
        assert mine == [n for n in shuffled if _sdk(n) == sdk]  # randomly's order, kept
    assert [_sdk(n) for n in grouped] == [None] + ["anthropic"] * 4 + ["openai"] * 7


def _sdk(nodeid: str) -> str | None:
    if "[" not in nodeid:
        return None
    return "anthropic" if "anthropic" in nodeid else "openai"


MANY = """
import pytest

@pytest.mark.parametrize("provider_name", ["openai", "openai-responses", "anthropic"])
@pytest.mark.parametrize("case", range(4))
def test_many(case, provider_name):
    pass
"""


def test_grouping_is_a_stable_partition(pytester: pytest.Pytester) -> None:
    rows = pytester.getitems(MANY)  # real items, as collected: 4 cases on 3 providers
    assert len(rows) == 12

    @settings(max_examples=80, deadline=None)
    @given(seed=st.integers(0, 2**32 - 1), drop=st.sets(st.integers(0, 11)))
    def check(seed: int, drop: set[int]) -> None:
        items = [item for i, item in enumerate(rows) if i not in drop]
        random.Random(seed).shuffle(items)
        before = list(items)
        group_rows_by_sdk(items)
        assert sorted(map(id, items)) == sorted(map(id, before))  # a permutation
        sdks = [sdk_of(item) for item in items]
        if len(set(sdks)) < 2:
            assert items == before
            return
        # contiguous groups, smallest first
        runs = [sdk for i, sdk in enumerate(sdks) if i == 0 or sdks[i - 1] != sdk]
        assert len(runs) == len(set(sdks))
        counts = [sdks.count(sdk) for sdk in runs]
        assert counts == sorted(counts)
        for sdk in set(sdks):  # stable: each group keeps the order it had
            mine = [i for i in items if sdk_of(i) == sdk]
            assert mine == [i for i in before if sdk_of(i) == sdk]

    check()
