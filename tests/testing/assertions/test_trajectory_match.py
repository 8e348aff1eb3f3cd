"""Trajectory matching: the modes' relations (hypothesis), argument rules, failure messages."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core import ConfigurationError, TraceAssertionError
from harness.testing import assert_trajectory
from harness.testing.assertions.trajectory import expected_calls, trajectory_calls
from harness.testing.assertions.trajectory_match import (
    ArgumentsUnavailable,
    Call,
    Policy,
    arguments_hash,
    explain_mismatch,
    match_trajectory,
)
from harness.tracing import Tracer, TraceTree

NAMES = st.sampled_from(["read", "write", "grep"])
ARGS = st.dictionaries(st.sampled_from(["path", "n"]), st.sampled_from(["a", "b", 1]), max_size=2)
CALLS = st.lists(st.builds(Call, NAMES, ARGS), max_size=5)
MODES = st.sampled_from(["exact", "ignore", "subset", "superset"])
# Small calls over three names and two keys: 60 examples reach every relation.
FEW = settings(max_examples=60)


def fits(expected: list[Call], actual: list[Call], match: Any, args: Any = "exact") -> bool:
    return match_trajectory(expected, actual, match, Policy(args))


@FEW
@given(CALLS, CALLS, MODES)
def test_strict_implies_unordered_implies_subset_and_superset(
    expected: list[Call], actual: list[Call], args: Any
) -> None:
    strict, unordered = (
        fits(expected, actual, "strict", args),
        fits(expected, actual, "unordered", args),
    )
    subset, superset = (
        fits(expected, actual, "subset", args),
        fits(expected, actual, "superset", args),
    )
    in_order = fits(expected, actual, "in_order", args)
    assert not strict or (unordered and in_order)
    assert not in_order or superset
    assert unordered == (subset and superset)


@FEW
@given(CALLS, st.randoms(use_true_random=False), MODES)
def test_a_permutation_passes_unordered_and_fails_strict_unless_it_fits_in_place(
    calls: list[Call], random: Any, args: Any
) -> None:
    shuffled = list(calls)
    random.shuffle(shuffled)
    assert fits(calls, shuffled, "unordered", args)
    in_place = all(Policy(args).matches(e, a) for e, a in zip(calls, shuffled, strict=True))
    assert fits(calls, shuffled, "strict", args) == in_place


@FEW
@given(CALLS, CALLS)
def test_subset_and_superset_are_mirror_images(expected: list[Call], actual: list[Call]) -> None:
    assert fits(expected, actual, "subset") == fits(actual, expected, "superset")


@FEW
@given(CALLS, CALLS, st.data())
def test_fewer_expected_arguments_never_fail_a_superset_match(
    expected: list[Call], actual: list[Call], data: st.DataObject
) -> None:
    if not fits(expected, actual, "superset", "superset"):
        return
    fewer = [Call(c.name, data.draw(st.sampled_from(_sub_dicts(c.args)))) for c in expected]
    assert fits(fewer, actual, "superset", "superset")


@FEW
@given(CALLS, CALLS)
def test_exact_arguments_are_the_strictest_and_ignore_the_loosest(
    expected: list[Call], actual: list[Call]
) -> None:
    for match in ("strict", "unordered", "subset", "superset", "in_order"):
        exact = fits(expected, actual, match, "exact")
        assert not exact or fits(expected, actual, match, "subset")
        assert not exact or fits(expected, actual, match, "superset")
        assert not fits(expected, actual, match, "superset") or fits(
            expected, actual, match, "ignore"
        )


def _sub_dicts(args: Any) -> list[dict[str, Any]]:
    items = list(args.items())
    return [dict(items[:k]) for k in range(len(items) + 1)]


@FEW
@given(CALLS)
def test_an_exact_match_by_hash_agrees_with_one_by_value(calls: list[Call]) -> None:
    hashed = [Call(c.name, None, arguments_hash(c.args or {})) for c in calls]
    assert fits(calls, hashed, "strict")


@FEW
@given(
    CALLS, CALLS, st.sampled_from(["strict", "unordered", "subset", "superset", "in_order"]), MODES
)
def test_every_failed_match_names_what_differs(
    expected: list[Call], actual: list[Call], match: Any, args: Any
) -> None:
    if fits(expected, actual, match, args):
        return
    text = explain_mismatch(expected, actual, match, Policy(args))
    first = text.splitlines()[0]
    assert first.startswith("first difference: ") and "the trajectories differ" not in first
    assert any(word in first for word in ("missing", "extra", "out of order", "arguments"))


# -- argument rules ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "actual", "fit"),
    [
        ("superset", {"path": "a", "n": 1}, True),
        ("superset", {"n": 1}, False),
        ("subset", {"path": "a"}, True),
        ("subset", {"path": "a", "n": 1}, False),
        ("exact", {"path": "a", "n": 1}, False),
        (["path"], {"path": "a", "n": 9}, True),
        (["path"], {"path": "b"}, False),
        (lambda got, want: got["path"].upper() == want["path"].upper(), {"path": "A"}, True),
    ],
    ids=[
        "superset-extra-key",
        "superset-missing",
        "subset",
        "subset-extra",
        "exact",
        "keys",
        "keys-differ",
        "callable",
    ],
)
def test_per_tool_rules_override_the_mode(rule: Any, actual: dict[str, Any], fit: bool) -> None:
    policy = Policy("exact", {"read": rule})
    assert policy.matches(Call("read", {"path": "a"}), Call("read", actual)) is fit


def test_nested_keys_are_dotted() -> None:
    policy = Policy("exact", {"q": ["filter.kind"]})
    want = Call("q", {"filter": {"kind": "x", "at": 1}})
    assert policy.matches(want, Call("q", {"filter": {"kind": "x", "at": 2}}))


def test_an_expected_call_without_arguments_matches_any() -> None:
    assert Policy("exact").matches(Call("read"), Call("read", {"path": "z"}))


def test_values_a_metadata_trace_lacks_raise() -> None:
    with pytest.raises(ArgumentsUnavailable):
        Policy("superset").matches(Call("read", {"p": 1}), Call("read", None, "00"))


@pytest.mark.parametrize(
    ("kwargs", "text"),
    [
        ({"match": "exact"}, "match='exact' is not a trajectory match mode"),
        ({"args": "loose"}, "args='loose' is not an argument match mode"),
        ({"per_tool": {"read": "fuzzy"}}, "per_tool['read']='fuzzy'"),
    ],
    ids=["match", "args", "per_tool"],
)
def test_a_bad_mode_is_one_line_naming_it(kwargs: dict[str, Any], text: str) -> None:
    with pytest.raises(ConfigurationError, match="use one of") as raised:
        assert_trajectory(_tree([]), [], **kwargs)
    assert text in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("expected", "text"),
    [
        ("read", "expected is a list of calls"),
        ([{"tool": "read"}], "expected call 1 has unknown key(s) ['tool']"),
        ([("read", {"path": "a"}), 3], "expected call 2 is 3"),
        ([("read", "a.txt")], "expected call 1 (read) has args 'a.txt'"),
    ],
    ids=["string", "key", "number", "args"],
)
def test_a_bad_expected_call_is_one_line_naming_it(expected: Any, text: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        expected_calls(expected)
    assert text in str(raised.value)


def test_expected_calls_take_every_form() -> None:
    calls = expected_calls(["read", ("write",), ("grep", {"q": 1}), {"name": "ls", "args": {}}])
    assert [(c.name, c.args) for c in calls] == [
        ("read", None),
        ("write", None),
        ("grep", {"q": 1}),
        ("ls", {}),
    ]


# -- traces and failure messages ------------------------------------------------------


def _tree(calls: list[tuple[str, dict[str, Any]]], *, replay: bool = True) -> TraceTree:
    """A harness run with one step per call (its tracer, as the engine uses it)."""
    tracer = Tracer(mode="replay" if replay else "metadata")
    root = tracer.begin_trace("agent.run")
    for number, (name, arguments) in enumerate(calls, 1):
        with tracer.span("agent.step", attributes={"step": number}):
            with tracer.span("llm.call"):
                pass
            hashed = {"argument_hash": arguments_hash(arguments)}
            with tracer.span("tool.call", name, attributes=hashed) as span:
                tracer.set_payload(span, "arguments", arguments)
    tree = tracer.end_trace(root)
    assert tree is not None
    return tree


READS = [("read", {"path": "a.txt"}), ("read", {"path": "b.txt"}), ("edit", {"path": "a.txt"})]


def test_a_trace_s_calls_are_its_tool_call_spans_in_order() -> None:
    calls = trajectory_calls(_tree(READS))
    assert [(c.name, c.args) for c in calls] == READS
    assert_trajectory(_tree(READS), READS)


def test_a_metadata_trace_decides_exact_arguments_by_their_hash() -> None:
    tree = _tree(READS, replay=False)
    assert trajectory_calls(tree)[0].args is None
    assert_trajectory(tree, READS)
    with pytest.raises(TraceAssertionError, match="argument hashes differ"):
        assert_trajectory(tree, [("read", {"path": "z.txt"}), *READS[1:]])
    with pytest.raises(ConfigurationError, match=r"make_harness_app\(trace_mode='replay'\)"):
        assert_trajectory(tree, READS, args="superset")


def test_a_wrong_argument_names_the_call_the_key_and_both_values() -> None:
    wanted = [READS[0], ("read", {"path": "c.txt"}), READS[2]]
    with pytest.raises(TraceAssertionError) as raised:
        assert_trajectory(_tree(READS), wanted)
    text = str(raised.value)
    first = text.splitlines()[1]
    assert first == (
        "first difference: expected call 2 read(path='c.txt') and actual call 2 "
        "read(path='b.txt') differ in arguments (args=exact: path: expected 'c.txt', got 'b.txt')"
    )
    assert "2. read(path='c.txt') != 2. read(path='b.txt')  <- arguments differ" in text
    assert "args='superset'" in text.splitlines()[-1]


def test_an_extra_call_is_named_with_how_to_allow_it() -> None:
    with pytest.raises(TraceAssertionError) as raised:
        assert_trajectory(_tree(READS), READS[:2])
    text = str(raised.value)
    assert "3 call(s) made" not in text and "2 call(s) expected, 3 made" in text
    assert (
        "first difference: extra: actual call 3 edit(path='a.txt') is not in the expected" in text
    )
    assert "<- extra" in text and "match='superset'" in text
    assert_trajectory(_tree(READS), READS[:2], match="superset")


def test_a_missing_call_is_named_and_subset_allows_it() -> None:
    with pytest.raises(TraceAssertionError) as raised:
        assert_trajectory(_tree(READS[:2]), READS, match="superset")
    assert "missing: expected call 3 edit(path='a.txt') was not made" in str(raised.value)
    assert_trajectory(_tree(READS[:2]), READS, match="subset")


def test_an_order_change_is_named_and_unordered_allows_it() -> None:
    swapped = [READS[1], READS[0], READS[2]]
    for match in ("strict", "in_order"):
        with pytest.raises(TraceAssertionError) as raised:
            assert_trajectory(_tree(swapped), READS, match=match)  # type: ignore[arg-type]
        text = str(raised.value)
        assert "first difference: out of order: expected call 1 read(path='a.txt') came as" in text
        assert "when the order does not matter" in text
    assert_trajectory(_tree(swapped), READS, match="unordered")


def test_output_tools_are_left_out_unless_asked_for() -> None:
    tree = _tree([READS[0], ("final_result", {"answer": "42"})])
    assert_trajectory(tree, [READS[0]])
    assert_trajectory(tree, [READS[0], "final_result"], include_output_tools=True)


def test_a_list_of_calls_made_is_a_trajectory_too() -> None:
    from harness.core import ToolCall

    made = [ToolCall(id="1", name="read", arguments={"path": "a.txt"}), ("final_answer", {"a": 1})]
    assert [c.name for c in trajectory_calls(made)] == ["read"]
    assert_trajectory(made, [{"name": "read", "args": {}}], args="superset")
