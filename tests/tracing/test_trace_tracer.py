"""Tracer: span nesting, the current span, threads, capture modes and misuse."""

from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import pytest

from harness.core import ConfigurationError
from harness.testing.assertions.trace_assertions import assert_trace_shape
from harness.tracing import (
    NULL_SPAN,
    MemoryTraceRecorder,
    TraceMode,
    Tracer,
    TraceUsageError,
)

from .conftest import build_run


def test_nested_spans_form_the_tree_in_begin_order(tracer: Tracer) -> None:
    tree = build_run(tracer)
    assert_trace_shape(
        tree,
        """
        agent.run
          agent.step
            llm.call
            tool.call read
          agent.step
            llm.call
            tool.call write !error
        """,
    )
    assert [s.sequence for s in tree.walk()] == list(range(7))
    assert all(s.ended_at is not None and s.duration_ms is not None for s in tree.walk())
    assert tree.root.attributes["stop_reason"] == "final"
    assert tree.metadata == {"mode": "act"}
    assert tree.session_key == "s1"


def test_parent_and_trace_ids_link_the_spans(tracer: Tracer) -> None:
    tree = build_run(tracer)
    for span in tree.walk():
        assert span.trace_id == tree.trace_id
        for child in span.children:
            assert child.parent_id == span.span_id
    assert tree.root.parent_id is None
    assert len({s.span_id for s in tree.walk()}) == 7


def test_span_ids_are_sixteen_hex_digits_unique_within_the_trace(tracer: Tracer) -> None:
    first, second = build_run(tracer), build_run(tracer)
    ids = [s.span_id for s in first.walk()]
    assert all(re.fullmatch(r"[0-9a-f]{16}", span_id) for span_id in ids)
    assert len(set(ids)) == len(ids)
    assert not set(ids) & {s.span_id for s in second.walk()}


def test_timestamps_agree_with_durations(tracer: Tracer) -> None:
    def at(text: str) -> datetime:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))

    tree = build_run(tracer)
    assert tree.created_at == tree.root.started_at
    for span in tree.walk():
        assert span.ended_at is not None and span.duration_ms is not None
        elapsed_ms = (at(span.ended_at) - at(span.started_at)).total_seconds() * 1000
        assert elapsed_ms == pytest.approx(span.duration_ms, abs=0.002)
    starts = [at(s.started_at) for s in tree.walk()]
    assert starts == sorted(starts)  # walk order is begin order here


def test_exception_in_span_marks_error_and_keeps_message_out_in_metadata_mode(
    tracer: Tracer,
) -> None:
    tree = build_run(tracer)
    failed = tree.one("tool.call", "write")
    assert failed.status == "error"
    assert failed.attributes["error_type"] == "PermissionError"
    assert "error_message" not in failed.attributes
    assert tree.one("tool.call", "read").status == "ok"


def test_error_message_is_kept_redacted_in_replay_mode() -> None:
    tracer = Tracer(mode="replay")
    root = tracer.begin_trace("agent.run")
    span = tracer.begin_span("tool.call", "bash")
    tracer.end_span(span, error=RuntimeError("failed with key sk-abcdefghijklmnop1234"))
    tree = tracer.end_trace(root)
    assert tree is not None
    attributes = tree.one("tool.call").attributes
    assert attributes["error_message"] == "failed with key [REDACTED]"
    assert tree.one("tool.call").status == "error"


def test_events_are_added_to_the_current_span_by_default(tracer: Tracer) -> None:
    root = tracer.begin_trace("agent.run")
    with tracer.span("agent.step"):
        tracer.add_event("context.compacted", {"before": 10, "after": 4})
    tree = tracer.end_trace(root)
    assert tree is not None
    (event,) = tree.one("agent.step").events
    assert event.name == "context.compacted"
    assert event.attributes == {"before": 10, "after": 4}
    assert event.at.endswith("Z")


def test_current_span_follows_begin_and_end(tracer: Tracer) -> None:
    assert tracer.current_span() is None
    root = tracer.begin_trace("agent.run")
    assert tracer.current_span() is root
    step = tracer.begin_span("agent.step")
    assert tracer.current_span_id() == step.span_id
    call = tracer.begin_span("llm.call")
    assert call.parent_id == step.span_id
    tracer.end_span(call)
    assert tracer.current_span() is step
    tracer.end_span(step)
    assert tracer.current_span() is root
    tracer.end_trace(root)
    assert tracer.current_span() is None
    assert not tracer.has_active_trace()


def test_span_block_begins_its_span_on_entry(tracer: Tracer) -> None:
    root = tracer.begin_trace("agent.run")
    block = tracer.span("agent.step")
    assert tracer.current_span() is root
    with block as step:
        assert tracer.current_span() is step
        assert step.parent_id == root.span_id
    assert tracer.current_span() is root
    assert step.ended_at is not None
    tracer.end_trace(root)


