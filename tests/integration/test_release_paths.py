"""Every write path on real brokers of old releases, each class on the 3-broker sandbox of its release that it
shares with ``test_versions.py`` (``release_key``; no automatic preferred-leader rebalance: the leaders these tests
check are the ones kzc's actions leave):

- 0.10.2.2: no CreatePartitions, IncrementalAlterConfigs, DescribeLogDirs or AlterPartitionReassignments. An
  expand and a config change with ``--bootstrap-server`` go through ZooKeeper as that release's tools did;
  log sizes are unknown with the reason; cancel is refused with what Kafka offered instead; ``kzc tail`` reads
  message format v1 and says headers are unsupported; the only dynamic broker configs are the throttle rates.
- 1.1.1: DescribeLogDirs v0 only (sizes known), no IncrementalAlterConfigs, ElectLeaders or
  AlterPartitionReassignments: configs through ZooKeeper, a throttled reassignment and a preferred election
  through ``/admin``, cancel and unclean elections refused; dynamic broker configs (per broker and the cluster
  default) through AlterConfigs with the whole set as that release's ``kafka-configs --bootstrap-server`` sent
  them, refused through ZooKeeper with ConfigCommand's message; quotas through ZooKeeper (no
  AlterClientQuotas), keys checked against the release; ``kzc tail`` shows headers.

Each class ends by reading every broker's log: no broker logged a request of kzc's it could not parse.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from kazoo.client import KazooClient

from core.audit import read_audit_log
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run
from tests.integration.cluster_reads import admin_args, config, partitions, state, zk_args
from tests.integration.clusters import Clusters, release_key
from tests.integration.zk_server import zk_client

pytestmark = pytest.mark.integration

UNPARSED = ("Invalid version for API key", "InvalidRequestException")


def leader(zk: KazooClient, topic: str, partition: int) -> int:
    return int(state(zk, topic, partition)["leader"])


def create_topic(capsys: pytest.CaptureFixture[str], box: Sandbox, topic: str, count: int, rf: int) -> None:
    code, _, err = run(
        capsys, "topic", "create", topic, "--partitions", str(count), "--replication-factor", str(rf),
        *zk_args(box), "--yes", "--wait", "--json",
    )  # fmt: skip
    assert code == 0, err


def produce(box: Sandbox, topic: str, count: int, partition: int = 0) -> None:
    producer = Producer({"bootstrap.servers": box.info().bootstrap_servers, "linger.ms": 5})
    for _ in range(count):
        producer.produce(topic, value=b"x" * 1000, partition=partition)
    assert producer.flush(30) == 0


def last(audit_file: Path, operation: str, outcome: str) -> dict[str, Any]:
    """The last audit line of ``operation`` with ``outcome``."""
    lines = read_audit_log(audit_file, intents=True)
    found = [line for line in lines if (line["operation"], line["outcome"]) == (operation, outcome)]
    assert found, f"no {operation} {outcome} line"
    return found[-1]


def config_set_goes_through_zookeeper(
    capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient, audit_file: Path, topic: str
) -> None:
    """``config set`` with --bootstrap-server on brokers without IncrementalAlterConfigs: the ZooKeeper write
    (config + change notification), and the path and why in the dry run, the plan and the audit line."""
    create_topic(capsys, box, topic, 1, 2)
    code, out, err = run(capsys, "config", "set", topic, "retention.ms=3600000", "--dry-run", *admin_args(box))
    assert code == 0, err
    assert "no IncrementalAlterConfigs (Kafka 2.3.0+" in out
    assert "as kafka-configs --zookeeper did before 2.3" in out
    assert f"set /config/topics/{topic}" in out or f"create /config/topics/{topic}" in out
    notifications = set(zk.get_children("/config/changes"))
    code, out, err = run(capsys, "config", "set", topic, "retention.ms=3600000", "--yes", *admin_args(box), "--json")
    assert code == 0, err
    assert out["via"] == "zookeeper" and "IncrementalAlterConfigs" in out["path"]
    assert config(zk, f"/config/topics/{topic}") == {"retention.ms": "3600000"}
    new = set(zk.get_children("/config/changes")) - notifications
    assert [json.loads(zk.get(f"/config/changes/{n}")[0]) for n in new] == [
        {"version": 2, "entity_path": f"topics/{topic}"}
    ]
    line = last(audit_file, "config set", "applied")
    assert line["details"]["via"] == "zookeeper" and "IncrementalAlterConfigs" in line["details"]["path"]


def no_unparsed_requests(box: Sandbox) -> None:
    for broker in box.info().brokers:
        text = (box.dir / f"broker-{broker.id}" / "server.log").read_text(errors="replace")
        lines = [line for line in text.splitlines() if any(marker in line for marker in UNPARSED)]
        assert lines == [], f"broker {broker.id} could not parse a request: {lines[:3]}"


# ---- Kafka 0.10.2.2 -----------------------------------------------------------------------------------------


@pytest.mark.cluster(release_key("0.10.2.2"))
class TestKafka0102:
    @pytest.fixture(scope="class")
    @classmethod
    def box(cls, clusters: Clusters) -> Sandbox:
        return clusters.get(release_key("0.10.2.2"))

    @pytest.fixture(scope="class")
    @classmethod
    def zk(cls, box: Sandbox) -> Iterator[KazooClient]:
        with zk_client(box.info().zookeeper) as client:
            yield client

    def test_expand_with_bootstrap_server_writes_the_topic_znode_as_kafka_topics_zookeeper_did(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient, audit_file: Path
    ) -> None:
        create_topic(capsys, box, "grow", 2, 2)
        before = partitions(zk, "grow")
        code, out, err = run(capsys, "topic", "expand", "grow", "--partitions", "4", "--dry-run", *admin_args(box))
        assert code == 0, err
        assert "broker 1 has no CreatePartitions (Kafka 1.0.0+" in out
        assert "Path: broker 1 has no CreatePartitions" in out and "set /brokers/topics/grow" in out
        code, out, err = run(
            capsys, "topic", "expand", "grow", "--partitions", "4", "--yes", "--wait", *admin_args(box), "--json"
        )
        assert code == 0, err
        assert out["via"] == "zookeeper"
        after = partitions(zk, "grow")
        assert len(after) == 4 and {p: after[p] for p in before} == before
        assert all(leader(zk, "grow", p) in after[p] for p in (2, 3))
        intent = last(audit_file, "topic expand", "intent")
        assert intent["details"]["via"] == "zookeeper"
        assert "no CreatePartitions" in intent["details"]["path"]
        assert "kafka-topics --alter --zookeeper" in intent["details"]["path"]

    def test_config_set_with_bootstrap_server_goes_through_zookeeper(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient, audit_file: Path
    ) -> None:
        config_set_goes_through_zookeeper(capsys, box, zk, audit_file, "conf0102")

    def test_tail_reads_message_format_v1_and_says_headers_are_unsupported(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox
    ) -> None:
        create_topic(capsys, box, "tail0102", 1, 1)
        producer = Producer({"bootstrap.servers": box.info().bootstrap_servers, "compression.type": "gzip"})
        producer.produce("tail0102", key=b"k", value=b'{"a": 1}', partition=0)
        assert producer.flush(30) == 0
        code, out, err = run(capsys, "tail", "tail0102", "--json", *zk_args(box))
        assert code == 0, err
        assert (out["key"], out["payload"], out["payload_kind"]) == ("k", '{"a": 1}', "json")
        assert "headers" not in out and out["tstype"] == "create"
        assert "headers unsupported: broker 1 serves Fetch v0-v3" in err

    def test_dynamic_broker_configs_before_1_1_are_the_throttle_rates_only(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient
    ) -> None:
        code, out, _ = run(
            capsys, "config", "set", "--broker", "1", "log.cleaner.threads=2", "--yes", "--json", *admin_args(box)
        )
        assert code == 2
        assert out["error"].startswith("requirement failed: Unknown Dynamic Configuration 'log.cleaner.threads'.")
        code, out, err = run(capsys, "config", "set", "--broker", "1", "leader.replication.throttled.rate=10000000",
                             "--yes", "--json", *admin_args(box))  # fmt: skip
        assert code == 0, err
        assert out["via"] == "zookeeper"
        assert config(zk, "/config/brokers/1") == {"leader.replication.throttled.rate": "10000000"}
        code, _, err = run(
            capsys, "config", "delete", "--broker", "1", "leader.replication.throttled.rate", "--yes", *zk_args(box)
        )
        assert code == 0, err

    def test_create_and_delete_go_through_the_brokers_which_serve_them_since_0_10_1(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient
    ) -> None:
        code, out, err = run(capsys, "topic", "create", "brokers0102", "--partitions", "2", "--replication-factor",
                             "2", "--yes", "--wait", *admin_args(box), "--json")  # fmt: skip
        assert code == 0, err
        assert out["via"] == "admin" and len(partitions(zk, "brokers0102")) == 2
        code, out, err = run(capsys, "topic", "delete", "brokers0102", "--dry-run", *admin_args(box))
        assert code == 0, err
        # No DescribeConfigs before 0.11: delete.topic.enable is unknown, and nothing was asked.
        assert "broker 1 has no DescribeConfigs (Kafka 0.11.0+" in out
        code, out, err = run(capsys, "topic", "delete", "brokers0102", "--yes", "--wait", *admin_args(box), "--json")
        assert code == 0, err
        assert not zk.exists("/brokers/topics/brokers0102")

    def test_log_sizes_are_unknown_with_the_reason(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient
    ) -> None:
        create_topic(capsys, box, "sizes0102", 1, 1)
        (replica,) = partitions(zk, "sizes0102")[0]
        code, out, err = run(
            capsys, "reassign", "plan", "--move-off", str(replica), "--topic", "sizes0102", *admin_args(box), "--json"
        )
        assert code == 0, err
        metrics = out["kzc"]["metrics"]
        assert metrics["bytes_to_move"] is None
        assert f"broker {replica} has no DescribeLogDirs (Kafka 1.0.0+" in metrics["bytes_to_move_unknown"]

    def test_cancel_is_refused_with_what_kafka_offered_instead(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox
    ) -> None:
        code, out, _ = run(capsys, "reassign", "cancel", "--yes", *admin_args(box), "--json")
        assert code == 2
        assert out["error"].startswith("Kafka before 2.4 cannot cancel a reassignment: broker 1 has no ")
        assert "let it finish" in out["error"]

    def test_the_broker_view_and_sizes_say_0_10_has_no_describe_log_dirs(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox
    ) -> None:
        code, view, err = run(capsys, *zk_args(box), "broker", "1", "--json")
        assert code == 0, err
        assert view["log_dirs"] is None and view["log_size_bytes"] is None
        assert view["log_note"].startswith("broker 1 has no DescribeLogDirs (Kafka 1.0.0+")
        code, described, err = run(capsys, *zk_args(box), "describe", "--sizes", "--json")
        assert code == 0, err
        for broker in ("1", "2", "3"):
            read = described["sizes"]["brokers"][broker]
            assert read["bytes"] is None and f"broker {broker} has no DescribeLogDirs (Kafka 1.0.0+" in read["unknown"]

    def test_no_broker_logged_a_request_it_could_not_parse(self, box: Sandbox) -> None:
        no_unparsed_requests(box)


# ---- Kafka 1.1.1 --------------------------------------------------------------------------------------------


@pytest.mark.cluster(release_key("1.1.1"))
class TestKafka111:
    @pytest.fixture(scope="class")
    @classmethod
    def box(cls, clusters: Clusters) -> Sandbox:
        return clusters.get(release_key("1.1.1"))

    @pytest.fixture(scope="class")
    @classmethod
    def zk(cls, box: Sandbox) -> Iterator[KazooClient]:
        with zk_client(box.info().zookeeper) as client:
            yield client

    def test_dynamic_broker_configs_without_incremental_alter_configs_go_through_alter_configs(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient
    ) -> None:
        for target, path in (
            (["--broker", "2"], "/config/brokers/2"),
            (["--broker-default"], "/config/brokers/<default>"),
        ):
            code, out, err = run(
                capsys, "config", "set", *target, "log.cleaner.threads=2", "--yes", "--json", *admin_args(box)
            )
            assert code == 0, err
            assert out["via"] == "admin" and out["request"] == "AlterConfigs", out
            assert "no IncrementalAlterConfigs" in out["path"]  # why the whole set
            assert config(zk, path) == {"log.cleaner.threads": "2"}
            code, out, err = run(
                capsys, "config", "delete", *target, "log.cleaner.threads", "--yes", "--json", *admin_args(box)
            )
            assert code == 0, err
            assert config(zk, path) == {}
        code, out, _ = run(
            capsys, "config", "set", "--broker", "2", "log.cleaner.threads=2", "--yes", "--json", *zk_args(box)
        )
        assert code == 2
        assert out["error"].startswith(
            "requirement failed: --bootstrap-server option must be specified to update broker configs "
            "Set(log.cleaner.threads). when broker 2 is running."
        )
        code, out, err = run(capsys, "config", "set", "--broker", "2",
                             "replica.alter.log.dirs.io.max.bytes.per.second=100000000", "--yes", "--json",
                             *zk_args(box))  # fmt: skip
        assert code == 0, err
        assert config(zk, "/config/brokers/2") == {"replica.alter.log.dirs.io.max.bytes.per.second": "100000000"}
        code, _, err = run(capsys, "config", "delete", "--broker", "2",
                           "replica.alter.log.dirs.io.max.bytes.per.second", "--yes", *zk_args(box))  # fmt: skip
        assert code == 0, err

    def test_quotas_go_through_zookeeper_and_are_checked_against_the_release(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient
    ) -> None:
        code, out, err = run(capsys, "quota", "set", "--client-id", "old-app", "producer_byte_rate=10000000000",
                             "--yes", "--json", *admin_args(box))  # fmt: skip
        assert code == 0, err
        assert out["via"] == "zookeeper" and "has no AlterClientQuotas (Kafka 2.6.0+" in out["path_reason"]
        assert config(zk, "/config/clients/old-app") == {"producer_byte_rate": "10000000000"}
        code, out, err = run(capsys, "quota", "show", "--json", *admin_args(box))
        assert code == 0, err
        assert out["source"].startswith("ZooKeeper")
        code, _, err = run(
            capsys, "quota", "set", "--client-id", "old-app", "controller_mutation_rate=1", "--yes", *admin_args(box)
        )
        assert code != 0 and "controller_mutation_rate needs Kafka 2.7+; the oldest broker runs 1.1" in err
        code, _, err = run(
            capsys, "quota", "delete", "--client-id", "old-app", "producer_byte_rate", "--yes", *zk_args(box)
        )
        assert code == 0, err

    def test_tail_shows_headers_on_1_1(self, capsys: pytest.CaptureFixture[str], box: Sandbox) -> None:
        create_topic(capsys, box, "tail111", 1, 1)
        producer = Producer({"bootstrap.servers": box.info().bootstrap_servers})
        producer.produce("tail111", value=b"v", headers=[("h", b"1")], partition=0)
        assert producer.flush(30) == 0
        code, out, err = run(capsys, "tail", "tail111", "--json", *zk_args(box))
        assert code == 0, err
        assert out["headers"] == ["h", "1"] and "headers unsupported" not in err

    def test_config_set_with_bootstrap_server_goes_through_zookeeper(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient, audit_file: Path
    ) -> None:
        config_set_goes_through_zookeeper(capsys, box, zk, audit_file, "conf111")

    def test_a_throttled_reassignment_is_sized_applied_and_followed_through_admin(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient, tmp_path: Path
    ) -> None:
        create_topic(capsys, box, "move111", 1, 2)
        replicas = partitions(zk, "move111")[0]
        produce(box, "move111", 200)
        code, out, err = run(capsys, "reassign", "plan", "--move-off", str(replicas[1]), "--topic", "move111",
                             *admin_args(box), "--json", "-o", str(tmp_path / "plan.json"))  # fmt: skip
        assert code == 0, err
        # DescribeLogDirs v0 (a 1.1 broker has no v1): one new replica of 200 messages of 1,000 bytes.
        assert 200_000 <= out["kzc"]["metrics"]["bytes_to_move"] < 400_000
        (entry,) = out["partitions"]
        code, dry, err = run(capsys, "reassign", "apply", str(tmp_path / "plan.json"), "--throttle", "50000000",
                             "--dry-run", *admin_args(box))  # fmt: skip
        assert code == 0, err
        assert "no IncrementalAlterConfigs" in dry and "create /admin/reassign_partitions" in dry
        assert "follower.replication.throttled.replicas" in dry and "IncrementalAlterConfigs\n" not in dry
        code, out, err = run(capsys, "reassign", "apply", str(tmp_path / "plan.json"), "--throttle", "50000000",
                             "--yes", "--wait", "--timeout", "120", *admin_args(box), "--json")  # fmt: skip
        assert code == 0, err
        assert out["progress"]["done"] is True
        assert partitions(zk, "move111")[0] == entry["replicas"]
        assert not zk.exists("/admin/reassign_partitions")
        for broker in (1, 2, 3):
            assert not any("throttled" in k for k in config(zk, f"/config/brokers/{broker}"))
        code, out, err = run(capsys, "reassign", "status", *admin_args(box), "--json")
        assert code == 0, err
        assert out["partitions"] == []

    def test_preferred_election_goes_through_the_znode(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient, tmp_path: Path, audit_file: Path
    ) -> None:
        create_topic(capsys, box, "lead111", 1, 2)
        first, second = partitions(zk, "lead111")[0]
        assert leader(zk, "lead111", 0) == first
        # Swap the replicas: the leader stays, the preferred replica is now the other one.
        swap = tmp_path / "swap.json"
        swap.write_text(json.dumps({"version": 1, "partitions": [
            {"topic": "lead111", "partition": 0, "replicas": [second, first]}]}))  # fmt: skip
        code, _, err = run(capsys, "reassign", "apply", str(swap), "--yes", "--wait", *admin_args(box), "--json")
        assert code == 0, err
        assert leader(zk, "lead111", 0) == first
        # The controller elects the preferred replica only once it is in the ISR (kzc skips it before).
        wait_until(lambda: sorted(state(zk, "lead111", 0)["isr"]) == sorted([first, second]), 120, "the full ISR")
        code, out, err = run(
            capsys, "elect", "preferred", "--topic", "lead111", "--yes", "--wait", *admin_args(box), "--json"
        )
        assert code == 0, err
        assert [(c["topic"], c["partition"]) for c in out["sent"]] == [("lead111", 0)], out
        wait_until(lambda: leader(zk, "lead111", 0) == second, 60, "the preferred leader")
        assert not zk.exists("/admin/preferred_replica_election")
        line = last(audit_file, "elect preferred", "applied")
        assert line["details"]["via"] == "zookeeper"
        assert "has no ElectLeaders (Kafka 2.2.0+" in line["details"]["path"]

    def test_log_dirs_and_sizes_come_from_describe_log_dirs_v0_with_a_null_topic_list(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient
    ) -> None:
        create_topic(capsys, box, "sizes111", 2, 2)
        produce(box, "sizes111", 50)

        def listed() -> Any:
            code, view, err = run(capsys, *zk_args(box), "broker", "1", "--json")
            assert code == 0, err
            return view if view["log_dirs"] and not view["missing_replicas"] else None

        view = wait_until(listed, 60, "broker 1 to list its replicas in its log dir")
        (only,) = view["log_dirs"]
        assert only["path"] == str(Path(box.info().dir) / "broker-1" / "data") and only["error"] is None
        assert view["log_size_bytes"] == only["size_bytes"] == sum(view["log_sizes"].values())
        code, described, err = run(capsys, *zk_args(box), "describe", "--sizes", "--json")
        assert code == 0, err
        topic = described["sizes"]["topics"]["sizes111"]
        assert topic["unknown"] is None and topic["on_disk_bytes"] >= topic["size_bytes"] > 0

    def test_cancel_and_unclean_elections_are_refused_with_what_kafka_offered_instead(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient
    ) -> None:
        code, out, _ = run(capsys, "reassign", "cancel", "--yes", *admin_args(box), "--json")
        assert code == 2
        assert "Kafka before 2.4 cannot cancel a reassignment" in out["error"]
        assert "has no AlterPartitionReassignments (Kafka 2.4.0+" in out["error"]
        create_topic(capsys, box, "unclean111", 1, 1)
        code, out, _ = run(
            capsys, "elect", "unclean", "--topic", "unclean111", "--partition", "0", *admin_args(box), "--json"
        )
        assert code == 2
        assert out["error"].startswith("Kafka before 2.4 has no unclean election request: broker 1 has no ElectLeaders")
        assert "unclean.leader.election.enable=true" in out["error"]
        assert "kzc config set unclean111 unclean.leader.election.enable=true --dry-run" in out["error"]

    def test_no_broker_logged_a_request_it_could_not_parse(self, box: Sandbox) -> None:
        no_unparsed_requests(box)


# ---- a rolling upgrade half done: brokers 1-2 on 1.1.1, broker 3 still on 0.10.2.2 ----------------------------


MIXED = replace(release_key("1.1.1"), broker_versions=((3, "0.10.2.2"),))


@pytest.mark.cluster(MIXED)
class TestMixedCluster:
    @pytest.fixture(scope="class")
    @classmethod
    def box(cls, clusters: Clusters) -> Sandbox:
        return clusters.get(MIXED)

    @pytest.fixture(scope="class")
    @classmethod
    def zk(cls, box: Sandbox) -> Iterator[KazooClient]:
        with zk_client(box.info().zookeeper) as client:
            yield client

    def test_the_oldest_broker_decides_the_path_and_log_sizes_say_which_broker_lacks_them(
        self, capsys: pytest.CaptureFixture[str], box: Sandbox, zk: KazooClient, audit_file: Path
    ) -> None:
        create_topic(capsys, box, "mixed", 3, 2)
        code, out, err = run(
            capsys, "topic", "expand", "mixed", "--partitions", "4", "--yes", "--wait", *admin_args(box), "--json"
        )
        assert code == 0, err
        assert out["via"] == "zookeeper" and len(partitions(zk, "mixed")) == 4
        intent = last(audit_file, "topic expand", "intent")
        assert intent["details"]["path"].startswith("broker 3 has no CreatePartitions (Kafka 1.0.0+")
        # A partition whose only replica is on the 0.10.2 broker: its size is unknown, and the plan says why.
        code, _, err = run(
            capsys, "topic", "create", "solo3", "--replica-assignment", "3", *zk_args(box), "--yes", "--wait", "--json"
        )
        assert code == 0, err
        code, out, err = run(
            capsys, "reassign", "plan", "--move-off", "3", "--topic", "solo3", *admin_args(box), "--json"
        )
        assert code == 0, err
        metrics = out["kzc"]["metrics"]
        assert metrics["bytes_to_move"] is None
        assert "broker 3 has no DescribeLogDirs (Kafka 1.0.0+" in metrics["bytes_to_move_unknown"]

    def test_no_broker_logged_a_request_it_could_not_parse(self, box: Sandbox) -> None:
        no_unparsed_requests(box)
