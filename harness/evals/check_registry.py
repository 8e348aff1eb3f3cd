"""The registered checks: harness's own, then those you register, by case-file key.

``register_check`` is how a conftest (or a module a case file's ``checks_from:``
names) adds one; the case loader validates ``checks:`` against this registry.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter

from harness.core.errors import ConfigurationError
from harness.evals.builtin_checks import BUILTIN_CHECKS
from harness.evals.check import EVIDENCE, Check

__all__ = ["config_adapter", "import_checks", "register_check", "registered_checks"]

_KEY = re.compile(r"[a-z][a-z0-9_]*")
_REGISTRY: dict[str, Check] = {}
_ADAPTERS: dict[str, TypeAdapter[Any]] = {}
_BUILTIN_KEYS = frozenset(check.key for check in BUILTIN_CHECKS)


def register_check(check: Check) -> Check:
    """Make ``check.key`` a key of every case file's ``checks:`` block.

    Call it from a conftest (or a module a case file's ``checks_from:`` names).
    Registering the same object again is a no-op; the same class from the same
    module, imported anew, takes the key over; returns ``check``.

    Raises:
        ConfigurationError: not a Check, a bad key or ``reads``, or the key is taken.
    """
    name = type(check).__name__
    if not isinstance(check, Check):
        raise ConfigurationError(
            f"register_check: {name} is not a Check: give it key, config, reads, "
            "can_fail(config) and run(config, evidence)"
        )
    key = check.key
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise ConfigurationError(
            f"register_check: {name}.key {key!r} is not a case-file key: "
            "use lowercase letters, digits and underscores (answer_max_words)"
        )
    reads = check.reads
    if not isinstance(reads, frozenset) or not reads or not reads <= EVIDENCE:
        unknown = sorted(map(str, set(reads) - EVIDENCE)) if isinstance(reads, frozenset) else []
        raise ConfigurationError(
            f"register_check: {key}: reads must be a non-empty frozenset of "
            f"{', '.join(sorted(EVIDENCE))}" + (f"; unknown: {unknown}" if unknown else "")
        )
    known = _REGISTRY.get(key)
    if known is check:
        return check
    if known is not None and not (_defined_alike(known, check) and key not in _BUILTIN_KEYS):
        raise ConfigurationError(
            f"register_check: the key {key!r} is taken by {type(known).__name__} "
            f"({type(known).__module__}); give {name} another key"
        )
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(check.config)
    except Exception as exc:  # pydantic's schema errors have no common base
        raise ConfigurationError(
            f"register_check: {key}: config {check.config!r} is not a type pydantic "
            f"can validate ({str(exc).splitlines()[0]})"
        ) from None
    _REGISTRY[key] = check
    _ADAPTERS[key] = adapter
    return check


def _defined_alike(known: Check, check: Check) -> bool:
    """The same class, from the same module: a conftest or checks module imported again.

    pytester's in-process runs, a rerun plugin or ``importlib.reload`` import a
    conftest anew, and its check is then a new object of a new class of the same
    name: the newer one is the one the case files of this run mean.
    """
    old, new = type(known), type(check)
    return (old.__module__, old.__qualname__) == (new.__module__, new.__qualname__)


def registered_checks() -> Mapping[str, Check]:
    """Every registered check by key: harness's own first, then yours in order."""
    return dict(_REGISTRY)


def config_adapter(key: str) -> TypeAdapter[Any]:
    """The validator of a registered check's config."""
    return _ADAPTERS[key]


def import_checks(spec: str) -> None:
    """Import ``package.module`` (its import registers checks) or register the
    check, or each check of a list, that ``package.module:attribute`` names.

    Raises:
        ConfigurationError: the import fails or the attribute holds no Check.
    """
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(
            f"checks_from {spec!r}: cannot import {module_name} ({exc}); is it on sys.path?"
        ) from None
    except Exception as exc:  # the user's module: a syntax error, or it raised on import
        where = f", line {exc.lineno}" if isinstance(exc, SyntaxError) and exc.lineno else ""
        raise ConfigurationError(
            f"checks_from {spec!r}: importing {module_name} raised "
            f"{type(exc).__name__}{where}: {str(exc).splitlines()[0] if str(exc) else ''}"
        ) from None
    if not attribute:
        return
    found = getattr(module, attribute, None)
    if found is None:
        raise ConfigurationError(f"checks_from {spec!r}: {module_name} has no {attribute}")
    for check in found if isinstance(found, list | tuple) else [found]:
        try:
            register_check(check)
        except ConfigurationError as exc:
            raise ConfigurationError(f"checks_from {spec!r}: {exc}") from None


for _check in BUILTIN_CHECKS:
    register_check(_check)