def test_begin_trace_inside_an_active_trace_is_refused(tracer: Tracer) -> None:
    root = tracer.begin_trace("agent.run")
    with pytest.raises(TraceUsageError, match=r"subagent\.run"):
        tracer.begin_trace("agent.run")
    tracer.end_trace(root)
    tracer.end_trace(tracer.begin_trace("agent.run"))  # allowed again once ended


@pytest.mark.parametrize(
    "misuse",
    [
        pytest.param("end_span_on_root", id="end-span-on-root"),
        pytest.param("end_trace_twice", id="end-trace-twice"),
        pytest.param("end_trace_on_child", id="end-trace-on-child"),
    ],
)
def test_misuse_of_trace_roots_raises(tracer: Tracer, misuse: str) -> None:
    root = tracer.begin_trace("agent.run")
    child = tracer.begin_span("agent.step")
    with pytest.raises(TraceUsageError):
        if misuse == "end_span_on_root":
            tracer.end_span(root)
        elif misuse == "end_trace_on_child":
            tracer.end_trace(child)
        else:
            tracer.end_trace(root)
            tracer.end_trace(root)


def test_spans_left_open_are_closed_as_unclosed_errors(tracer: Tracer) -> None:
    root = tracer.begin_trace("agent.run")
    tracer.begin_span("agent.step")
    tracer.begin_span("tool.call", "bash")
    tree = tracer.end_trace(root)
    assert tree is not None
    for kind in ("agent.step", "tool.call"):
        span = tree.one(kind)
        assert span.status == "error"
        assert span.attributes["unclosed"] is True
        assert span.ended_at is not None
    assert tree.root.status == "ok"


def test_ending_a_span_twice_or_after_its_trace_keeps_the_first_end(tracer: Tracer) -> None:
    root = tracer.begin_trace("agent.run")
    span = tracer.begin_span("agent.step")
    tracer.end_span(span)
    first_end = span.ended_at
    tracer.end_span(span, status="error")
    tree = tracer.end_trace(root)
    tracer.end_span(span, status="error")
    assert tree is not None
    assert tree.one("agent.step").status == "ok"
    assert tree.one("agent.step").ended_at == first_end


def test_set_status_error_survives_a_plain_end(tracer: Tracer) -> None:
    root = tracer.begin_trace("agent.run")
    span = tracer.begin_span("tool.call", "read")
    tracer.set_status(span, "error", error=FileNotFoundError("x"))
    tracer.end_span(span)
    tree = tracer.end_trace(root)
    assert tree is not None
    assert tree.one("tool.call").status == "error"
    assert tree.one("tool.call").attributes["error_type"] == "FileNotFoundError"


def test_set_attributes_merges(tracer: Tracer) -> None:
    root = tracer.begin_trace("agent.run", attributes={"a": 1})
    tracer.set_attributes(root, b=2, a=3)
    tree = tracer.end_trace(root)
    assert tree is not None
    assert tree.root.attributes == {"a": 3, "b": 2}


def test_without_a_trace_spans_are_null_and_ignored(
    tracer: Tracer, memory: MemoryTraceRecorder
) -> None:
    span = tracer.begin_span("tool.call", "read")
    assert span is NULL_SPAN
    tracer.set_attributes(span, x=1)
    tracer.add_event("nothing")
    tracer.end_span(span)
    assert NULL_SPAN.attributes == {} and NULL_SPAN.events == []
    assert memory.trees == []


def test_concurrent_spans_keep_begin_order_not_finish_order(tracer: Tracer) -> None:
    root = tracer.begin_trace("agent.run")
    step = tracer.begin_span("agent.step")
    names = ["read_a", "read_b", "read_c", "read_d"]
    spans = [tracer.begin_span("tool.call", n, parent=step, activate=False) for n in names]
    assert tracer.current_span() is step
    finished: list[str] = []
    turn = threading.Condition()

    def work(index: int) -> None:
        span = spans[index]
        with tracer.attach(tracer.state_of(span)):
            with tracer.span("subagent.run"):  # nested under the tool call in the worker
                pass
            with turn:  # finish in reverse order: the last call first
                turn.wait_for(lambda: len(finished) == len(names) - 1 - index)
                tracer.end_span(span)
                finished.append(span.name)
                turn.notify_all()

    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        list(pool.map(work, range(len(names))))
    tracer.end_span(step)
    tree = tracer.end_trace(root)
    assert tree is not None
    assert finished == names[::-1]
    calls = tree.find_all("tool.call")
    assert [c.name for c in calls] == names
    assert [c.sequence for c in calls] == sorted(c.sequence for c in calls)
    for call in calls:
        assert [child.kind for child in call.children] == ["subagent.run"]
        assert call.status == "ok"


def test_worker_threads_see_no_current_span_unless_attached(tracer: Tracer) -> None:
    root = tracer.begin_trace("agent.run")
    state = tracer.current_state()
    with ThreadPoolExecutor(max_workers=1) as pool:
        bare = pool.submit(tracer.current_span).result()

        def attached() -> str | None:
            with tracer.attach(state):
                return tracer.current_span_id()

        inside = pool.submit(attached).result()
        after = pool.submit(tracer.current_span).result()
    tracer.end_trace(root)
    assert bare is None and after is None
    assert inside == root.span_id


