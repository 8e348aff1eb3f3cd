"""The speed tweaks of a pytest run, registered as one plugin when pytest configures.

The harness plugin calls :func:`register_tweaks` from its ``pytest_configure``;
each tweak ``HARNESS_SPEED_OFF`` leaves on adds its hooks here, so the plugin
itself holds none of them.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness._speed import enabled
from harness._speed.gc_freeze import ImportFreezer
from harness._speed.sdk_order import group_rows_by_sdk
from harness.core.errors import ConfigurationError

__all__ = ["FREEZER_KEY", "register_tweaks"]

FREEZER_KEY = pytest.StashKey[ImportFreezer]()


def register_tweaks(config: pytest.Config, *, eval_run: bool) -> None:
    """Register the tweaks that are on; ``eval_run``: the run writes an eval report."""
    try:
        on = {name for name in ("gc_freeze", "sdk_order", "sdk_schedule") if enabled(name)}
    except ConfigurationError as error:
        raise pytest.UsageError(str(error)) from None
    worker = hasattr(config, "workerinput")
    if worker and "sdk_order" in on:  # only xdist workers gain from it (see sdk_order)
        config.pluginmanager.register(_RowOrder(), "harness-row-order")
    controller = not worker and _xdist_hooks(config)
    if controller and "sdk_schedule" in on:
        config.pluginmanager.register(_SdkScheduler(), "harness-sdk-scheduler")
    if eval_run and "gc_freeze" in on:  # on the controller and on every worker
        freezer = config.stash[FREEZER_KEY] = ImportFreezer()
        freezer.start()
        config.pluginmanager.register(_Freezer(freezer), "harness-gc-freeze")


def _xdist_hooks(config: pytest.Config) -> bool:
    """Whether pytest-xdist's hooks are declared (its plugin is loaded).

    Not just whether ``config.hook`` has the name: a conftest's ``optionalhook``
    implementation makes pluggy add an undeclared caller for it without xdist.
    """
    caller = getattr(config.hook, "pytest_xdist_make_scheduler", None)
    return caller is not None and caller.spec is not None


class _RowOrder:
    """Groups the rows under each parent by SDK once every other plugin has ordered them."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        group_rows_by_sdk(items)


class _SdkScheduler:
    """Gives xdist's ``load`` mode (``-n`` alone) a scheduler that keeps workers on one SDK."""

    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") != "load":
            return None  # worksteal, loadgroup...: the user chose; sdk_order still helps
        hook = config.hook.pytest_xdist_make_scheduler
        if any(
            impl.plugin is not self and impl.plugin_name != "dsession"
            for impl in hook.get_hookimpls()
        ):
            return None  # a scheduler of the project's own (a conftest's): it decides
        from harness._speed.sdk_schedule import SdkAffineScheduling

        return SdkAffineScheduling(config, log)


class _Freezer:
    """Freezes the heap after a test that imported much; puts gc's thresholds back at the end."""

    def __init__(self, freezer: ImportFreezer) -> None:
        self.freezer = freezer

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_teardown(self) -> None:
        self.freezer.after_test()

    def pytest_unconfigure(self) -> None:
        self.freezer.stop()
