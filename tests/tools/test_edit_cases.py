"""The edit tool, table-driven: one real file per case, exact resulting bytes asserted."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from harness.core import ToolError
from harness.tools import ToolInput, ToolOutput
from harness.tools.builtin._edit import EditTool

PY = (
    b"def greet(name):\n    message = 'hi ' + name\n    return message\n"
    b"\n\ndef other():\n    pass\n"
)
TABS = b"class A:\n\tdef f(self):\n\t\tif self.x:\n\t\t\treturn 1\n\t\treturn 2\n"
SMART = b'def label():\n    return "caf\xc3\xa9 -- menu"\n'


@dataclass(frozen=True)
class Case:
    """A file, the edit arguments, and the bytes (or error) that must follow."""

    file: bytes
    args: dict[str, Any]
    expected: bytes | None = None
    stage: str | None = None
    error: str | None = None
    says: tuple[str, ...] = field(default=())


CASES: dict[str, Case] = {
    # --- exact -----------------------------------------------------------------------
    "exact_single_line": Case(
        PY,
        {"old_text": "'hi ' + name", "new_text": "'hello ' + name"},
        PY.replace(b"'hi '", b"'hello '"),
        "exact",
    ),
    "exact_block_with_trailing_newline": Case(
        PY,
        {
            "old_text": "def other():\n    pass\n",
            "new_text": "def other():\n    return None\n",
        },
        PY.replace(b"    pass\n", b"    return None\n"),
        "exact",
    ),
    "exact_delete_lines": Case(
        PY,
        {"old_text": "\n\ndef other():\n    pass\n", "new_text": ""},
        b"def greet(name):\n    message = 'hi ' + name\n    return message\n",
        "exact",
    ),
    "exact_insert_after_line": Case(
        PY,
        {
            "old_text": "    return message\n",
            "new_text": "    print(message)\n    return message\n",
        },
        PY.replace(b"    return message\n", b"    print(message)\n    return message\n"),
        "exact",
    ),
    "exact_keeps_missing_final_newline": Case(
        b"a = 1\nb = 2",
        {"old_text": "b = 2", "new_text": "b = 3"},
        b"a = 1\nb = 3",
        "exact",
    ),
    "exact_non_ascii_text": Case(
        "名前 = 'café'\nx = 1\n".encode(),
        {"old_text": "'café'", "new_text": "'thé'"},
        "名前 = 'thé'\nx = 1\n".encode(),
        "exact",
    ),
    "exact_utf8_bom_kept": Case(
        b"\xef\xbb\xbfimport os\nx = 1\n",
        {"old_text": "x = 1", "new_text": "x = 2"},
        b"\xef\xbb\xbfimport os\nx = 2\n",
        "exact",
    ),
    # --- line endings and trailing whitespace ------------------------------------------
    "trailing_ws_in_old_text_only": Case(
        PY,
        {
            "old_text": "def other():  \n    pass \n",
            "new_text": "def other():  \n    return 0 \n",
        },
        PY.replace(b"    pass\n", b"    return 0\n"),
        "line_endings_trailing_ws",
    ),
    "trailing_ws_in_file_only": Case(
        b"x = 1   \ny = 2\t\nz = 3\n",
        {"old_text": "x = 1\ny = 2\n", "new_text": "x = 10\ny = 20\n"},
        b"x = 10\ny = 20\nz = 3\n",
        "line_endings_trailing_ws",
    ),
    "crlf_file_lf_old_text": Case(
        PY.replace(b"\n", b"\r\n"),
        {
            "old_text": "def greet(name):\n    message = 'hi ' + name\n",
            "new_text": "def greet(name):\n    message = 'hey ' + name\n    log(message)\n",
        },
        PY.replace(b"'hi ' + name\n", b"'hey ' + name\n    log(message)\n").replace(b"\n", b"\r\n"),
        "line_endings_trailing_ws",
    ),
    "crlf_file_exact_line_gets_crlf_new_lines": Case(
        b"a = 1\r\nb = 2\r\n",
        {"old_text": "b = 2", "new_text": "b = 2\nc = 3"},
        b"a = 1\r\nb = 2\r\nc = 3\r\n",
        "exact",
    ),
    "crlf_file_without_final_newline": Case(
        b"a = 1\r\nb = 2",
        {"old_text": "a = 1\nb = 2\n", "new_text": "a = 1\nb = 5\n"},
        b"a = 1\r\nb = 5",
        "line_endings_trailing_ws",
    ),
    "lf_file_crlf_old_text": Case(
        PY,
        {"old_text": "def other():\r\n    pass\r\n", "new_text": "def other():\r\n    ...\r\n"},
        PY.replace(b"    pass\n", b"    ...\n"),
        "line_endings_trailing_ws",
    ),
    "mixed_endings_outside_span_kept": Case(
        b"a = 1\r\nb = 2\nc = 3\r\n",
        {"old_text": "b = 2\nc = 3\n", "new_text": "b = 20\nc = 30\n"},
        b"a = 1\r\nb = 20\nc = 30\n",
        "line_endings_trailing_ws",
    ),
    # --- indentation -------------------------------------------------------------------
    "tabs_file_spaces_old_text": Case(
        TABS,
        {
            "old_text": "        if self.x:\n            return 1\n",
            "new_text": "        if self.x:\n            return 10\n",
        },
        TABS.replace(b"return 1\n", b"return 10\n"),
        "indentation_flexible",
    ),
    "tabs_file_eight_space_old_text": Case(
        TABS,
        {
            "old_text": "\t\tif self.x:\n\t\t\treturn 1\n".replace("\t", " " * 8),
            "new_text": "\t\tif self.y:\n\t\t\treturn 1\n".replace("\t", " " * 8),
        },
        TABS.replace(b"self.x", b"self.y"),
        "indentation_flexible",
    ),
    "tabs_file_new_nested_line_in_tabs": Case(
        TABS,
        {
            "old_text": "    def f(self):\n        if self.x:\n",
            "new_text": "    def f(self):\n        assert self\n        if self.x:\n",
        },
        TABS.replace(b"\tdef f(self):\n", b"\tdef f(self):\n\t\tassert self\n"),
        "indentation_flexible",
    ),
    "spaces_file_tab_old_text": Case(
        PY,
        {
            "old_text": "def greet(name):\n\tmessage = 'hi ' + name\n",
            "new_text": "def greet(name):\n\tmessage = 'yo ' + name\n",
        },
        PY.replace(b"'hi '", b"'yo '"),
        "indentation_flexible",
    ),
    "tabs_exact_untouched": Case(
        TABS,
        {"old_text": "\t\treturn 2\n", "new_text": "\t\treturn 3\n"},
        TABS.replace(b"return 2", b"return 3"),
        "exact",
    ),
    "over_indented_old_text": Case(
        PY,
        {
            "old_text": "        message = 'hi ' + name\n        return message\n",
            "new_text": (
                "        message = 'hi ' + name\n        if name:\n            return message\n"
            ),
        },
        PY.replace(b"    return message\n", b"    if name:\n        return message\n"),
        "indentation_flexible",
    ),
    "under_indented_old_text": Case(
        b"class C:\n    def f(self):\n        a = 1\n        return a\n",
        {
            "old_text": "def f(self):\n    a = 1\n    return a",
            "new_text": "def f(self):\n    a = 2\n    return a",
        },
        b"class C:\n    def f(self):\n        a = 2\n        return a\n",
        "indentation_flexible",
    ),
    "first_line_copied_without_indent": Case(
        PY.replace(b"\n", b"\r\n"),
        {
            "old_text": "message = 'hi ' + name\n    return message",
            "new_text": "message = 'ho ' + name\n    return message",
        },
        PY.replace(b"'hi '", b"'ho '").replace(b"\n", b"\r\n"),
        "indentation_flexible",
    ),
    "old_indent_inside_deeper_indent": Case(
        b"if a:\n        x = 1\n",
        {"old_text": "    x = 1", "new_text": "    x = 2\n    y = 3"},
        b"if a:\n        x = 2\n        y = 3\n",
        "indentation_flexible",
    ),
    "old_indent_inside_deeper_indent_ambiguous": Case(
        b"x = 1\nif a:\n    x = 1\n",
        {"old_text": "  x = 1", "new_text": "  x = 2"},
        error="ambiguous_match",
        says=("stage: indentation_flexible", "lines 1, 3"),
    ),
    "code_only_old_text_with_indented_new_text": Case(
        b"def f():\n    x = 1\n",
        {"old_text": "x = 1\n", "new_text": "    x = 2\n    y = 3\n"},
        b"def f():\n    x = 2\n    y = 3\n",
        "exact",
    ),
    "code_only_old_text_deleted_with_its_indent": Case(
        b"def f():\n    x = 1\n    y = 2\n",
        {"old_text": "x = 1\n", "new_text": ""},
        b"def f():\n    y = 2\n",
        "exact",
    ),
    "tabs_file_exact_new_lines_in_spaces": Case(
        TABS,
        {"old_text": "\t\treturn 2\n", "new_text": "        log()\n\t\treturn 2\n"},
        TABS.replace(b"\t\treturn 2\n", b"\t\tlog()\n\t\treturn 2\n"),
        "exact",
    ),
    # --- unicode -----------------------------------------------------------------------
    "smart_double_quotes_in_old_and_new": Case(
        b'print("hello")\nprint("bye")\n',
        {"old_text": "print(\u201chello\u201d)", "new_text": "print(\u201chello, world\u201d)"},
        b'print("hello, world")\nprint("bye")\n',
        "unicode_normalised",
    ),
    "smart_single_quotes": Case(
        PY,
        {
            "old_text": "    message = \u2018hi \u2019 + name\n",
            "new_text": "    message = \u2018hey \u2019 + name\n",
        },
        PY.replace(b"'hi '", b"'hey '"),
        "unicode_normalised",
    ),
    "en_and_em_dashes": Case(
        b"x = a - b\ny = c - d\n",
        {"old_text": "x = a \u2013 b\ny = c \u2014 d", "new_text": "x = a + b\ny = c \u2014 d"},
        b"x = a + b\ny = c - d\n",
        "unicode_normalised",
    ),
    "file_smart_quotes_kept_outside_span": Case(
        SMART + "# \u201cquoted\u201d\n".encode(),
        {"old_text": 'return "caf\u00e9 -- menu"', "new_text": 'return "cafe"'},
        SMART.replace("caf\u00e9 -- menu".encode(), b"cafe") + "# \u201cquoted\u201d\n".encode(),
        "exact",
    ),
    "non_breaking_spaces": Case(
        b"total = price * qty\n",
        {
            "old_text": "total\u00a0=\u00a0price * qty",
            "new_text": "total\u00a0=\u00a0price * qty * 2",
        },
        b"total = price * qty * 2\n",
        "unicode_normalised",
    ),
    "ellipsis_character": Case(
        b"def f():\n    ...\n",
        {"old_text": "def f():\n    \u2026", "new_text": "def f():\n    return 1"},
        b"def f():\n    return 1\n",
        "unicode_normalised",
    ),
    # --- whitespace runs ---------------------------------------------------------------
    "double_spaces_inside_line": Case(
        PY,
        {
            "old_text": "    message  =  'hi '  +  name\n",
            "new_text": "    message = 'hi ' + name.title()\n",
        },
        PY.replace(b"+ name\n", b"+ name.title()\n"),
        "whitespace_collapsed",
    ),
    "tab_inside_line": Case(
        b"x = {'a':\t1}\n",
        {"old_text": "x = {'a': 1}", "new_text": "x = {'a': 2}"},
        b"x = {'a': 2}\n",
        "whitespace_collapsed",
    ),
    # --- copied line-number prefixes ---------------------------------------------------
    "read_tool_tab_prefixes": Case(
        PY,
        {
            "old_text": "     6\tdef other():\n     7\t    pass",
            "new_text": "     6\tdef other():\n     7\t    return 7",
        },
        PY.replace(b"    pass\n", b"    return 7\n"),
        "line_number_prefixes",
    ),
    "pipe_prefixes": Case(
        PY,
        {
            "old_text": "2 |     message = 'hi ' + name\n3 |     return message",
            "new_text": "    message = 'hi! ' + name\n    return message",
        },
        PY.replace(b"'hi '", b"'hi! '"),
        "line_number_prefixes",
    ),
    "colon_prefixes": Case(
        PY,
        {
            "old_text": "12: def other():\n13:     pass\n",
            "new_text": "def other():\n    return 13\n",
        },
        PY.replace(b"    pass\n", b"    return 13\n"),
        "line_number_prefixes",
    ),
    "arrow_prefixes_with_blank_line": Case(
        PY,
        {
            "old_text": (
                "     3\u2192    return message\n     4\u2192\n"
                "     5\u2192\n     6\u2192def other():"
            ),
            "new_text": "    return message\n\n\ndef another():",
        },
        PY.replace(b"def other", b"def another"),
        "line_number_prefixes",
    ),
    "prefixes_on_some_lines_only_not_stripped": Case(
        PY,
        {"old_text": "     6\tdef other():\n    passes", "new_text": "x"},
        error="no_match",
        says=("stages tried: exact,", "Nearest candidates:"),
    ),
    # --- blank first line --------------------------------------------------------------
    "blank_first_line_exact": Case(
        PY,
        {"old_text": "\ndef other():\n", "new_text": "\ndef other(x):\n"},
        PY.replace(b"other()", b"other(x)"),
        "exact",
    ),
    "blank_first_line_under_indented": Case(
        b"class A:\n    \n    def f(self):\n        return 1\n",
        {
            "old_text": "\ndef f(self):\n    return 1\n",
            "new_text": "\ndef f(self):\n    return 2\n",
        },
        b"class A:\n    \n    def f(self):\n        return 2\n",
        "indentation_flexible",
    ),
    "blank_first_line_whitespace_only_in_file": Case(
        b"a = 1\n    \nb = 2\n",
        {"old_text": "a = 1\n\nb = 2\n", "new_text": "a = 1\n\nb = 3\n"},
        b"a = 1\n    \nb = 3\n",
        "line_endings_trailing_ws",
    ),
    # --- counts ------------------------------------------------------------------------
    "multiple_matches_error_lists_lines": Case(
        b"x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n",
        {"old_text": "x = 1", "new_text": "x = 9"},
        error="ambiguous_match",
        says=("matches 3 places", "lines 1, 3, 5", "expected_replacements=3"),
    ),
    "multiple_matches_at_loose_stage": Case(
        b"x = 1 \ny = 2\nx = 1  \n",
        {"old_text": "x = 1\n", "new_text": "x = 9\n"},
        error="ambiguous_match",
        says=("matches 2 places", "stage: line_endings_trailing_ws", "lines 1, 3"),
    ),
    "expected_replacements_two": Case(
        b"x = 1\ny = 2\nx = 1\n",
        {"old_text": "x = 1", "new_text": "x = 9", "expected_replacements": 2},
        b"x = 9\ny = 2\nx = 9\n",
        "exact",
    ),
    "expected_two_found_three": Case(
        b"x = 1\nx = 1\nx = 1\n",
        {"old_text": "x = 1", "new_text": "x = 9", "expected_replacements": 2},
        error="ambiguous_match",
        says=("matches 3 places", "expected_replacements is 2"),
    ),
    "expected_two_found_one": Case(
        b"x = 1\ny = 2\n",
        {"old_text": "x = 1", "new_text": "x = 9", "expected_replacements": 2},
        error="no_match",
        says=("Stage exact found 1 of the 2 expected matches (line 1)",),
    ),
    # --- already applied ---------------------------------------------------------------
    "already_applied_new_text_present": Case(
        PY.replace(b"'hi '", b"'hello '"),
        {"old_text": "message = 'hi ' + name", "new_text": "message = 'hello ' + name"},
        error="no_match",
        says=("new_text is already present", "line 2", "probably already applied"),
    ),
    "already_applied_insertion_not_repeated": Case(
        b"import os\nimport sys\n\nx = 1\n",
        {"old_text": "import os\n", "new_text": "import os\nimport sys\n"},
        error="already_applied",
        says=("probably already applied",),
    ),
    # --- refused input -----------------------------------------------------------------
    "latin1_file_refused": Case(
        b"name = 'caf\xe9'\n",
        {"old_text": "name", "new_text": "label"},
        error="not_utf8",
        says=("not valid UTF-8", "byte 11", "line 1"),
    ),
    "binary_file_refused": Case(
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        {"old_text": "PNG", "new_text": "GIF"},
        error="binary_file",
        says=("binary",),
    ),
    "identical_old_and_new": Case(
        PY,
        {"old_text": "pass", "new_text": "pass"},
        error="invalid_arguments",
        says=("identical",),
    ),
    "empty_old_text": Case(
        PY,
        {"old_text": "", "new_text": "x = 1\n"},
        error="invalid_arguments",
        says=("empty", "write tool"),
    ),
    "near_miss_without_fuzzy_refused": Case(
        PY,
        {"old_text": "    mesage = 'hi ' + name\n", "new_text": "    message = 'hey'\n"},
        error="no_match",
        says=("line 2 (", "% similar", "     2\t    message = 'hi ' + name"),
    ),
    # --- several edits -----------------------------------------------------------------
    "multi_edit_all_applied": Case(
        PY,
        {
            "edits": [
                {"old_text": "'hi '", "new_text": "'hello '"},
                {"old_text": "    pass", "new_text": "    return greet('x')"},
            ]
        },
        PY.replace(b"'hi '", b"'hello '").replace(b"    pass", b"    return greet('x')"),
        "exact",
    ),
    "multi_edit_second_sees_first": Case(
        PY,
        {
            "edits": [
                {"old_text": "def other():", "new_text": "def renamed():"},
                {"old_text": "def renamed():\n    pass", "new_text": "def renamed():\n    ..."},
            ]
        },
        PY.replace(b"def other():\n    pass", b"def renamed():\n    ..."),
        "exact",
    ),
    "multi_edit_rollback_on_failure": Case(
        PY,
        {
            "edits": [
                {"old_text": "'hi '", "new_text": "'hello '"},
                {"old_text": "no such line", "new_text": "x"},
                {"old_text": "pass", "new_text": "return"},
            ]
        },
        error="no_match",
        says=("edits[1] failed", "none of the 3 edits was applied"),
    ),
    "multi_edit_rollback_on_ambiguity": Case(
        b"a = 1\na = 1\nb = 2\n",
        {
            "edits": [
                {"old_text": "b = 2", "new_text": "b = 3"},
                {"old_text": "a = 1", "new_text": "a = 2"},
            ]
        },
        error="ambiguous_match",
        says=("edits[1] failed", "lines 1, 2"),
    ),
}


def _run(workdir: Path, case: Case) -> ToolOutput:
    arguments = {"path": "src/mod.py", **case.args}
    return EditTool().run(ToolInput(arguments=arguments, workdir=workdir))


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_edit_case(tmp_path: Path, case: Case) -> None:
    target = tmp_path / "src" / "mod.py"
    target.parent.mkdir()
    target.write_bytes(case.file)
    if case.error is not None:
        with pytest.raises(ToolError) as caught:
            _run(tmp_path, case)
        assert caught.value.error_type == case.error
        for fragment in case.says:
            assert fragment in str(caught.value)
        assert target.read_bytes() == case.file
        return
    output = _run(tmp_path, case)
    assert target.read_bytes() == case.expected
    assert output.metadata["stage"] == case.stage
    assert f"(stage: {case.stage})" in output.text or f"stages: {case.stage}" in output.text
    assert list(tmp_path.joinpath("src").iterdir()) == [target]


def test_table_has_at_least_forty_cases() -> None:
    assert len(CASES) >= 40
