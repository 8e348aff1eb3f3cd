"""How often the edit tool applies a model's edit correctly despite typical copy mistakes.

A seeded corpus of Python-like files and edits; each edit's old_text/new_text
carries the mistakes models make when they copy from ``read`` output (indent
drift, trailing spaces, LF for a CRLF file, spaces for tabs, smart quotes,
line-number prefixes, whitespace runs, a typo). Every edit is run through the
real tool on a real file and the bytes are compared with the intended result.

Run: ``python bench/edit_bench.py [--seed 7] [--edits 540]``
"""

from __future__ import annotations

import argparse
import difflib
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path

from harness.core import ToolError
from harness.tools import ToolInput
from harness.tools.builtin._edit import EditTool
from harness.tools.builtin._edit_matching import Stage, apply_replacements, find_stage, match_edit

Lines = list[tuple[int, str]]
"""Logical lines: (indent level, code)."""

_NAMES = ["user", "order", "item", "total", "count", "config", "cache", "result", "path", "value"]
_VERBS = ["load", "save", "parse", "build", "check", "merge", "render", "fetch", "update"]
_SMART = str.maketrans({'"': "\u201c", "'": "\u2019"})


@dataclass
class Case:
    """One edit: the file, the intended result, and what the model sent."""

    kind: str
    file: str
    expected: str
    block: tuple[int, int]
    old_text: str
    new_text: str


@dataclass
class Tally:
    """Outcomes of one mistake kind."""

    n: int = 0
    exact: int = 0
    pipeline: int = 0
    fuzzy: int = 0
    wrong_span: int = 0
    fuzzy_wrong_span: int = 0
    wrong_content: int = 0
    ambiguous: int = 0
    no_match: int = 0
    stages: dict[str, int] = field(default_factory=dict)


# --- corpus -------------------------------------------------------------------------------


def _function(rng: random.Random, level: int) -> Lines:
    verb, noun, other = rng.choice(_VERBS), rng.choice(_NAMES), rng.choice(_NAMES)
    number = rng.randint(2, 99)
    body: Lines = [
        (level, f"def {verb}_{noun}_{number}({noun}, {other}=None):"),
        (level + 1, f'"""{verb.title()} the {noun} from {other} - step {number}."""'),
        (level + 1, f"# {rng.choice(['keep', 'check', 'note'])}: {noun} may be empty"),
        (level + 1, f"{noun}_{number} = {verb}({noun}, limit={number})"),
        (level + 1, f"if {noun}_{number} is None:"),
        (level + 2, f"raise ValueError('no {noun} for {other}')"),
        (level + 1, f"for key in {other} or []:"),
        (level + 2, f'log("{verb} %s", key, {noun}_{number})'),
        (level + 2, f"{noun}_{number}[key] = {rng.randint(0, 9)}"),
        (level + 1, f"return {noun}_{number}"),
    ]
    return body


def make_source(rng: random.Random) -> Lines:
    """A module: imports, constants, functions and a class with methods."""
    lines: Lines = [(0, "import os"), (0, "from typing import Any"), (0, "")]
    for _ in range(rng.randint(1, 3)):
        lines.append((0, f"{rng.choice(_NAMES).upper()}_LIMIT = {rng.randint(10, 999)}"))
    for _ in range(rng.randint(2, 4)):
        lines += [(0, ""), (0, ""), *_function(rng, 0)]
    lines += [(0, ""), (0, ""), (0, f"class {rng.choice(_NAMES).title()}Store:")]
    for _ in range(rng.randint(1, 3)):
        lines += [(0, ""), *_function(rng, 1)]
    return lines


def _change(rng: random.Random, block: Lines) -> Lines:
    """What the model means to write instead of ``block``."""
    new = list(block)
    at = rng.randrange(len(new))
    level, code = new[at]
    choice = rng.choice(["number", "add", "delete", "rename"] if len(new) > 1 else ["add"])
    if choice == "number" and any(ch.isdigit() for ch in code):
        digit = next(i for i, ch in enumerate(code) if ch.isdigit())
        new[at] = (level, code[:digit] + str((int(code[digit]) + 1) % 10) + code[digit + 1 :])
    elif choice == "delete" and code:
        del new[at]
    elif choice == "rename" and "(" in code:
        new[at] = (level, code.replace("(", "_v2(", 1))
    else:
        new.insert(at + 1, (level or 1, f'log("checkpoint {rng.randint(1, 999)}")'))
    return new if new != block else [*new, (level, "pass")]


