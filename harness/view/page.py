"""Build the self-contained HTML page of ``harness view`` from a template.

A page is a template in ``harness/view/templates`` (inline CSS and plain JS, no
network) plus its data, embedded as JSON in a ``<script type="application/json">``
block that the template's script parses. Python only fills two placeholders;
all markup lives in the template. Adding a page kind (eval report, compare) is a
new template and a new ``*_data`` builder.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

from harness.core.errors import HarnessError
from harness.files import atomic_write_text
from harness.tracing import TraceTree
from harness.view.errors import ViewError
from harness.view.trace_data import trace_data

__all__ = ["build_trace_page", "embed_json", "load_view_input", "render_page", "write_trace_page"]

_DATA_PLACEHOLDER: Final = "__HARNESS_VIEW_DATA__"
_TITLE_PLACEHOLDER: Final = "__HARNESS_VIEW_TITLE__"

# Inside a <script> element the HTML parser ends the element at "</script" and
# treats "<!--" specially, whatever the JSON means; escaping "<", ">" and "&"
# as JSON unicode escapes removes every such sequence without changing the value.
# U+2028/U+2029 are escaped for old JavaScript parsers that treat them as newlines.
_JSON_ESCAPES: Final = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)
_HTML_ESCAPES: Final = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe to place inside a ``<script>`` element."""
    return json.dumps(data, ensure_ascii=False, default=str).translate(_JSON_ESCAPES)


@cache
def _template(name: str) -> str:
    return resources.files("harness.view").joinpath("templates", name).read_text("utf-8")


def render_page(template: str, *, title: str, data: Any) -> str:
    """Fill ``template`` (a file in ``harness/view/templates``) with ``title`` and ``data``."""
    text = _template(template)
    return text.replace(_TITLE_PLACEHOLDER, title.translate(_HTML_ESCAPES)).replace(
        _DATA_PLACEHOLDER, embed_json(data)
    )


def load_view_input(path: Path) -> TraceTree:
    """Read one input of ``harness view`` as a trace.

    Raises:
        ViewError: the file cannot be read, is not JSON, is an eval report (no
            page for those yet), or is not a valid trace.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ViewError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ViewError(f"{path} is not valid JSON ({exc}); give a trace file") from exc
    if isinstance(data, dict) and "rows" in data and "root" not in data:
        raise ViewError(
            f"{path} is an eval report: harness view does not show eval reports yet; "
            "give the trace files of its runs instead"
        )
    try:
        tree = TraceTree.from_json(raw, source=str(path))
    except HarnessError as exc:
        raise ViewError(str(exc)) from exc
    tree.path = path
    return tree


def build_trace_page(traces: Sequence[TraceTree]) -> str:
    """The HTML page for one or more traces (a list switches between several).

    Raises:
        ViewError: ``traces`` is empty.
    """
    if not traces:
        raise ViewError("no trace to show: give at least one trace file")
    data = {
        "traces": [
            trace_data(tree, source=str(tree.path) if tree.path else tree.trace_id)
            for tree in traces
        ]
    }
    first = traces[0]
    title = f"harness trace {first.trace_id[:8]}"
    if len(traces) > 1:
        title += f" and {len(traces) - 1} more"
    return render_page("trace.html", title=title, data=data)


def write_trace_page(inputs: Sequence[Path], output: Path) -> Path:
    """Read ``inputs`` (trace files), write their page to ``output`` atomically.

    Raises:
        ViewError: an input cannot be shown, or ``output`` cannot be written.
    """
    page = build_trace_page([load_view_input(path) for path in inputs])
    try:
        atomic_write_text(output, page)
    except OSError as exc:
        raise ViewError(f"cannot write {output}: {exc.strerror or exc}") from exc
    return output
