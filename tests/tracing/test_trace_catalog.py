"""list_traces: summaries newest first, filters, and any file content without a crash."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.tracing import FileTraceRecorder, Tracer, TracingError, list_traces
from tests.tracing.conftest import build_run

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
_TOP_KEYS = st.sampled_from(
    ["schema_version", "trace_id", "session_key", "created_at", "root", "capture_mode"]
)


def test_summaries_are_newest_first_and_filtered(tmp_path: Path) -> None:
    tracer = Tracer(FileTraceRecorder(tmp_path), mode="replay")
    trees = [build_run(tracer, session_key=key) for key in ("a", "b", None, "a")]
    catalog = list_traces(tmp_path)
    assert [s.trace_id for s in catalog.traces] == [t.trace_id for t in reversed(trees)]
    newest = catalog.traces[0]
    assert (newest.session_key, newest.stop_reason, newest.root_kind) == ("a", "final", "agent.run")
    assert newest.capture_mode == "replay" and newest.path == trees[3].path
    assert newest.duration_ms == trees[3].root.duration_ms
    assert [s.trace_id for s in list_traces(tmp_path, session="a").traces] == [
        trees[3].trace_id,
        trees[0].trace_id,
    ]
    assert [s.trace_id for s in list_traces(tmp_path, session="_no_session").traces] == [
        trees[2].trace_id
    ]
    assert len(list_traces(tmp_path, limit=2).traces) == 2
    assert list_traces(tmp_path / "missing").traces == ()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"limit": 0}, "at least 1", id="limit"),
        pytest.param({"session": "../x"}, "not a session key", id="separator"),
        pytest.param({"session": ".."}, "not a session key", id="dotdot"),
    ],
)
def test_bad_arguments_are_refused(tmp_path: Path, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(TracingError, match=message):
        list_traces(tmp_path, **kwargs)  # type: ignore[arg-type]


@pytest.mark.deep
@settings(max_examples=150, deadline=None)
@given(st.one_of(_JSON, st.dictionaries(_TOP_KEYS, _JSON, min_size=2)), st.binary(max_size=40))
def test_any_file_content_is_summarised_or_reported_never_raised(
    document: object, garbage: bytes
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "sessions" / "s" / "traces"
        folder.mkdir(parents=True)
        (folder / "json.json").write_text(json.dumps(document), "utf-8")
        (folder / "bytes.json").write_bytes(garbage)
        catalog = list_traces(Path(tmp))
        assert len(catalog.traces) + len(catalog.unreadable) == 2
        for bad in catalog.unreadable:
            assert bad.reason