def _render(lines: Lines, unit: str, eol: str) -> str:
    return "".join((unit * level + code if code else "") + eol for level, code in lines)


def _unique_block(rng: random.Random, lines: Lines) -> tuple[int, int]:
    keys = [" ".join(code.split()) for _, code in lines]
    for _ in range(200):
        size = rng.randint(1, 5)
        start = rng.randrange(0, len(lines) - size)
        window = keys[start : start + size]
        if not window[0] or not window[-1]:
            continue
        hits = sum(keys[i : i + size] == window for i in range(len(keys) - size + 1))
        if hits == 1 and (size > 1 or len(window[0]) > 12):
            return start, start + size
    raise RuntimeError("no unique block found")


# --- model mistakes -----------------------------------------------------------------------

Texts = tuple[list[str], list[str]]
"""old_text and new_text as lines."""

Mistake = Callable[[random.Random, list[str], list[str], int], Texts]


def _map_copied(
    old: list[str], new: list[str], change: Callable[[str], str], picks: set[int]
) -> Texts:
    """Apply ``change`` to the picked old lines and to their unchanged copies in new."""
    touched = {old[i] for i in picks}
    return (
        [change(line) if i in picks else line for i, line in enumerate(old)],
        [change(line) if line in touched else line for line in new],
    )


def indent_drift(rng: random.Random, old: list[str], new: list[str], _: int) -> Texts:
    shift = rng.choice([4, 2, -4])
    lowest = min(len(x) - len(x.lstrip()) for x in old + new if x.strip())
    if shift < 0 and lowest < 4:
        shift = 4

    def move(line: str) -> str:
        if not line.strip():
            return line
        return " " * shift + line if shift > 0 else line[-shift:]

    return [move(x) for x in old], [move(x) for x in new]


def indent_two(rng: random.Random, old: list[str], new: list[str], _: int) -> Texts:
    return [f"  {x}" if x.strip() else x for x in old], [f"  {x}" if x.strip() else x for x in new]


def first_unindented(rng: random.Random, old: list[str], new: list[str], _: int) -> Texts:
    # new_text starts at the same place as old_text only if its first line is
    # old_text's first line (perhaps changed), not a line after a deleted one.
    same_start = difflib.SequenceMatcher(None, old[0], new[0]).ratio() > 0.7
    return [old[0].lstrip(), *old[1:]], [new[0].lstrip() if same_start else new[0], *new[1:]]


def trailing_ws(rng: random.Random, old: list[str], new: list[str], _: int) -> Texts:
    picks = {i for i in range(len(old)) if rng.random() < 0.6} or {0}
    return _map_copied(old, new, lambda line: line + " " * rng.randint(1, 3), picks)


def smart_quotes(rng: random.Random, old: list[str], new: list[str], _: int) -> Texts:
    # A model that types smart quotes does so in the whole call; with no quote in
    # old_text there is no sign of it, so such an edit is left as the model meant.
    if not any(q in x for x in old for q in "'\""):
        return old, new
    return [x.translate(_SMART) for x in old], [x.translate(_SMART) for x in new]


def prefix_read(rng: random.Random, old: list[str], new: list[str], first: int) -> Texts:
    return [f"{first + i:6d}\t{x}" for i, x in enumerate(old)], new


def prefix_pipe(rng: random.Random, old: list[str], new: list[str], first: int) -> Texts:
    return [f"{first + i} | {x}" for i, x in enumerate(old)], new


def whitespace_runs(rng: random.Random, old: list[str], new: list[str], _: int) -> Texts:
    picks = {i for i, x in enumerate(old) if " " in x.strip()}
    picks = set(rng.sample(sorted(picks), 1)) if picks else set()

    def widen(line: str) -> str:
        body = line.lstrip()
        return line[: len(line) - len(body)] + body.replace(" ", "  ", 1)

    return _map_copied(old, new, widen, picks)


def typo(rng: random.Random, old: list[str], new: list[str], _: int) -> Texts:
    picks = [i for i, x in enumerate(old) if len(x.strip()) > 12 and x in new]
    if not picks:
        return old, new
    at = rng.choice(picks)
    body = old[at]
    cut = len(body) - len(body.lstrip()) + rng.randrange(2, len(body.strip()) - 2)
    swapped = body[:cut] + body[cut + 1] + body[cut] + body[cut + 2 :]
    return _map_copied(old, new, lambda line: swapped if line == body else line, {at})


