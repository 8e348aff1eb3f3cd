"""Which runs of a test stream: the run's ``--harness-stream``, or the test's own marker.

``--harness-stream both`` twins every recorded eval of the run (a plain and a
streaming run, the latter with its own ``-stream`` cassette). One test opts in
or out on its own with ``@pytest.mark.llm_cassette(stream=...)``:

- ``"both"`` (or ``True``): a plain and a streaming run, whatever the option;
- ``"on"``: the streaming run only;
- ``"off"`` (or ``False``): the plain run only, even under ``--harness-stream``.

The marker applies to any ``llm_cassette`` test, eval or not (the test reads
``llm_cassette.stream`` and streams when it is set). A mutant run serves the
plain cassettes only, so it ignores the marker.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.testing.options import HarnessOptions

__all__ = ["STREAM_MARKER_VALUES", "stream_runs"]

STREAM_MARKER_VALUES: dict[Any, str] = {
    "both": "both",
    "on": "on",
    "off": "off",
    True: "both",
    False: "off",
}
_RUNS = {"both": [False, True], "on": [True], "off": None}


def _marker_mode(definition: Any) -> str | None:
    marker = definition.get_closest_marker("llm_cassette")
    if marker is None or "stream" not in marker.kwargs:
        return None
    value = marker.kwargs["stream"]
    mode = STREAM_MARKER_VALUES.get(value) if isinstance(value, str | bool) else None
    if mode is None:
        raise pytest.UsageError(
            f"@pytest.mark.llm_cassette(stream={value!r}) on {definition.nodeid}: use "
            "'both' (a plain and a streaming run), 'on' (streaming only) or 'off'"
        )
    return mode


def stream_runs(metafunc: pytest.Metafunc, options: HarnessOptions) -> list[bool] | None:
    """The ``harness_stream`` values to run ``metafunc``'s test with; None: no twins."""
    definition = metafunc.definition
    fixtures = set(metafunc.fixturenames)
    own = _marker_mode(definition) if "llm_cassette" in fixtures else None
    if options.mutants:
        return None
    if own is not None:
        return _RUNS[own]
    is_eval = definition.get_closest_marker("eval") is not None
    recorded = {"provider_name", "llm_cassette"} & fixtures
    if options.stream == "off" or not is_eval or not recorded:
        return None
    return _RUNS[options.stream]
