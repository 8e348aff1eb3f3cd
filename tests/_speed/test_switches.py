"""``HARNESS_SPEED_OFF`` switches speed tweaks off by name, or all of them; a name that
is no tweak stops the run with a line saying which names there are."""

from __future__ import annotations

import pytest

from harness._speed import TWEAKS, enabled, switched_off
from harness._speed.tls import http_client_options
from harness.core.errors import ConfigurationError


@pytest.mark.parametrize(
    ("given", "off"),
    [
        ("", set()),
        ("gc_freeze", {"gc_freeze"}),
        (" sdk_order , tls_context,", {"sdk_order", "tls_context"}),
        ("all", set(TWEAKS)),
    ],
)
def test_the_variable_names_the_tweaks_switched_off(
    monkeypatch: pytest.MonkeyPatch, given: str, off: set[str]
) -> None:
    monkeypatch.setenv("HARNESS_SPEED_OFF", given)
    assert switched_off() == off
    assert {name for name in TWEAKS if not enabled(name)} == off


def test_a_name_that_is_no_tweak_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_SPEED_OFF", "gc_freeze,gc_frezee")
    with pytest.raises(ConfigurationError, match="names no speed tweak gc_frezee: give 'all'"):
        switched_off()


def test_the_tls_tweak_off_leaves_the_client_to_the_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HARNESS_SPEED_OFF", raising=False)
    assert "verify" in http_client_options()
    monkeypatch.setenv("HARNESS_SPEED_OFF", "tls_context")
    assert http_client_options() == {}


def test_a_pytest_run_says_which_name_is_wrong(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS_SPEED_OFF", "sdk_ordr")
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest_subprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*HARNESS_SPEED_OFF='sdk_ordr' names no speed tweak sdk_ordr*"])
