"""pytest-xdist's ``load`` scheduling, with each worker kept on the SDK it has loaded.

``load`` hands out the rows in collection order, a chunk at a time, so every
worker gets rows of every SDK and imports each of them: on this 2-core machine
``anthropic`` is about 2.5 s of CPU and ``openai`` 1.3 s, a fifth of what a
worker spends on 500 replayed rows. This scheduler hands a worker the rows of
one SDK while that SDK has rows left; a worker whose SDK runs out takes up the
SDK with the most rows left that no other worker holds (else the one with the
most rows left). Rows without a recorded provider go to whoever asks. Nothing
else of ``load`` changes: the same chunk sizes, the same handling of crashed
workers, and the plain ``load`` order when the collection holds one SDK or none.

The controller knows a row only by its node id, so the SDK comes from the id's
parameters: the last of them naming an SDK (``test_cases[gen-0214-openai]``;
harness parametrizes ``provider_name`` with the provider's name as its id). A
wrong guess costs only an import, never a row.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from xdist.scheduler import LoadScheduling

from harness.core.wires import runtime_wires

if TYPE_CHECKING:
    from xdist.workermanage import WorkerController

__all__ = ["SdkAffineScheduling", "sdk_of_nodeid"]

# The id token an SDK's providers carry (openai, openai-responses, openai-stream,
# anthropic...): a runtime wire's name up to its first dash (wires of one SDK share it).
_SDK_TOKENS = frozenset(w.name.partition("-")[0] for w in runtime_wires())


def sdk_of_nodeid(nodeid: str) -> str | None:
    """The SDK a row replays through, going by its node id; None when it names none."""
    _, _, name = nodeid.partition("::")  # the file's path may hold brackets
    _, bracket, params = name.partition("[")
    if not bracket or not params.endswith("]"):
        return None
    return next((t for t in reversed(params[:-1].split("-")) if t in _SDK_TOKENS), None)


class SdkAffineScheduling(LoadScheduling):  # type: ignore[misc]  # xdist ships no types
    """``load`` scheduling that sends a worker the rows of the SDK it last ran."""

    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)
        self._sdks: list[str | None] | None = None
        self._mixed = False
        self._held: dict[WorkerController, str] = {}

    def _sdk_list(self) -> list[str | None]:
        if self._sdks is None:
            assert self.collection is not None, "rows sent before the collection is known"
            self._sdks = [sdk_of_nodeid(nodeid) for nodeid in self.collection]
            self._mixed = len({sdk for sdk in self._sdks if sdk is not None}) > 1
        return self._sdks

    def _send_tests(self, node: WorkerController, num: int) -> None:
        chosen = self._take(node, num)
        if chosen:
            self.node2pending[node].extend(chosen)
            node.send_runtest_some(chosen)

    def _take(self, node: WorkerController, num: int) -> list[int]:
        """Remove and return up to ``num`` pending rows for ``node``, its SDK's first."""
        sdks = self._sdk_list()
        if not self._mixed:  # one SDK or none: plain load order
            chosen: list[int] = self.pending[:num]
            del self.pending[:num]
            return chosen
        left = Counter(sdk for i in self.pending if (sdk := sdks[i]) is not None)
        held = self._held.get(node)
        if held not in left and left:
            others = {sdk for other, sdk in self._held.items() if other is not node}
            free = [sdk for sdk in left if sdk not in others]
            held = max(free or left, key=lambda sdk: (left[sdk], sdk))
            self._held[node] = held
        chosen, kept = [], []
        for index in self.pending:
            if len(chosen) < num and sdks[index] in (None, held):
                chosen.append(index)
            else:
                kept.append(index)
        self.pending[:] = kept
        return chosen

    def remove_node(self, node: WorkerController) -> str | None:
        self._held.pop(node, None)
        crashed: str | None = super().remove_node(node)
        return crashed