def test_attach_refuses_a_state_from_another_tracer(tracer: Tracer) -> None:
    other = Tracer()
    with (
        pytest.raises(TraceUsageError, match="another Tracer"),
        tracer.attach(other.current_state()),
    ):
        pass


def test_two_traces_run_concurrently_in_separate_threads(memory: MemoryTraceRecorder) -> None:
    tracer = Tracer(memory)
    barrier = threading.Barrier(2)

    def session(key: str) -> str:
        root = tracer.begin_trace("agent.run", session_key=key)
        barrier.wait()  # both traces are open at once
        for _ in range(3):
            with tracer.span("agent.step"), tracer.span("llm.call"):
                pass
        barrier.wait()
        tree = tracer.end_trace(root)
        assert tree is not None
        return tree.trace_id

    with ThreadPoolExecutor(max_workers=2) as pool:
        ids = list(pool.map(session, ["alpha", "beta"]))
    assert len(set(ids)) == 2
    assert sorted(t.session_key or "" for t in memory.trees) == ["alpha", "beta"]
    for tree in memory.trees:
        assert len(tree.find_all("agent.step")) == 3
        assert all(s.trace_id == tree.trace_id for s in tree.walk())


def test_a_stale_current_span_ended_elsewhere_falls_back_to_its_parent(tracer: Tracer) -> None:
    root = tracer.begin_trace("agent.run")
    step = tracer.begin_span("agent.step")
    call = tracer.begin_span("tool.call", "read")  # current in this thread
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(tracer.end_span, call).result()
    assert tracer.current_span() is step
    late = tracer.begin_span("llm.call")
    assert late.parent_id == step.span_id
    tracer.end_trace(root)


@pytest.mark.parametrize(
    ("mode", "payload_kept"),
    [
        pytest.param("metadata", False, id="metadata-drops-payload"),
        pytest.param("replay", True, id="replay-keeps-payload"),
    ],
)
def test_set_payload_only_in_replay_mode(mode: TraceMode, payload_kept: bool) -> None:
    tracer = Tracer(mode=mode)
    root = tracer.begin_trace("agent.run")
    tracer.set_payload(root, "prompt", "please read notes.txt")
    tree = tracer.end_trace(root)
    assert tree is not None
    assert tracer.capture_payloads is payload_kept
    if payload_kept:
        assert tree.root.attributes["payload"] == {"prompt": "please read notes.txt"}
    else:
        assert "payload" not in tree.root.attributes


def test_replay_payload_is_redacted_and_truncated() -> None:
    tracer = Tracer(mode="replay", max_payload_chars=20)
    root = tracer.begin_trace("agent.run")
    tracer.set_payload(
        root,
        "request",
        {
            "api_key": "sk-abc123456789012345",
            "headers": {"Authorization": "Bearer x"},
            "text": "y" * 50,
        },
    )
    tree = tracer.end_trace(root)
    assert tree is not None
    assert tree.root.attributes["payload"]["request"] == {
        "api_key": "[REDACTED]",
        "headers": {"Authorization": "[REDACTED]"},
        "text": "y" * 20 + "...[truncated 30 chars]",
    }


@pytest.mark.parametrize(
    ("mode", "enabled", "captures"),
    [
        pytest.param("off", False, False, id="off"),
        pytest.param("metadata", True, False, id="metadata"),
        pytest.param("replay", True, True, id="replay"),
    ],
)
def test_mode_flags(mode: TraceMode, enabled: bool, captures: bool) -> None:
    tracer = Tracer(mode=mode)
    assert (tracer.mode, tracer.enabled, tracer.capture_payloads) == (mode, enabled, captures)


def test_mode_off_records_nothing(memory: MemoryTraceRecorder) -> None:
    tracer = Tracer(memory, mode="off")
    root = tracer.begin_trace("agent.run")
    with tracer.span("agent.step") as step:
        tracer.set_attributes(step, x=1)
    assert root is NULL_SPAN and step is NULL_SPAN
    assert tracer.end_trace(root) is None
    assert not tracer.has_active_trace()
    assert memory.trees == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"mode": "verbose"}, "trace mode 'verbose'", id="unknown-mode"),
        pytest.param({"max_payload_chars": 0}, "max_payload_chars", id="zero-payload-limit"),
    ],
)
def test_bad_settings_raise_configuration_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        Tracer(**kwargs)  # type: ignore[arg-type]


def test_trace_context_manager_records_and_marks_errors(
    tracer: Tracer, memory: MemoryTraceRecorder
) -> None:
    with pytest.raises(KeyError), tracer.trace("agent.run", session_key="k"):
        with tracer.span("agent.step"):
            pass
        raise KeyError("boom")
    tree = memory.last
    assert tree.root.status == "error"
    assert tree.root.attributes["error_type"] == "KeyError"
    assert [s.kind for s in tree.walk()] == ["agent.run", "agent.step"]
