"""``harness view``: one self-contained HTML page to look at runs.

- ``_page``: the page builders (template + embedded JSON), inputs, writing.
- ``_trace_data``: a trace as the trace page reads it.
- ``_report_data``: an eval report (cases, their runs' traces, mutants) for the report page.
- ``_transcript``: a run as a transcript (messages, answers, tool calls and results).
- ``_run_transcripts``: an eval row's transcript, from its replay trace or its cassette.
- ``_index_data``: a folder of eval reports: runs newest first, a case x run matrix.
- ``_compare_data``: two reports compared by the eval gate, for the compare page.
- ``_report_folder``: a folder of reports: the readable ones, the files skipped and why, run times.
- ``_prune``: keeping a folder's newest reports (``harness eval prune``).
- ``_trace_cases``: the eval case and provider a trace file belongs to, for the trace list.
- ``_errors``: ``ViewError``.
- ``templates/``: the pages (inline CSS and plain JS, no network at view time).
"""

from harness.view._compare_data import compare_data, side_by_side
from harness.view._errors import ViewError
from harness.view._index_data import index_data
from harness.view._page import (
    build_compare_page,
    build_index_page,
    build_report_page,
    build_trace_page,
    embed_json,
    load_view_input,
    pack_json,
    render_page,
    report_files,
    unpack_json,
    write_compare_page,
    write_index_page,
    write_trace_page,
    write_view_page,
)
from harness.view._prune import apply_prune, plan_prune
from harness.view._report_data import TraceIndex, report_data
from harness.view._run_transcripts import TranscriptIndex
from harness.view._trace_data import MARKED_KINDS, PARALLEL_KINDS, trace_data
from harness.view._transcript import transcript

__all__ = [
    "MARKED_KINDS",
    "PARALLEL_KINDS",
    "TraceIndex",
    "TranscriptIndex",
    "ViewError",
    "apply_prune",
    "build_compare_page",
    "build_index_page",
    "build_report_page",
    "build_trace_page",
    "compare_data",
    "embed_json",
    "index_data",
    "load_view_input",
    "pack_json",
    "plan_prune",
    "render_page",
    "report_data",
    "report_files",
    "side_by_side",
    "trace_data",
    "transcript",
    "unpack_json",
    "write_compare_page",
    "write_index_page",
    "write_trace_page",
    "write_view_page",
]
