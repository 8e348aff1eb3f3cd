"""This suite's xdist scheduler: ``loadgroup``, handing work out in batches.

The repo's conftest picks ``loadgroup`` so that the modules importing a heavy SDK
share one worker. xdist's ``loadgroup`` (built on ``loadscope``) makes every
ungrouped test a work unit of its own and keeps a worker at most three units
ahead, so the controller has to answer each finished test before that worker
runs dry. On 2 cores the controller shares the CPU with both workers and their
children; it fell behind and the workers waited. Counting a worker's pending
tests also walked every unit it had ever been given: O(tests²), about 5 s of
the controller's CPU over 4,800 tests.

Here a worker is kept a share of what is left, as xdist's ``load`` does (topped
up to half its share once it is down to a quarter), in one message per batch;
the pending tests are counted as they are sent and reported. Groups stay whole
units, and the biggest units still go first. A group is a module's
``pytestmark = pytest.mark.xdist_group(name)``: the controller reads it from
the module, since pytest 9.2 dropped the node id suffix xdist used to carry it.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xdist.scheduler import LoadGroupScheduling

if TYPE_CHECKING:
    from xdist.workermanage import WorkerController


# A module's group: ``pytestmark = pytest.mark.xdist_group("name")`` (or in a list).
_MODULE_GROUP = re.compile(r"^pytestmark\s*=.*?xdist_group\(\s*[\"']([^\"']+)[\"']", re.M)


class BatchedGroupScheduling(LoadGroupScheduling):  # type: ignore[misc]  # xdist has no types
    """``loadgroup`` that sends each worker a batch of units at a time."""

    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)
        self._pending: dict[WorkerController, int] = {}
        self._index: dict[str, int] = {}
        self._root = Path(config.rootpath)

    def _split_scope(self, nodeid: str) -> str:
        # Under pytest 9.2 a worker's ``@group`` suffix on the node id no longer
        # takes (pytest-dev/pytest-xdist#1386): the group is read from the module.
        group = self._module_group(nodeid.partition("::")[0])
        return f"group:{group}" if group else nodeid

    @functools.cache  # noqa: B019  # one scheduler per run
    def _module_group(self, path: str) -> str | None:
        try:
            found = _MODULE_GROUP.search((self._root / path).read_text("utf-8"))
        except OSError:
            return None
        return found.group(1) if found else None

    @property
    def tests_finished(self) -> bool:
        if not self.collection_is_completed or self.workqueue:
            return False
        return all(count < 2 for count in self._pending.values())

    @property
    def has_pending(self) -> bool:
        return bool(self.workqueue) or any(self._pending.values())

    def add_node(self, node: WorkerController) -> None:
        super().add_node(node)
        self._pending[node] = 0

    def remove_node(self, node: WorkerController) -> str | None:
        self._pending.pop(node, None)
        return super().remove_node(node)  # type: ignore[no-any-return]

    def mark_test_complete(
        self, node: WorkerController, item_index: int, duration: float = 0
    ) -> None:
        self._pending[node] -= 1
        super().mark_test_complete(node, item_index, duration)

    def _limits(self) -> tuple[int, int]:
        share = len(self.workqueue) // max(1, len(self.nodes))
        return max(2, share // 4), max(2, share // 2)

    def _reschedule(self, node: WorkerController) -> None:
        if node.shutting_down:
            return
        if not self.workqueue:
            node.shutdown()
            return
        low, _ = self._limits()
        if self._pending[node] < low:
            self._assign_work_unit(node)

    def _assign_work_unit(self, node: WorkerController) -> None:
        """Send ``node`` units from the queue until it holds half its share."""
        if not self._index:
            self._index = {nodeid: i for i, nodeid in enumerate(self.collection)}
        _, high = self._limits()
        assigned = self.assigned_work.setdefault(node, {})
        batch: list[int] = []
        while self.workqueue and (not batch or self._pending[node] + len(batch) < high):
            scope, unit = self.workqueue.popitem(last=False)
            assigned[scope] = unit
            batch += [self._index[nodeid] for nodeid, done in unit.items() if not done]
        self._pending[node] += len(batch)
        node.send_runtest_some(batch)