KINDS: dict[str, tuple[dict[str, object], tuple[Mistake, ...]]] = {
    "clean": ({}, ()),
    "crlf_file": ({"eol": "\r\n"}, ()),
    "tabs_file": ({"unit": "\t"}, ()),
    "indent_drift": ({}, (indent_drift,)),
    "first_line_unindented": ({}, (first_unindented,)),
    "trailing_ws": ({}, (trailing_ws,)),
    "smart_quotes": ({}, (smart_quotes,)),
    "file_typography": ({"typography": True}, ()),
    "prefix_read_tab": ({}, (prefix_read,)),
    "prefix_pipe": ({}, (prefix_pipe,)),
    "whitespace_runs": ({}, (whitespace_runs,)),
    "crlf+drift+trailing": ({"eol": "\r\n"}, (indent_drift, trailing_ws)),
    "tabs+smart_quotes": ({"unit": "\t"}, (smart_quotes,)),
    "crlf+prefix": ({"eol": "\r\n"}, (prefix_read,)),
    "unindented+smart": ({}, (first_unindented, smart_quotes)),
    "typo (fuzzy only)": ({}, (typo,)),
    "duplicate+trailing_ws": ({"duplicate": True}, (trailing_ws,)),
    "duplicate+indent(+2)": ({"duplicate": True}, (indent_two,)),
}


def _typographic(lines: Lines) -> Lines:
    return [(level, code.replace(" - ", " \u2014 ")) for level, code in lines]


def make_case(rng: random.Random, kind: str) -> Case:
    """One file and one edit of ``kind``; the edit's block is unique in the file.

    ``duplicate`` kinds append a copy of the block one level deeper, so that a
    loose stage sees two candidates and must not pick one.
    """
    conventions, mistakes = KINDS[kind]
    unit, eol = str(conventions.get("unit", "    ")), str(conventions.get("eol", "\n"))
    lines = make_source(rng)
    start, end = _unique_block(rng, lines)
    block = lines[start:end]
    if conventions.get("duplicate"):
        lines += [(0, ""), (0, ""), (0, "class Shadow:"), *[(lv + 1, c) for lv, c in block]]
    new_block = _change(rng, block)
    shown = _typographic if conventions.get("typography") else list
    file_new = shown(block)
    kept = [file_new[block.index(x)] if x in block else x for x in new_block]
    file = _render(shown(lines), unit, eol)
    expected = _render([*shown(lines[:start]), *kept, *shown(lines[end:])], unit, eol)
    old = [("    " * level + code if code else "") for level, code in block]
    new = [("    " * level + code if code else "") for level, code in new_block]
    for mistake in mistakes:
        old, new = mistake(rng, old, new, start + 1)
    ending = "\n" if rng.random() < 0.6 else ""
    offsets = [len(x) for x in file.splitlines(keepends=True)]
    span = (sum(offsets[:start]), sum(offsets[:end]))
    return Case(kind, file, expected, span, "\n".join(old) + ending, "\n".join(new) + ending)


# --- running ------------------------------------------------------------------------------


def _classify(case: Case, result: str) -> str:
    if result == case.expected:
        return "correct"
    head, tail = case.file[: case.block[0]], case.file[case.block[1] :]
    inside = len(result) >= len(head) + len(tail)
    if inside and result.startswith(head) and result.endswith(tail):
        return "wrong_content"
    return "wrong_span"


def _run_tool(tool: EditTool, case: Case, workdir: Path) -> tuple[str, str | None, float]:
    target = workdir / "module.py"
    target.write_bytes(case.file.encode())
    arguments = {"path": "module.py", "old_text": case.old_text, "new_text": case.new_text}
    began = time.perf_counter()
    try:
        output = tool.run(ToolInput(arguments=arguments, workdir=workdir))
    except ToolError as exc:
        return f"refused:{exc.error_type}", None, time.perf_counter() - began
    elapsed = time.perf_counter() - began
    result = target.read_bytes().decode()
    return _classify(case, result), str(output.metadata["stage"]), elapsed


def _exact_only(case: Case) -> bool:
    found = find_stage(case.file, case.old_text, case.new_text, Stage.EXACT)
    if not found or len(found) != 1:
        return False
    return apply_replacements(case.file, found) == case.expected


