"""Speed tweaks: the changes that make harness faster without changing what it does.

Each tweak is one module here, and each can be switched off with
``HARNESS_SPEED_OFF`` (``all``, or names separated by commas), so its effect can
be measured (``bench/speed_tweaks.py``) and a suspected tweak ruled out when a
run misbehaves. A tweak that turns out to save under 1 ms a row goes: it is not
worth the code.

- ``gc_freeze``: an eval run freezes the heap after the SDK imports and collects
  the young generation less often (:mod:`harness._speed.gc_freeze`);
- ``sdk_order``: xdist workers group their rows by SDK (:mod:`harness._speed.sdk_order`);
- ``sdk_schedule``: xdist's ``load`` mode hands a worker the rows of the SDK it
  has loaded (:mod:`harness._speed.sdk_schedule`);
- ``tls_context``: the SDK clients harness builds share one TLS context, and a
  replay's clients read no proxy settings (:mod:`harness._speed.tls`).
"""

from __future__ import annotations

from harness.core.errors import ConfigurationError
from harness.settings import env_value

__all__ = ["OFF_VARIABLE", "TWEAKS", "enabled", "switched_off"]

OFF_VARIABLE = "HARNESS_SPEED_OFF"
TWEAKS = ("gc_freeze", "sdk_order", "sdk_schedule", "tls_context")


def switched_off() -> frozenset[str]:
    """The tweaks ``HARNESS_SPEED_OFF`` turns off; raises on a name that is no tweak."""
    given = env_value("speed_off") or ""
    names = {part.strip() for part in given.split(",") if part.strip()}
    if "all" in names:
        return frozenset(TWEAKS)
    unknown = sorted(names - set(TWEAKS))
    if unknown:
        raise ConfigurationError(
            f"{OFF_VARIABLE}={given!r} names no speed tweak {', '.join(unknown)}: "
            f"give 'all' or some of {', '.join(TWEAKS)}, separated by commas"
        )
    return frozenset(names)


def enabled(name: str) -> bool:
    """Whether the tweak ``name`` is on (not switched off by ``HARNESS_SPEED_OFF``)."""
    return name not in switched_off()
