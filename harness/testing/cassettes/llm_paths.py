"""Which cassette an ``llm_cassette`` test opens: its model's, epoch's and stream's own.

The model is part of the path, ``<cassette dir>/<model>/<test file>/<test name>.yaml``,
so that recording a new model writes a new file beside the baseline instead of
over it. It is ``--harness-model`` when given (an upgrade run re-records or
replays every test on the new model), else the test's
``@pytest.mark.llm_cassette(model=...)``; with neither, the path has no model
part, as before models were in it.

Migration: a test that gained a marker model still replays the cassette recorded
at the path without a model part (in record modes ``none`` and ``once``), and
the run ends with a one-line note saying how to move it. ``--harness-model``
never falls back: a new model must not replay the old model's answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.testing.naming import epoch_cassette, epoch_of, is_streaming, test_file, test_name
from harness.testing.options import HarnessOptions

__all__ = [
    "PATH_NOTES_KEY",
    "LLMTarget",
    "legacy_note",
    "llm_model",
    "other_model_note",
    "resolve_llm_target",
]

# Notes on cassette paths (one replayed from the path without a model part, a
# test whose requests named another model than its path), one line each, printed
# once at the end of the run.
PATH_NOTES_KEY = pytest.StashKey[dict[str, None]]()  # a dict: ordered, each once
# A legacy cassette is read only by modes that do not write over what they find.
_READING_MODES = frozenset({"none", "once"})


@dataclass(frozen=True, slots=True)
class LLMTarget:
    """The cassette a test opens, and its model.

    Attributes:
        path: the file opened.
        model: the test's model (None: neither ``--harness-model`` nor a marker set one).
        moved_to: when ``path`` is a cassette at the path without a model part,
            where it belongs now; else None.
    """

    path: Path
    model: str | None
    moved_to: Path | None = None


def llm_model(item: pytest.Item, options: HarnessOptions) -> str | None:
    """``--harness-model``, else the test's ``@pytest.mark.llm_cassette(model=...)``, else None."""
    if options.model:
        return options.model
    marker = item.get_closest_marker("llm_cassette")
    model = marker.kwargs.get("model") if marker is not None else None
    return model if isinstance(model, str) and model else None


def resolve_llm_target(item: pytest.Item, options: HarnessOptions) -> LLMTarget:
    """The cassette ``llm_cassette`` opens for ``item`` (its epoch's own when recorded)."""
    from harness.testing.cassettes.llm_cassette import llm_cassette_path

    name = test_name(item) + ("-stream" if is_streaming(item) else "")
    relative = test_file(Path(str(item.path)), options.rootdir)
    model = llm_model(item, options)
    path = _epoch_path(
        llm_cassette_path(options.cassette_dir, relative, name, model), item, options
    )
    if model is None or options.model or path.exists():
        return LLMTarget(path, model)
    if options.record_mode not in _READING_MODES:
        return LLMTarget(path, model)  # a recording writes the model's own file
    legacy = _epoch_path(llm_cassette_path(options.cassette_dir, relative, name), item, options)
    if legacy.exists():
        return LLMTarget(legacy, model, moved_to=path)
    return LLMTarget(path, model)


def _epoch_path(path: Path, item: pytest.Item, options: HarnessOptions) -> Path:
    own = epoch_cassette(path, epoch_of(item))
    return own if options.record_mode != "none" or own.exists() else path


def legacy_note(target: LLMTarget) -> str:
    """The one line that says how to move a cassette read from the path without a model."""
    assert target.moved_to is not None
    return (
        f"harness: {target.path} has no model in its path; move it to {target.moved_to} "
        f"(mkdir -p {target.moved_to.parent} && git mv {target.path} {target.moved_to})"
    )


def other_model_note(path: Path, model: str, sent: str) -> str | None:
    """The line saying a test's requests named ``sent`` though its cassette is
    ``model``'s (None when they agree; a dated name such as ``gpt-5-mini-2025-08-07``
    is the same model): the agent ignored ``llm_cassette.model``, so the file
    holds another model's answers under this model's name."""
    if not sent or sent.startswith(model):
        return None
    return (
        f"harness: {path} is {model}'s cassette but the test's requests named {sent}; "
        "pass llm_cassette.model to the agent"
    )
