"""``kzc assign`` with an empty broker list (what a cluster with no registered broker gives) answers as Kafka's
``AdminUtils.assignReplicasToBrokers`` does, not with a parse error."""

from __future__ import annotations

import pytest

from cli.assign_cmd import parse_broker_list
from tests.cli_runner import run


def test_an_empty_broker_list_is_no_brokers() -> None:
    assert parse_broker_list("") == []


@pytest.mark.parametrize("brokers", ["--brokers=", "--brokers= "])
def test_kzc_assign_without_brokers_gives_kafkas_message(capsys: pytest.CaptureFixture[str], brokers: str) -> None:
    code, out, err = run(capsys, "assign", brokers, "--partitions", "3", "--replication-factor", "1", "--json")
    assert code == 2, err
    assert out == {"error": "Replication factor: 1 larger than available brokers: 0."}
    assert "must be an integer" not in err and "Traceback" not in err
