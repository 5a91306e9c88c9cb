"""The ``--dist loadgroup`` scheduler: a test's group is what the workers wrote (``tests/xdist_groups.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.xdist_groups import ENV, GroupScheduling, write_groups


def test_the_tests_of_a_group_are_one_scope_and_every_other_test_its_own(
    pytestconfig: pytest.Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "groups.json"
    monkeypatch.setenv(ENV, str(path))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    write_groups(
        {"tests/integration/test_a.py::test_1": "test_a.py", "tests/integration/test_b.py::test_2[x]": "test_a.py"}
    )
    monkeypatch.setattr(pytestconfig.option, "tx", ["2*popen"])  # what -n 2 sets
    scheduler = GroupScheduling(pytestconfig, path)
    assert scheduler._split_scope("tests/integration/test_a.py::test_1") == "test_a.py"
    assert scheduler._split_scope("tests/integration/test_b.py::test_2[x]") == "test_a.py"
    assert scheduler._split_scope("tests/unit/test_c.py::test_3") == "tests/unit/test_c.py::test_3"
    assert scheduler._split_scope("tests/unit/test_c.py::test_4@other") == "other"  # xdist's own suffix, if any


def test_outside_xdist_nothing_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "groups.json"
    monkeypatch.setenv(ENV, str(path))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    write_groups({"tests/integration/test_a.py::test_1": "test_a.py"})
    assert not path.exists()


class _Worker:
    """A fake xdist worker: runs its tests in the order it is sent them, and (as a real one) holds its last until
    it is sent another or shut down."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.queue: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.queue.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True

    def can_run(self) -> bool:
        return len(self.queue) >= 2 or (bool(self.queue) and self.shutting_down)


def _run(scheduler: GroupScheduling, workers: list[_Worker], ran: list[str], collection: list[str]) -> None:
    """Run the workers' tests (as xdist's controller hears of them) until none of them can run one."""
    while runnable := [w for w in workers if w.can_run()]:
        worker = runnable[0]
        index = worker.queue.pop(0)
        ran.append(collection[index])
        scheduler.mark_test_complete(worker, index)  # type: ignore[arg-type]
        if scheduler.tests_finished:
            for w in workers:
                w.shutdown()


@pytest.mark.parametrize("passed", [1, 5], ids=["in-its-group", "after-its-group"])
def test_a_crashed_workers_test_fails_once_and_the_rest_of_its_work_goes_to_its_replacement(
    passed: int, pytestconfig: pytest.Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    group = [f"tests/integration/test_a.py::test_{i}" for i in range(4)]
    singles = [f"tests/unit/test_b.py::test_{i}" for i in range(8)]
    collection = group + singles
    path = tmp_path / "groups.json"
    path.write_text(json.dumps(dict.fromkeys(group, "test_a.py")), encoding="utf-8")
    monkeypatch.setattr(pytestconfig.option, "tx", ["2*popen"])
    monkeypatch.setattr(pytestconfig.option, "loadscopereorder", True)
    scheduler = GroupScheduling(pytestconfig, path)
    first, second = _Worker("gw0"), _Worker("gw1")
    for worker in (first, second):
        scheduler.add_node(worker)  # type: ignore[arg-type]
        scheduler.add_node_collection(worker, collection)  # type: ignore[arg-type]
    scheduler.schedule()
    assert [collection[i] for i in first.queue] == group  # the group whole, to one worker

    ran: list[str] = []
    for _ in range(passed):  # gw0 passes these, then dies in its next test
        index = first.queue.pop(0)
        ran.append(collection[index])
        scheduler.mark_test_complete(first, index)  # type: ignore[arg-type]
    dying = collection[first.queue[0]]
    _run(scheduler, [second], ran, collection)  # gw1 runs all it is given and is shut down
    assert second.shutting_down
    assert scheduler.remove_node(first) == dying  # type: ignore[arg-type]

    replacement = _Worker("gw2")
    scheduler.add_node(replacement)  # type: ignore[arg-type]
    scheduler.add_node_collection(replacement, collection)  # type: ignore[arg-type]
    scheduler.schedule()
    _run(scheduler, [second, replacement], ran, collection)
    assert scheduler.tests_finished  # nothing left waiting for a worker
    assert sorted(ran) == sorted(t for t in collection if t != dying)  # every other test, each once
