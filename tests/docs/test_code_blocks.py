"""Every code block of the README and the docs site runs or is checked (tests/docs/doc_blocks.py).

Python blocks run as scripts in an empty folder, offline; the test modules the
guides show run in the deep tier against the committed cassettes of the recipe
they mirror (``test_recipe_blocks.py``); fragments are marked
``<!-- not-run: reason -->`` and must still parse. Shell blocks are parsed by the
real ``harness`` and pytest parsers; YAML and JSON blocks by harness's loaders.
"""

from __future__ import annotations

import ast
import re
import runpy
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
import typer.main

from harness.cli import app
from tests.docs.commands import check_harness, command_lines, pytest_arguments
from tests.docs.data_blocks import validate
from tests.docs.doc_blocks import (
    OUTPUT_LANGUAGES,
    ROOT,
    SHELL_LANGUAGES,
    Block,
    all_blocks,
    documents,
)

BLOCKS = all_blocks()
HOW = "(the conventions: tests/docs/doc_blocks.py; list them: python -m tests.docs.doc_blocks)"
# Fragments are a choice: raising this number is a reviewed change, like the blocks it skips.
NOT_RUN_CEILING = 12


def _of(*languages: str) -> list[Block]:
    return [block for block in BLOCKS if block.language in languages]


def _ids(blocks: list[Block]) -> list[str]:
    return [block.id for block in blocks]


def test_blocks_are_found_and_their_markers_known() -> None:
    assert len(BLOCKS) >= 30, [block.id for block in BLOCKS]
    known = {"python", "yaml", "json", *SHELL_LANGUAGES, *OUTPUT_LANGUAGES}
    unknown = [f"{b.id} ({b.language})" for b in BLOCKS if b.language not in known]
    assert not unknown, f"code blocks in a language no test reads: {unknown} {HOW}"
    for block in BLOCKS:
        if block.marker == "not-run":
            assert block.marker_value, f"{block.id}: say why it is not run {HOW}"
        if block.marker == "run":
            assert block.language == "python", f"{block.id}: only python blocks run {HOW}"
            assert block.marker_value.startswith("pytest "), f"{block.id}: run: pytest ... {HOW}"
        if block.language == "python" and block.marker is None:
            # Run as a script, a test module would only define its tests: say how it runs.
            tests = [n.name for n in ast.walk(ast.parse(block.text)) if _is_test(n)]
            assert not tests, (
                f"{block.id} is a test module ({', '.join(tests)}): mark it "
                f"`<!-- run: pytest as PATH -->` (the recipe whose cassettes it replays) or "
                f"`<!-- not-run: why -->` {HOW}"
            )


def _is_test(node: ast.AST) -> bool:
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")


def test_the_blocks_left_out_are_counted() -> None:
    skipped = [f"{b.id}: {b.marker_value}" for b in BLOCKS if b.skipped]
    checked = len(BLOCKS) - len(skipped)
    sys.stdout.write(
        f"{len(BLOCKS)} code blocks: {checked} run or checked, {len(skipped)} not run\n"
    )
    assert len(skipped) <= NOT_RUN_CEILING, (
        f"{len(skipped)} blocks are marked not-run, more than the {NOT_RUN_CEILING} allowed: "
        f"make a block runnable, or raise NOT_RUN_CEILING in {Path(__file__).name} on purpose. "
        + "; ".join(skipped)
    )


@pytest.mark.parametrize("block", _of("python"), ids=_ids(_of("python")))
def test_python_blocks_parse(block: Block) -> None:
    try:
        ast.parse(block.text, filename=block.id)
    except SyntaxError as exc:
        pytest.fail(f"{block.id}: line {exc.lineno} of the block does not parse: {exc.msg}")


SCRIPTS = [b for b in _of("python") if b.marker is None]


