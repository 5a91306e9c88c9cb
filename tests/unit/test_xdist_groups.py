"""The ``--dist loadgroup`` scheduler: a test's group is what the workers wrote (``tests/xdist_groups.py``)."""

from __future__ import annotations

from pathlib import Path

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
