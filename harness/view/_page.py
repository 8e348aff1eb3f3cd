"""Build the self-contained HTML page of ``harness view`` from a template.

A page is a template in ``harness/view/templates`` (inline CSS and plain JS, no
network) plus its data, embedded as JSON in a ``<script type="application/json">``
block that the template's script parses. Python only fills two placeholders;
all markup lives in the template. Each page kind (trace, eval report, compare)
is a template and a ``*_data`` builder.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

from harness.core.errors import HarnessError
from harness.evals import EvalReport, GateSettings, load_report
from harness.files import atomic_write_text
from harness.tracing import TraceTree
from harness.view._compare_data import compare_data
from harness.view._errors import ViewError
from harness.view._index_data import index_data
from harness.view._report_data import TraceIndex, report_data
from harness.view._report_folder import SkippedFile, read_report_folder
from harness.view._run_transcripts import TranscriptIndex
from harness.view._trace_cases import TraceCase, trace_cases, trace_providers
from harness.view._trace_data import trace_data

__all__ = [
    "build_compare_page",
    "build_index_page",
    "build_report_page",
    "build_trace_page",
    "embed_json",
    "load_view_input",
    "pack_json",
    "render_page",
    "report_files",
    "unpack_json",
    "write_compare_page",
    "write_index_page",
    "write_trace_page",
    "write_view_page",
]

_DATA_PLACEHOLDER: Final = "__HARNESS_VIEW_DATA__"
_TITLE_PLACEHOLDER: Final = "__HARNESS_VIEW_TITLE__"

# Inside a <script> element the HTML parser ends the element at "</script" and
# treats "<!--" specially, whatever the JSON means; escaping "<", ">" and "&"
# as JSON unicode escapes removes every such sequence without changing the value.
# U+2028/U+2029 are escaped for old JavaScript parsers that treat them as newlines.
_JSON_ESCAPES: Final = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)
_COMPARE_WANT: Final = "--compare takes two eval reports (written by harness eval --report FILE)"
_HTML_ESCAPES: Final = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe to place inside a ``<script>`` element."""
    return json.dumps(data, ensure_ascii=False, default=str).translate(_JSON_ESCAPES)


# A template names a shared part (the transcript's CSS and script, the run modal)
# by a comment that the part replaces: /*HARNESS-INCLUDE transcript.css*/.
_INCLUDE: Final = re.compile(
    r"/\*HARNESS-INCLUDE ([a-z_]+\.(?:css|js))\*/|<!--HARNESS-INCLUDE ([a-z_]+\.html)-->"
)


def _read_template(name: str) -> str:
    return resources.files("harness.view").joinpath("templates", name).read_text("utf-8")


@cache
def _template(name: str) -> str:
    return _INCLUDE.sub(
        lambda found: _read_template(found.group(1) or found.group(2)), _read_template(name)
    )