@pytest.mark.parametrize("block", SCRIPTS, ids=_ids(SCRIPTS))
def test_python_blocks_run(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # In this process (a subprocess would pay harness's import again): an empty working
    # folder, and the state folders apart from it (harness refuses a key folder inside).
    work = tmp_path / "work"
    work.mkdir()
    script = work / "block.py"
    script.write_text(block.text, "utf-8")
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.syspath_prepend(str(ROOT))
    try:
        runpy.run_path(str(script), run_name="__main__")
    except Exception as exc:
        raise AssertionError(
            f"{block.id}: the block fails when run in an empty folder ({type(exc).__name__}: "
            f"{exc}); fix it, or mark it `<!-- not-run: why -->` if it is a fragment {HOW}"
        ) from exc


SHELL = _of(*SHELL_LANGUAGES, *OUTPUT_LANGUAGES)


@pytest.mark.parametrize("block", SHELL, ids=_ids(SHELL))
def test_shell_blocks_name_real_commands_and_flags(
    block: Block, pytestconfig: pytest.Config
) -> None:
    def check_pytest(args: Sequence[str]) -> None:
        # The parser of this very session: pytest's, harness's and every installed plugin's.
        _, unknown = pytestconfig._parser.parse_known_and_unknown_args(list(args))
        flags = [arg for arg in unknown if arg.startswith("-")]
        if flags:
            raise ValueError(f"pytest has no option {', '.join(flags)}")

    console = block.language in OUTPUT_LANGUAGES or block.language == "console"
    problems = []
    for words in command_lines(block.text, console=console):
        try:
            if words[0] == "harness":
                check_harness(words, check_pytest)
            elif (arguments := pytest_arguments(words)) is not None:
                check_pytest(arguments)
        except ValueError as exc:
            problems.append(f"{' '.join(words)}\n    {exc}")
    assert not problems, f"{block.id}: " + "\n".join(problems)


DATA = [b for b in _of("yaml", "json") if not b.skipped]


@pytest.mark.parametrize("block", DATA, ids=_ids(DATA))
def test_data_blocks_validate(block: Block, tmp_path: Path) -> None:
    kind = block.marker_value if block.marker == "check" else None
    validate(block.language, block.text, kind, tmp_path)


# Flags of other tools the prose quotes: git and rsync commands the risk policy judges
# (some cut short on purpose, as in `git reset --har[d]`), ruff's, mkdocs', and
# pytest-randomly's (off in this suite, so its parser lacks it).
OTHER_TOOLS = {"--checkpoint-action", "--delete", "--forc", "--force", "--har", "--hard"}
OTHER_TOOLS |= {"--mirr", "--worktree", "--check", "--strict", "--randomly-seed", "--prefix"}


def test_every_flag_the_prose_names_exists(pytestconfig: pytest.Config) -> None:
    """A flag in a code span of any page is a flag of harness, of pytest or a plugin of it."""
    known = set(OTHER_TOOLS)
    known |= set(pytestconfig._parser.optparser._option_string_actions)
    pending = [typer.main.get_command(app)]
    while pending:
        command = pending.pop()
        for param in command.params:
            known |= {*param.opts, *param.secondary_opts}
        pending += getattr(command, "commands", {}).values()
    unknown = []
    for path in documents():
        for span in re.findall(r"`([^`\n]+)`", path.read_text("utf-8")):
            for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", span):
                if flag not in known:
                    unknown.append(f"{path.relative_to(ROOT)}: {flag} (in `{span}`)")
    assert not unknown, "flags that no parser knows: " + "; ".join(unknown)


def test_the_readme_example_is_the_guide_example_that_runs() -> None:
    # The README's first example is not run; its copy on the guide is, and the two are one.
    def first(path: str) -> Block:
        return next(
            b for b in BLOCKS if b.id.startswith(path) and "test_reads_the_readme" in b.text
        )

    readme, guide = first("README.md:"), first("docs/harness-agents.md:")
    assert readme.text == guide.text, "README.md's example and docs/harness-agents.md's differ"
    assert guide.marker == "run", guide.id
