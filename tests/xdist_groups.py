"""``pytest -n 2 --dist loadgroup`` with the integration tests' groups (``tests.integration.clusters.module_groups``).

pytest-xdist 3.8 tells its controller a test's ``xdist_group`` by appending it to the test's node id in the worker,
which pytest 9.2's structured node ids ignore (pytest-dev/pytest-xdist#1386): the groups were silently dropped and
every test was dealt out on its own, a module's fixtures and clusters started in both workers. So the workers write
each grouped test's group to a file the controller names in ``$KZC_XDIST_GROUPS`` (both write the same, as they
collect the same tests), and the controller's scheduler reads it once every worker has collected.

The scheduler also survives a worker that dies (a native crash): xdist's ``LoadScopeScheduling.remove_node`` puts
back every unit the dead worker was ever given, the finished ones and the crashed test included, and
``_reschedule`` hands a worker one unit at a time; so the replacement could be sent an empty unit or a single
test (which a worker holds until it is sent the next one) and the run hung with both workers idle.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadGroupScheduling
from xdist.workermanage import WorkerController

ENV = "KZC_XDIST_GROUPS"


def write_groups(groups: Mapping[str, str]) -> None:
    """In a worker: the group of each grouped test by node id, for the controller (nothing outside xdist)."""
    path = os.environ.get(ENV)
    if not path or not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    scratch = Path(f"{path}.{os.environ['PYTEST_XDIST_WORKER']}")
    scratch.write_text(json.dumps(dict(groups)), encoding="utf-8")
    scratch.replace(path)  # whole, never half-written: the other worker writes the same


class GroupScheduling(LoadGroupScheduling):
    """xdist's ``loadgroup`` scheduling (a group goes whole to one worker, the groups with the most tests first)
    with a grouped test's group read from the file; a test not in it is left to xdist (its ``@group`` suffix, where
    a later pytest-xdist writes one again, else a scope of its own)."""

    def __init__(self, config: pytest.Config, path: Path, log: Producer | None = None) -> None:
        super().__init__(config, log)
        self._path = path
        self._groups: dict[str, str] | None = None

    def _split_scope(self, nodeid: str) -> str:
        if self._groups is None:  # first asked once every worker has collected (and written the file)
            self._groups = json.loads(self._path.read_text(encoding="utf-8")) if self._path.exists() else {}
        return self._groups.get(nodeid) or super()._split_scope(nodeid)

    def remove_node(self, node: WorkerController) -> str | None:
        """A worker is gone: at shutdown nothing is left; after a crash, the test it was running is returned (xdist
        reports it failed, and it is not run again: it could take the next worker down too) and its unfinished
        tests go back to the front of the queue, each unit whole, for a live or the replacement worker."""
        workload = self.assigned_work.pop(node)
        left = {scope: [t for t, done in unit.items() if not done] for scope, unit in workload.items()}
        left = {scope: tests for scope, tests in left.items() if tests}
        if not left:
            return None
        crashed = next(iter(left.values())).pop(0)  # a worker runs its tests in the order it was sent them
        for scope, tests in reversed(left.items()):
            if tests:
                self.workqueue[scope] = dict.fromkeys(tests, False)
                self.workqueue.move_to_end(scope, last=False)
        for live in self.nodes:
            self._reschedule(live)
        return crashed

    def _reschedule(self, node: WorkerController) -> None:
        """xdist's low-watermark (a worker with 2 tests or fewer left is given more), but given units until it has
        more than 2 or the queue is empty: a worker holds its last test until it is sent another or shut down. A
        replacement still collecting is given work once it has collected (``schedule``)."""
        if node.shutting_down or node not in self.registered_collections:
            return
        if not self.workqueue:
            node.shutdown()
            return
        while self.workqueue and self._pending_of(self.assigned_work[node]) <= 2:
            self._assign_work_unit(node)
