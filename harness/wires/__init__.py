"""One package per wire format: its behaviour in one home.

Each wire's package (``harness/wires/<name>/``) holds the parts that speak it:
the runtime provider (SDK adapter), the traffic reader (a recorded exchange
into the traffic trace), the simulator renderer, the mutation codec and the
transcript reader; ``protocols`` writes down what each part provides. The data
about a wire (hosts, paths, env vars, secret headers, the dotted path of each
part) is its row in the registry, ``harness.core.wires``, which also lists the
wires. Rooms below this one reach a wire's parts by those dotted paths
(``harness.core.wire_parts.load_part``), so the arrows of the import graph
still point down, and a new wire is its package and one registry row.
"""

from __future__ import annotations

__all__: list[str] = []
