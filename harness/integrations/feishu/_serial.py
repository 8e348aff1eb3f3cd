"""Work for one chat in order, different chats in parallel, on one shared thread pool."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future

__all__ = ["KeyedSerialRunner"]

_Job = tuple[Callable[[], None], "Future[None]"]


class KeyedSerialRunner:
    """Runs jobs with the same key one after another, in submission order.

    A chat's messages must not race (a run and the ``/approve`` that follows
    it share one session), but a worker must not sit blocked on a lock either:
    so each key has a queue, and at most one pool task drains it.

    Args:
        executor: the pool the queues are drained on.
    """

    def __init__(self, executor: Executor) -> None:
        self._executor = executor
        self._queues: dict[str, deque[_Job]] = {}
        self._guard = threading.Lock()

    def submit(self, key: str, job: Callable[[], None]) -> Future[None]:
        """Queue ``job`` behind the key's earlier jobs; the future ends when it has run."""
        done: Future[None] = Future()
        with self._guard:
            queue = self._queues.setdefault(key, deque())
            queue.append((job, done))
            first = len(queue) == 1
        if first:
            try:
                self._executor.submit(self._drain, key)
            except RuntimeError:  # the pool is shut down: nothing will run
                with self._guard:
                    self._queues.pop(key, None)
                raise
        return done

    def _drain(self, key: str) -> None:
        while True:
            with self._guard:
                job, done = self._queues[key][0]
            if done.set_running_or_notify_cancel():
                try:
                    job()
                except BaseException as exc:
                    done.set_exception(exc)
                else:
                    done.set_result(None)
            with self._guard:
                queue = self._queues[key]
                queue.popleft()
                if not queue:
                    del self._queues[key]
                    return
