"""``lazy_getattr``: a package's name comes from its module, whatever that holds now."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest

from harness.core.lazy import lazy_getattr


@pytest.fixture
def package() -> Iterator[types.ModuleType]:
    """``harness_lazy_probe``, a package whose ``later`` module is ``harness.core.text``."""
    made = types.ModuleType("harness_lazy_probe")
    made.__path__ = []
    sys.modules["harness_lazy_probe"] = made
    sys.modules["harness_lazy_probe.later"] = sys.modules["harness.core.text"]
    yield made
    del sys.modules["harness_lazy_probe"], sys.modules["harness_lazy_probe.later"]


def test_a_name_comes_from_its_module_as_it_is_now(
    package: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    import harness.core.text as later

    package.__getattr__ = lazy_getattr(package.__name__, {"REPLACEMENT": "later"})  # type: ignore[method-assign]
    assert package.REPLACEMENT is later.REPLACEMENT
    monkeypatch.setattr(later, "REPLACEMENT", "patched")
    assert package.REPLACEMENT == "patched"


def test_an_unknown_name_is_an_attribute_error_naming_the_package(
    package: types.ModuleType,
) -> None:
    package.__getattr__ = lazy_getattr(package.__name__, {})  # type: ignore[method-assign]
    with pytest.raises(AttributeError, match="module 'harness_lazy_probe' has no attribute 'nope'"):
        package.nope  # noqa: B018
    assert not hasattr(package, "nope")
