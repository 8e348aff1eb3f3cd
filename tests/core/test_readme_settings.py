"""The docs stay true to the code: the settings' variables and the README's test command."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from harness import Settings
from harness.core import ConfigurationError

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text("utf-8")


def test_the_variables_are_the_ones_from_env_really_reads() -> None:
    variables = Settings.env_variables()
    assert variables["provider"] == "HARNESS_PROVIDER" and len(variables) >= 28
    # Each one, set, changes Settings or is refused: none is listed but ignored.
    for field, variable in variables.items():
        try:
            changed = Settings.from_env({variable: "zz-probe"})
        except ConfigurationError:
            continue
        assert getattr(changed, field) != getattr(Settings.from_env({}), field), variable
    for field in set(Settings.model_fields) - set(variables):
        variable = f"HARNESS_{field.upper()}"
        assert Settings.from_env({variable: "zz-probe"}) == Settings.from_env({}), variable


def test_the_readme_test_command_is_what_ci_runs() -> None:
    commands = re.findall(r"^python3 -m venv .*$", README, flags=re.MULTILINE)
    assert len(commands) == 2, commands
    assert all(". .venv/bin/activate" in command for command in commands)
    assert commands[0].endswith("&& harness eval")
    test_command = commands[1].rsplit(" && ", 1)[1]
    ci = (ROOT / ".ci" / "run").read_text("utf-8").strip().splitlines()
    assert ci[-1] == test_command


@pytest.mark.parametrize("extra", ["pytest-split"])
def test_the_dev_extra_has_what_the_readme_promises(extra: str) -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    dev = pyproject["project"]["optional-dependencies"]["dev"]
    assert any(requirement.startswith(extra) for requirement in dev), dev