def evaluate(cases: list[Case]) -> tuple[dict[str, Tally], list[float], list[float]]:
    """Run every case through exact-only, the pipeline, and the pipeline with fuzzy."""
    tallies: dict[str, Tally] = {kind: Tally() for kind in KINDS}
    match_times: list[float] = []
    tool_times: list[float] = []
    plain, fuzzy = EditTool(), EditTool(fuzzy_threshold=0.9)
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        for case in cases:
            tally = tallies[case.kind]
            tally.n += 1
            tally.exact += _exact_only(case)
            began = time.perf_counter()
            match_edit(case.file, case.old_text, case.new_text)
            match_times.append(time.perf_counter() - began)
            verdict, stage, elapsed = _run_tool(plain, case, workdir)
            tool_times.append(elapsed)
            tally.pipeline += verdict == "correct"
            tally.wrong_span += verdict == "wrong_span"
            tally.wrong_content += verdict == "wrong_content"
            tally.ambiguous += verdict == "refused:ambiguous_match"
            tally.no_match += verdict == "refused:no_match"
            if stage:
                tally.stages[stage] = tally.stages.get(stage, 0) + 1
            fuzzy_verdict, _, _ = _run_tool(fuzzy, case, workdir)
            tally.fuzzy += fuzzy_verdict == "correct"
            tally.fuzzy_wrong_span += fuzzy_verdict == "wrong_span"
    return tallies, match_times, tool_times


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def report(tallies: dict[str, Tally], match_times: list[float], tool_times: list[float]) -> str:
    """The compact table printed by ``main``."""
    head = (
        f"{'mistake':<24}{'n':>4} {'exact':>7} {'pipeline':>9} {'+fuzzy':>7} "
        f"{'wrong_span':>11} {'wrong_text':>11} {'ambiguous':>10} {'no_match':>9}  stages"
    )
    rows = [head, "-" * len(head)]
    total = Tally()
    for kind, t in tallies.items():
        stages = ", ".join(f"{name}:{count}" for name, count in sorted(t.stages.items()))
        rows.append(
            f"{kind:<24}{t.n:>4} {_pct(t.exact, t.n):>7} {_pct(t.pipeline, t.n):>9} "
            f"{_pct(t.fuzzy, t.n):>7} {t.wrong_span:>11} {t.wrong_content:>11} "
            f"{t.ambiguous:>10} {t.no_match:>9}  {stages}"
        )
        for item in fields(Tally):
            if item.type == "int":
                setattr(total, item.name, getattr(total, item.name) + getattr(t, item.name))
    rows += ["-" * len(head)]
    rows.append(
        f"{'TOTAL':<24}{total.n:>4} {_pct(total.exact, total.n):>7} "
        f"{_pct(total.pipeline, total.n):>9} {_pct(total.fuzzy, total.n):>7} "
        f"{total.wrong_span:>11} {total.wrong_content:>11} {total.ambiguous:>10} "
        f"{total.no_match:>9}"
    )
    rows.append(
        f"exact stage alone: {_pct(total.exact, total.n).strip()} applied correctly | "
        f"full pipeline: {_pct(total.pipeline, total.n).strip()} "
        f"(with fuzzy 0.9: {_pct(total.fuzzy, total.n).strip()}) | wrong-span replacements: "
        f"{total.wrong_span} ({_pct(total.wrong_span, total.n).strip()}), "
        f"with fuzzy {total.fuzzy_wrong_span}"
    )
    rows.append(
        f"per edit: match_edit mean {statistics.mean(match_times) * 1e3:.3f} ms, "
        f"p95 {_p95(match_times) * 1e3:.3f} ms | tool run (read + match + atomic write): "
        f"mean {statistics.mean(tool_times) * 1e3:.3f} ms, p95 {_p95(tool_times) * 1e3:.3f} ms"
    )
    return "\n".join(rows)


def _p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--edits", type=int, default=540, help="corpus size (>= 200)")
    options = parser.parse_args(argv)
    rng = random.Random(options.seed)
    kinds = list(KINDS)
    cases = [make_case(rng, kinds[i % len(kinds)]) for i in range(max(options.edits, 200))]
    tallies, match_times, tool_times = evaluate(cases)
    print(f"edit bench: {len(cases)} edits, seed {options.seed}")
    print(report(tallies, match_times, tool_times))
    wrong = sum(t.wrong_span + t.fuzzy_wrong_span for t in tallies.values())
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
