"""The SDK adapter skeleton, public for the wire packages (``harness.wires.*``).

A wire format's runtime provider lives in its own package and plugs into the
one skeleton every SDK adapter shares (client ownership, sync/async dispatch,
error translation), as the Chat Completions, Messages and Responses adapters do.
"""

from __future__ import annotations

from harness.providers._sdk_call import SdkProvider

__all__ = ["SdkProvider"]
