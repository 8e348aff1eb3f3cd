"""The shape of a held layer's id (``lyr_`` and 16 hex digits).

Its own module because both the layer store and the journal check it, and the
layer store already imports the journal (it writes a call's origin into the layer).
"""

from __future__ import annotations

import re

__all__ = ["LAYER_ID_PATTERN"]

LAYER_ID_PATTERN = re.compile(r"^lyr_[0-9a-f]{16}$")