def pack_json(data: Any) -> str:
    """``data`` as gzipped JSON in base64: the page decodes it on first use
    (``DecompressionStream``), so bulk it may never show costs no parse at load."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return base64.b64encode(gzip.compress(raw.encode("utf-8"), compresslevel=6, mtime=0)).decode()


def unpack_json(packed: str) -> Any:
    """The data of :func:`pack_json` (as the page's script decodes it)."""
    return json.loads(gzip.decompress(base64.b64decode(packed)))


def render_page(template: str, *, title: str, data: Any) -> str:
    """Fill ``template`` (a file in ``harness/view/templates``) with ``title`` and ``data``."""
    text = _template(template)
    return text.replace(_TITLE_PLACEHOLDER, title.translate(_HTML_ESCAPES)).replace(
        _DATA_PLACEHOLDER, embed_json(data)
    )


def load_view_input(path: Path) -> TraceTree | EvalReport:
    """Read one input of ``harness view``: a trace, or an eval report.

    Raises:
        ViewError: the file cannot be read, is not JSON, or is neither a valid
            trace nor a valid eval report.
    """
    raw, data = _read_json(path, want="give a trace file or an eval report")
    if _is_report(data):
        return _load_report(path)
    try:
        tree = TraceTree.from_json(raw, source=str(path))
    except HarnessError as exc:
        raise ViewError(str(exc)) from exc
    tree.path = path
    return tree


def _read_json(path: Path, *, want: str) -> tuple[bytes, Any]:
    """``path``'s bytes and parsed JSON; ``want`` ends the error of a non-JSON file,
    so it advises what the command at hand takes."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ViewError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        return raw, json.loads(raw)
    except ValueError as exc:
        raise ViewError(f"{path} is not valid JSON ({exc}); {want}") from exc


def _is_report(data: Any) -> bool:
    return isinstance(data, dict) and "rows" in data and "root" not in data


def _load_compare_side(path: Path) -> EvalReport:
    """One side of ``--compare``: an eval report, refused with advice for a report."""
    _, data = _read_json(path, want=_COMPARE_WANT)
    if _is_report(data):
        return _load_report(path)
    if isinstance(data, dict) and "root" in data:
        raise ViewError(f"{path} is a trace, not an eval report: --compare takes two reports")
    raise ViewError(f'{path} is not an eval report (it has no "rows"); {_COMPARE_WANT}')


def _load_report(path: Path) -> EvalReport:
    try:
        return load_report(path)
    except HarnessError as exc:
        raise ViewError(str(exc)) from exc


def build_trace_page(traces: Sequence[TraceTree]) -> str:
    """The HTML page for one or more traces (a list switches between several).

    Raises:
        ViewError: ``traces`` is empty.
    """
    if not traces:
        raise ViewError("no trace to show: give at least one trace file")
    cases = trace_cases(tree.path for tree in traces if tree.path)
    data = {
        "traces": [
            trace_data(
                tree,
                source=str(tree.path) if tree.path else tree.trace_id,
                case=cases.get(tree.path) if tree.path else None,
            )
            for tree in traces
        ]
    }
    first = traces[0]
    title = f"harness trace {first.trace_id[:8]}"
    if len(traces) > 1:
        title += f" and {len(traces) - 1} more"
    return render_page("trace.html", title=title, data=data)


def _runs_blob(index: TraceIndex, transcripts: TranscriptIndex) -> dict[str, Any]:
    """What a page that links runs needs to open them: the traces and transcripts,
    packed (decoded on first use), and the trace page to show a trace in."""
    return {
        "packed": pack_json({"traces": index.traces, "transcripts": transcripts.transcripts}),
        "trace_page": _template("trace.html"),
        "trace_slots": {"title": _TITLE_PLACEHOLDER, "data": _DATA_PLACEHOLDER},
    }


def build_report_page(
    reports: Sequence[tuple[EvalReport, str]],
    traces: Sequence[TraceTree] = (),
    cassettes: Sequence[Path] = (),
) -> str:
    """The HTML page for eval reports (``(report, where it was read from)``), with
    the trace files and transcripts of their runs embedded; ``traces`` are shown
    as well. Transcripts come from replay-mode traces, else from the cassettes in
    ``cassettes`` (default: the ``cassettes/`` folders above each report).

    Raises:
        ViewError: ``reports`` is empty.
    """
    if not reports:
        raise ViewError("no eval report to show: give at least one report file")
    index, store = TraceIndex(), TranscriptIndex(cassettes)
    cases = _extra_cases(traces, [report for report, _ in reports])
    data = {
        "reports": [
            report_data(report, source=where, traces=index, transcripts=store)
            for report, where in reports
        ],
        "extra": [
            index.add(tree, str(tree.path or tree.trace_id), cases.get(position))
            for position, tree in enumerate(traces)
        ],
        "extra_tx": [store.for_tree(tree) for tree in traces],
        "extra_labels": [_trace_label(tree, cases.get(n)) for n, tree in enumerate(traces)],
        **_runs_blob(index, store),
    }
    title = f"harness eval report {Path(reports[0][1]).name}"
    if len(reports) > 1:
        title += f" and {len(reports) - 1} more"
    return render_page("report.html", title=title, data=data)


def _extra_cases(
    traces: Sequence[TraceTree], reports: Sequence[EvalReport]
) -> dict[int, TraceCase]:
    """The case of each trace given beside reports (by position): the row of a given
    report that names its file, else the report beside its ``-traces`` folder."""
    named = {
        Path(path).name: TraceCase.of(row)
        for report in reports
        for row in report.rows
        for path in row.traces
    }
    beside = trace_cases(tree.path for tree in traces if tree.path)
    found: dict[int, TraceCase] = {}
    for position, tree in enumerate(traces):
        case = (named.get(tree.path.name) or beside.get(tree.path)) if tree.path else None
        if case is not None:
            found[position] = case
    return found


def _trace_label(tree: TraceTree, case: TraceCase | None) -> str:
    """A trace's name in a list: its case and provider, else its id, session and provider."""
    if case is not None:
        return f"{case.case} · {case.provider}/{case.model}"
    return " · ".join([tree.trace_id[:12], tree.session_key or "-", *trace_providers(tree)[:1]])


def build_compare_page(
    old: tuple[EvalReport, str],
    new: tuple[EvalReport, str],
    settings: GateSettings | None = None,
    cassettes: Sequence[Path] = (),
) -> str:
    """The HTML page comparing two eval reports, gravest changes first, each
    side's answers beside the other's, with the runs' traces and transcripts."""
    index, store = TraceIndex(), TranscriptIndex(cassettes)
    data = compare_data(
        old[0],
        new[0],
        old_source=old[1],
        new_source=new[1],
        settings=settings,
        traces=index,
        transcripts=store,
    )
    data.update(_runs_blob(index, store))
    title = f"harness compare {Path(old[1]).name} → {Path(new[1]).name}"
    return render_page("compare.html", title=title, data=data)


def report_files(folder: Path) -> list[Path]:
    """The eval reports directly in ``folder`` (``*.json`` files with rows), by name."""
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue  # not a report; a page of it would say so when given by name
        if _is_report(data):
            found.append(path)
    return found


def build_index_page(
    reports: Sequence[tuple[EvalReport, str]],
    folder: str,
    skipped: Sequence[SkippedFile] = (),
) -> str:
    """The index page of a folder of eval reports: runs newest first, a case x run
    matrix of verdicts with pass rates, failed cases first, filters and search;
    ``skipped`` files (not readable reports) are noted at the top with why.

    Raises:
        ViewError: ``reports`` is empty.
    """
    if not reports:
        raise ViewError(f"no eval report in {folder}: give a folder of reports")
    data = {"folder": folder, **index_data(reports, skipped)}
    return render_page("index.html", title=f"harness eval runs in {Path(folder).name}", data=data)


def write_index_page(folder: Path, output: Path) -> Path:
    """Read the eval reports in ``folder`` and write their index page to ``output``.

    A file that is not a readable report (corrupt, a foreign schema, a trace) is
    skipped, and the page names it and its problem.

    Raises:
        ViewError: no readable report in ``folder`` (the message names the files
            skipped and why), or ``output`` cannot be written.
    """
    found = read_report_folder(folder)
    if not found.reports:
        problems = "; ".join(f"{f.path.name}: {f.problem}" for f in found.skipped[:3])
        more = f" (and {len(found.skipped) - 3} more)" if len(found.skipped) > 3 else ""
        detail = f": {problems}{more}" if problems else ""
        raise ViewError(f"{folder} has no readable eval report (*.json with rows){detail}")
    reports = [(report, str(path)) for report, path in found.reports]
    # Named whole: `harness view .` would otherwise title the page ".".
    return _write(output, build_index_page(reports, str(folder.resolve()), found.skipped))


def write_view_page(inputs: Sequence[Path], output: Path, cassettes: Sequence[Path] = ()) -> Path:
    """Read ``inputs`` (trace files and eval reports, in any mix), write their page
    to ``output`` atomically: the report page when a report is among them, else
    the trace page. ``cassettes``: where the reports' cassettes are (for transcripts).

    Raises:
        ViewError: an input cannot be shown, or ``output`` cannot be written.
    """
    loaded = [(path, load_view_input(path)) for path in inputs]
    reports = [(doc, str(path)) for path, doc in loaded if isinstance(doc, EvalReport)]
    traces = [doc for _, doc in loaded if isinstance(doc, TraceTree)]
    page = build_report_page(reports, traces, cassettes) if reports else build_trace_page(traces)
    return _write(output, page)


def write_trace_page(inputs: Sequence[Path], output: Path) -> Path:
    """Read ``inputs`` (trace files, or reports too), write their page to ``output``.

    Raises:
        ViewError: an input cannot be shown, or ``output`` cannot be written.
    """
    return write_view_page(inputs, output)


def write_compare_page(
    old: Path,
    new: Path,
    output: Path,
    settings: GateSettings | None = None,
    cassettes: Sequence[Path] = (),
) -> Path:
    """Read two eval reports and write the page comparing them to ``output``.

    Raises:
        ViewError: either file is not a readable eval report, or ``output`` cannot be written.
    """
    sides = [(_load_compare_side(path), str(path)) for path in (old, new)]
    return _write(output, build_compare_page(sides[0], sides[1], settings, cassettes))


def _write(output: Path, page: str) -> Path:
    try:
        atomic_write_text(output, page)
    except OSError as exc:
        raise ViewError(f"cannot write {output}: {exc.strerror or exc}") from exc
    return output
