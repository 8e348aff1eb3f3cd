"""Where Settings come from: arguments, then HARNESS_* variables, then ./.env, then defaults."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core import ConfigurationError
from harness.settings import TRUST_FIELDS, Settings, env_value, variable_of


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder, with none of the variables these tests set."""
    monkeypatch.chdir(tmp_path)
    for field in ("max_steps", "max_retries", "model", "context_max_chars", "stream"):
        monkeypatch.delenv(variable_of(field), raising=False)
    return tmp_path


def test_arguments_beat_the_environment_which_beats_dotenv_which_beats_the_default(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / ".env").write_text(
        "HARNESS_MAX_STEPS=5\nHARNESS_MAX_RETRIES=3\n# a comment\nexport HARNESS_MODEL='m-file'\n"
    )
    monkeypatch.setenv("HARNESS_MAX_STEPS", "6")
    assert Settings.from_env(max_steps=7).max_steps == 7
    settings = Settings.from_env()
    assert settings.max_steps == 6  # the environment over .env
    assert settings.max_retries == 3 and settings.model == "m-file"  # .env over the default
    assert settings.context_max_chars == 200_000  # the default


def test_python_construction_reads_neither_the_environment_nor_dotenv(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / ".env").write_text("HARNESS_MAX_RETRIES=3\n")
    monkeypatch.setenv("HARNESS_MAX_STEPS", "6")
    assert Settings(workdir=folder) == Settings(workdir=folder, max_steps=8, max_retries=2)


def test_a_given_mapping_is_the_whole_environment(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / ".env").write_text("HARNESS_MAX_RETRIES=3\n")
    monkeypatch.setenv("HARNESS_MAX_STEPS", "6")
    settings = Settings.from_env({"HARNESS_STREAM": "on"})
    assert (settings.max_steps, settings.max_retries, settings.stream) == (8, 2, True)


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("HARNESS_MAX_STEPS", "many", "HARNESS_MAX_STEPS='many' is not a whole number"),
        ("HARNESS_MAX_STEPS", "0", "HARNESS_MAX_STEPS='0' is too small; use at least 1"),
        ("HARNESS_STREAM", "maybe", "HARNESS_STREAM='maybe' is not a boolean; use true or false"),
        (
            "HARNESS_LOG_LEVEL",
            "loud",
            "HARNESS_LOG_LEVEL='loud' is not one of the choices; use one of DEBUG, INFO, "
            "WARNING, ERROR, CRITICAL",
        ),
        (
            "HARNESS_DEBUG",
            "sometimes",
            "HARNESS_DEBUG='sometimes' is not a boolean; use true or false",
        ),
    ],
)
def test_a_bad_value_in_dotenv_names_its_variable(
    folder: Path, variable: str, value: str, expected: str
) -> None:
    (folder / ".env").write_text(f"{variable}={value}\n")
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_env()
    assert str(caught.value) == f"invalid settings: {expected}"


def test_python_only_fields_are_not_read(folder: Path) -> None:
    assert set(Settings.model_fields) - set(Settings.env_variables()) == {
        "max_tokens",
        "system_prompt",
    }
    (folder / ".env").write_text("HARNESS_MAX_TOKENS=5\nHARNESS_SYSTEM_PROMPT=hi\n")
    assert Settings.from_env() == Settings.from_env({})


def test_every_variable_is_harness_and_the_field(folder: Path) -> None:
    for field, variable in Settings.env_variables().items():
        assert variable == variable_of(field) == f"HARNESS_{field.upper()}"
        assert Settings.model_fields[field].description, field


def test_env_value_reads_one_setting_like_from_env(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / ".env").write_text("HARNESS_MAX_STEPS=5\nHARNESS_MODEL=m-file\nHARNESS_STREAM=\n")
    monkeypatch.setenv("HARNESS_MAX_STEPS", " 6 ")
    assert env_value("max_steps") == "6"
    assert env_value("model") == "m-file"
    assert env_value("stream") is None  # blank is unset
    assert env_value("model", {}) is None  # a given mapping, no .env


def test_speed_off_lists_the_tweaks() -> None:
    assert Settings.from_env({"HARNESS_SPEED_OFF": "a, b"}).speed_off == ("a", "b")
    assert Settings.from_env({}).speed_off == ()


_NAME = st.text(alphabet="abcdefgh_-0123456789", min_size=1, max_size=8)


@given(
    names=st.lists(_NAME, max_size=5),
    pads=st.lists(st.sampled_from(["", " ", "  ", "\t"]), min_size=12, max_size=12),
)
def test_lists_are_comma_separated_with_blanks_ignored(names: list[str], pads: list[str]) -> None:
    text = ",".join(f"{pads[i]}{name}{pads[i + 1]}" for i, name in enumerate(names))
    text = f"{text},," if names else ",,"
    assert Settings.from_env({"HARNESS_BASH_ENV": text}).bash_env == tuple(names)


def test_an_unreadable_dotenv_is_one_clear_error(folder: Path) -> None:
    (folder / ".env").write_bytes(b"HARNESS_MODEL=\xff\xfe\n")
    with pytest.raises(ConfigurationError, match=r"\.env cannot be read \(UnicodeDecodeError\)"):
        Settings.from_env()


@pytest.mark.parametrize("field", sorted(TRUST_FIELDS))
def test_a_dotenv_never_grants_what_a_run_may_do(folder: Path, field: str) -> None:
    # A .env comes with the repository under test: it must not loosen approval, the
    # sandbox or the tools, nor hand the approval key to a file the agent can read.
    (folder / ".env").write_text(f"HARNESS_MODEL=m-file\n{variable_of(field)}=x\n")
    with pytest.raises(ConfigurationError, match=rf"sets {variable_of(field)}: .*environment only"):
        Settings.from_env()
    with pytest.raises(ConfigurationError, match=variable_of(field)):
        env_value("model")


def test_trust_settings_still_come_from_the_environment(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / ".env").write_text("HARNESS_MODEL=m-file\nHARNESS_BASH_NETWORK=\n")  # blank: unset
    monkeypatch.setenv("HARNESS_BASH_NETWORK", "true")
    settings = Settings.from_env()
    assert settings.bash_network is True and settings.model == "m-file"


def test_every_trust_field_is_a_setting() -> None:
    assert set(Settings.env_variables()) >= TRUST_FIELDS


def test_the_command_names_the_trust_setting_a_dotenv_sets(folder: Path) -> None:
    (folder / ".env").write_text("HARNESS_APPROVAL_KEY=known-to-the-agent\n")
    done = subprocess.run(
        [sys.executable, "-m", "harness", "health"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert "sets HARNESS_APPROVAL_KEY" in done.stderr and "Traceback" not in done.stderr
    assert "known-to-the-agent" not in done.stdout + done.stderr
