"""The reference pages say what the code says (tests/docs/reference.py generates them)."""

from __future__ import annotations

import re

import pytest
import typer.main

from harness.cli import app
from tests.docs.reference import (
    BEGIN,
    COMMAND,
    END,
    PAGES,
    REFERENCE,
    generated_part,
    plugin_markers,
    rewrite,
)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_generated_part_is_what_the_code_says(page: str) -> None:
    text = (REFERENCE / page).read_text("utf-8")
    found = generated_part(text)
    assert found is not None, f"docs/reference/{page} lost its markers {BEGIN!r} / {END!r}"
    expected = PAGES[page]()
    if found.strip() != expected.strip():
        changed = sorted(set(expected.splitlines()) ^ set(found.splitlines()))[:6]
        pytest.fail(
            f"docs/reference/{page} no longer matches the code; run `{COMMAND}` and commit "
            f"the page (lines that differ: {changed})",
            pytrace=False,
        )


def test_regenerating_keeps_the_prose_around() -> None:
    text = "# Title\n\nProse before.\n\n" + BEGIN + "\nold\n" + END + "\n\nProse after.\n"
    rewritten = rewrite(text, "new\n")
    assert rewritten.startswith("# Title\n\nProse before.\n\n")
    assert rewritten.endswith("\n\nProse after.\n")
    assert generated_part(rewritten) == "new\n"


def test_the_overview_table_names_every_command() -> None:
    # The hand-written table at the top of cli.md: a new command gets a line there too.
    overview = (REFERENCE / "cli.md").read_text("utf-8").split(BEGIN, 1)[0]

    def paths(command: typer.core.TyperGroup, prefix: str) -> list[str]:
        found = []
        for name, child in getattr(command, "commands", {}).items():
            if getattr(child, "hidden", False):
                continue
            found.append(f"{prefix} {name}")
            found += paths(child, f"{prefix} {name}")
        return found

    missing = [
        path
        for path in paths(typer.main.get_command(app), "harness")
        if not re.search(rf"`{re.escape(path)}( |`)", overview)
    ]
    assert not missing, f"docs/reference/cli.md's overview table lacks {missing}: add a line"


def test_the_plugin_registers_the_markers_the_page_lists() -> None:
    # The markers are read from the source: a marker registered another way would be missed.
    assert {line.split("(")[0].split(":")[0] for line in plugin_markers()} >= {
        "eval",
        "live",
        "llm_cassette",
    }
