"""``kzc assign``: Kafka's assignment offline (Kafka's own test expectations), manual assignments checked
with Kafka's messages, invalid input as one JSON error with exit code 2, and the expansion preview of a
live topic, which writes nothing and equals what ``kzc topic expand`` then applies."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from kazoo.client import KazooClient

from core.kafka.assignment import BrokerMeta, assign_replicas_to_brokers
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run

# ---- offline ---------------------------------------------------------------------------------------------


def test_the_well_known_rack_unaware_example(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "assign", "--brokers", "0,1,2,3,4", "--partitions", "10", "--replication-factor", "3",
        "--start-index", "0", "--json",
    )  # fmt: skip
    assert code == 0
    assert out["assignment"] == {
        "0": [0, 1, 2], "1": [1, 2, 3], "2": [2, 3, 4], "3": [3, 4, 0], "4": [4, 0, 1],
        "5": [0, 2, 3], "6": [1, 3, 4], "7": [2, 4, 0], "8": [3, 0, 1], "9": [4, 1, 2],
    }  # fmt: skip
    assert out["metrics"]["replicas_per_broker"] == {str(b): 6 for b in range(5)}
    assert out["metrics"]["leaders_per_broker"] == {str(b): 2 for b in range(5)}


def test_the_rack_aware_example_from_admin_rack_aware_test(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "assign", "--brokers", "0,1,2,3,4,5", "--racks", "0:rack1,1:rack3,2:rack3,3:rack2,4:rack2,5:rack1",
        "--partitions", "7", "--replication-factor", "3", "--start-index", "0", "--start-partition", "0", "--json",
    )  # fmt: skip
    assert code == 0
    assert out["assignment"] == {
        "0": [0, 3, 1], "1": [3, 1, 5], "2": [1, 5, 4], "3": [5, 4, 2], "4": [4, 2, 0], "5": [2, 0, 3], "6": [0, 4, 2],
    }  # fmt: skip
    assert out["metrics"]["rack_violations"] == [] and set(out["metrics"]["racks_per_partition"].values()) == {3}


def test_start_partition_continues_the_shift_as_kafka_does(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "assign", "--brokers", "1,2,3,4,5,6", "--partitions", "7", "--replication-factor", "2",
        "--start-index", "2", "--start-partition", "12", "--json",
    )  # fmt: skip
    expected = assign_replicas_to_brokers([BrokerMeta(b) for b in range(1, 7)], 7, 2, 2, 12)
    assert code == 0 and out["assignment"] == {str(p): r for p, r in expected.items()}
    assert list(out["assignment"]) == [str(p) for p in range(12, 19)]


def test_a_random_start_keeps_kafkas_distribution_properties(capsys: pytest.CaptureFixture[str]) -> None:
    for _ in range(5):
        code, out, _ = run(
            capsys, "assign", "--brokers", "1,2,3,4,5,6", "--racks", "1:a,2:b,3:c,4:a,5:b,6:c",
            "--partitions", "12", "--replication-factor", "3", "--json",
        )  # fmt: skip
        assert code == 0
        replicas = list(out["assignment"].values())
        racks = {1: "a", 2: "b", 3: "c", 4: "a", 5: "b", 6: "c"}
        assert all(len(set(r)) == 3 and len({racks[b] for b in r}) == 3 for r in replicas)
        assert set(Counter(r[0] for r in replicas).values()) == {2}
        assert set(Counter(b for r in replicas for b in r).values()) == {6}


def test_the_human_output_is_a_table_with_racks_and_metrics(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "assign", "--brokers", "1,2", "--racks", "1:r1,2:r2", "--partitions", "2", "--replication-factor",
        "2", "--start-index", "0",
    )  # fmt: skip
    assert code == 0
    assert out.splitlines()[:4] == [
        "Assignment (start index 0)",
        "partition  replicas              racks",
        "        0  [1,2]                 r1,r2",
        "        1  [2,1]                 r2,r1",
    ]
    assert "replicas per broker: 1:2  2:2" in out


def test_a_manual_assignment_is_parsed_and_checked(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "assign", "--replica-assignment", "1:2, 2:3 ,3:1,", "--json")
    assert code == 0
    assert out["assignment"] == {"0": [1, 2], "1": [2, 3], "2": [3, 1]}
    assert out["metrics"]["leaders_per_broker"] == {"1": 1, "2": 1, "3": 1}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--brokers", "1,2,3", "--partitions", "3", "--replication-factor", "4"],
         "Replication factor: 4 larger than available brokers: 3."),
        (["--brokers", "1,2,3", "--partitions", "0", "--replication-factor", "1"],
         "Number of partitions must be larger than 0."),
        (["--brokers", "1,2,3", "--partitions", "3", "--replication-factor", "0"],
         "Replication factor must be larger than 0."),
        (["--brokers", "1,2,3", "--racks", "1:a,2:b", "--partitions", "3", "--replication-factor", "2"],
         "Not all brokers have rack information for replica rack aware assignment."),
        (["--brokers", "1,x", "--partitions", "3", "--replication-factor", "1"],
         "--brokers must be an integer, got 'x'"),
        (["--brokers", "1,2", "--partitions", "three", "--replication-factor", "1"],
         "--partitions must be an integer, got 'three'"),
        (["--replica-assignment", "1:2,3"], "Partition 1 has different replication factor: [3]"),
        (["--replica-assignment", "1:2:1"], "Partition replica lists may not contain duplicate entries: 1"),
        (["--replica-assignment", "1:a"], 'For input string: "a"'),
        (["--replica-assignment", "1,,2"], 'For input string: ""'),
        (["--replica-assignment", "1", "--partitions", "3"],
         "--partitions cannot be combined with --replica-assignment"),
        (["--partitions", "3"], "give --brokers, --partitions and --replication-factor"),
        (["--topic", "t", "--partitions", "3"], "--topic previews an expansion on a live cluster: give --zookeeper"),
    ],
)  # fmt: skip
def test_invalid_input_exits_2_with_kafkas_message_as_json(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "assign", *argv, "--json")
    assert code == 2
    assert set(out) == {"error"} and out["error"].startswith(message)
    assert "Traceback" not in err


# ---- the expansion of a live topic -------------------------------------------------------------------------


@pytest.mark.integration
def test_the_expansion_preview_writes_nothing_and_is_what_expand_applies(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], unique_name: str
) -> None:
    info = sandbox.info()
    where = ["--zookeeper", info.zookeeper]
    code, _, _ = run(capsys, "topic", "create", unique_name, "--replica-assignment", "2:3,3:1,1:2", "--yes", *where)
    assert code == 0
    path = f"/brokers/topics/{unique_name}"
    # Created through ZooKeeper: the controller then adds the topic id; compare from that point on.
    wait_until(lambda: b'"topic_id"' in zk.get(path)[0], 90, "the controller to add a topic id")
    data, stat = zk.get(path)
    before = data, stat.version
    # Read-only does not matter: a preview is not a mutation.
    code, preview, _ = run(
        capsys, "assign", "--topic", unique_name, "--partitions", "8", "--read-only", "--json", *where
    )
    assert code == 0, preview
    assert preview["current_partitions"] == 3 and list(preview["assignment"]) == ["3", "4", "5", "6", "7"]
    data, stat = zk.get(path)
    assert (data, stat.version) == before
    code, applied, _ = run(
        capsys, "topic", "expand", unique_name, "--partitions", "8", "--yes", "--json", *where,
        "--bootstrap-server", info.bootstrap_servers,
    )  # fmt: skip
    assert code == 0 and applied["assignment"] == preview["assignment"]
    stored = json.loads(zk.get(f"/brokers/topics/{unique_name}")[0])["partitions"]
    assert {p: stored[p] for p in preview["assignment"]} == preview["assignment"]


@pytest.mark.integration
def test_the_expansion_preview_checks_a_manual_list_and_refuses_an_internal_topic(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], unique_name: str
) -> None:
    where = ["--zookeeper", sandbox.info().zookeeper]
    assert run(capsys, "topic", "create", unique_name, "--replica-assignment", "1:2", "--yes", *where)[0] == 0
    code, out, _ = run(
        capsys, "assign", "--topic", unique_name, "--partitions", "3", "--replica-assignment", "1:2,2:3,3:9", "--json",
        *where,
    )  # fmt: skip
    assert code == 2 and out == {"error": "Unknown broker(s) in replica assignment: 9."}
    code, out, _ = run(
        capsys, "assign", "--topic", unique_name, "--partitions", "3", "--replica-assignment", "1:2,2:3,3:1", "--json",
        *where,
    )  # fmt: skip
    assert code == 0 and out["assignment"] == {"1": [2, 3], "2": [3, 1]}
    code, out, _ = run(capsys, "assign", "--topic", "__consumer_offsets", "--partitions", "9", "--json", *where)
    assert code == 2
    assert out == {"error": "The number of partitions for the internal topic __consumer_offsets cannot be changed."}
