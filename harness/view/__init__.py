"""``harness view``: one self-contained HTML page to look at runs.

- ``page``: the page builders (template + embedded JSON), inputs, writing.
- ``trace_data``: a trace as the trace page reads it.
- ``report_data``: an eval report (cases, their runs' traces, mutants) for the report page.
- ``transcript``: a run as a transcript (messages, answers, tool calls and results).
- ``run_transcripts``: an eval row's transcript, from its replay trace or its cassette.
- ``index_data``: a folder of eval reports: runs newest first, a case x run matrix.
- ``compare_data``: two reports compared by the eval gate, for the compare page.
- ``report_folder``: a folder of reports: the readable ones, the files skipped and why, run times.
- ``prune``: keeping a folder's newest reports (``harness eval prune``).
- ``trace_cases``: the eval case and provider a trace file belongs to, for the trace list.
- ``errors``: ``ViewError``.
- ``templates/``: the pages (inline CSS and plain JS, no network at view time).
"""

from harness.view.compare_data import compare_data, side_by_side
from harness.view.errors import ViewError
from harness.view.index_data import index_data
from harness.view.page import (
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
from harness.view.report_data import TraceIndex, report_data
from harness.view.run_transcripts import TranscriptIndex
from harness.view.trace_data import MARKED_KINDS, PARALLEL_KINDS, trace_data
from harness.view.transcript import transcript

__all__ = [
    "MARKED_KINDS",
    "PARALLEL_KINDS",
    "TraceIndex",
    "TranscriptIndex",
    "ViewError",
    "build_compare_page",
    "build_index_page",
    "build_report_page",
    "build_trace_page",
    "compare_data",
    "embed_json",
    "index_data",
    "load_view_input",
    "pack_json",
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
