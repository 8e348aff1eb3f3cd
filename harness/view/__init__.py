"""``harness view``: one self-contained HTML page to look at runs.

- ``page``: the page builder (template + embedded JSON), inputs, writing.
- ``trace_data``: a trace as the trace page reads it.
- ``errors``: ``ViewError``.
- ``templates/``: the pages (inline CSS and plain JS, no network at view time).

Eval-report and compare pages will be a template and a ``*_data`` builder each.
"""

from harness.view.errors import ViewError
from harness.view.page import (
    build_trace_page,
    embed_json,
    load_view_input,
    render_page,
    write_trace_page,
)
from harness.view.trace_data import MARKED_KINDS, PARALLEL_KINDS, trace_data

__all__ = [
    "MARKED_KINDS",
    "PARALLEL_KINDS",
    "ViewError",
    "build_trace_page",
    "embed_json",
    "load_view_input",
    "render_page",
    "trace_data",
    "write_trace_page",
]
