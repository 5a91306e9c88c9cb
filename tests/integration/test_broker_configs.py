"""Configs set by kzc on the sandbox: dynamic broker configs applied by the brokers (DescribeConfigs reports
them as dynamic), the cluster default too, Kafka's own refusal on the ZooKeeper path, read-only refusing every
mutation, and ``--via`` choosing a config change's path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource
from kazoo.client import KazooClient

from core.audit import read_audit_log
from core.kafka.znodes.paths import CONFIG_CHANGES, broker_config_path, topic_config_path
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run
from tests.integration.cluster_reads import admin_args, broker_config_source, config, zk_args

FLUSH = "log.flush.interval.messages"  # dynamic per broker (DynamicLogConfig) since 1.1
NEVER = str(2**63 - 2)  # as good as its default (Long.MAX_VALUE): flushing stays the OS's business
HARMLESS_RATE = str(10**12)  # bytes/s: a throttle that never throttles, so other tests are not slowed


def test_a_dynamic_config_set_through_the_brokers_is_applied_and_deleted(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "config", "set", "--broker", "2", "log.cleaner.threads=2", "--yes", "--json", *admin_args(sandbox)
    )
    assert code == 0, err
    assert out["via"] == "admin" and out["stored"] == {"log.cleaner.threads": "2"}
    # The broker applies it from the change notification, after the write kzc read back.
    wait_until(lambda: broker_config_source(sandbox, 2, "log.cleaner.threads") == ("2", "DYNAMIC_BROKER_CONFIG"), 30,
               "broker 2 to apply log.cleaner.threads")  # fmt: skip
    code, _, err = run(
        capsys, "config", "delete", "--broker", "2", "log.cleaner.threads", "--yes", *admin_args(sandbox)
    )
    assert code == 0, err
    assert config(zk, broker_config_path(2)) == {}


def test_throttle_rates_through_zookeeper_reach_the_broker_and_the_default(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str]
) -> None:
    before = set(zk.get_children(CONFIG_CHANGES))
    code, out, err = run(capsys, "config", "set", "--broker", "1", f"leader.replication.throttled.rate={HARMLESS_RATE}",
                         "--yes", "--json", *zk_args(sandbox))  # fmt: skip
    assert code == 0, err
    assert out["via"] == "zookeeper"
    assert config(zk, broker_config_path(1)) == {"leader.replication.throttled.rate": HARMLESS_RATE}
    notes = [json.loads(zk.get(f"{CONFIG_CHANGES}/{c}")[0]) for c in set(zk.get_children(CONFIG_CHANGES)) - before]
    assert {"version": 2, "entity_path": "brokers/1"} in notes
    wait_until(
        lambda: (
            broker_config_source(sandbox, 1, "leader.replication.throttled.rate")
            == (HARMLESS_RATE, "DYNAMIC_BROKER_CONFIG")
        ),
        30,
        "broker 1 to apply the throttle rate",
    )
    rate = f"follower.replication.throttled.rate={HARMLESS_RATE}"
    code, _, err = run(capsys, "config", "set", "--broker-default", rate, "--yes", *admin_args(sandbox))
    assert code == 0, err
    assert config(zk, broker_config_path("<default>")) == {"follower.replication.throttled.rate": HARMLESS_RATE}
    wait_until(
        lambda: (
            broker_config_source(sandbox, 3, "follower.replication.throttled.rate")
            == (HARMLESS_RATE, "DYNAMIC_DEFAULT_BROKER_CONFIG")
        ),
        30,
        "broker 3 to apply the cluster default",
    )
    for target in (
        ["--broker", "1", "leader.replication.throttled.rate"],
        ["--broker-default", "follower.replication.throttled.rate"],
    ):
        code, _, err = run(capsys, "config", "delete", *target, "--yes", *zk_args(sandbox))
        assert code == 0, err
    assert config(zk, broker_config_path(1)) == {} and config(zk, broker_config_path("<default>")) == {}


def test_zookeeper_refuses_other_dynamic_configs_of_a_running_broker_as_kafka_configs_does(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "config", "set", "--broker", "3", "log.cleaner.threads=2", "--yes", "--json", *zk_args(sandbox)
    )
    assert code == 2
    assert out["error"].startswith(
        "requirement failed: --bootstrap-server option must be specified to update broker configs "
        "Set(log.cleaner.threads). when broker 3 is running."
    )
    code, out, _ = run(capsys, "config", "set", "--broker", "3", "leader.replication.throttled.rate=-1", "--json",
                       "--yes", *zk_args(sandbox))  # fmt: skip
    assert code == 2
    assert (
        out["error"] == "Invalid value -1 for configuration leader.replication.throttled.rate: Value must be at least 0"
    )
    assert config(zk, broker_config_path(3)) == {}


@pytest.mark.parametrize(
    "argv",
    [
        ["set", "--broker", "1", f"leader.replication.throttled.rate={HARMLESS_RATE}"],
        ["set", "--broker-default", f"leader.replication.throttled.rate={HARMLESS_RATE}"],
        ["set", "--broker", "2", "log.cleaner.threads=2"],
        ["delete", "--broker", "1", "leader.replication.throttled.rate"],
    ],
    ids=["broker-zk", "default-zk", "broker-admin", "delete"],
)
def test_read_only_refuses_every_broker_config_change(
    argv: list[str], sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str]
) -> None:
    if argv[0] == "delete":
        zk.ensure_path(broker_config_path(1))
        zk.set(
            broker_config_path(1),
            json.dumps({"version": 1, "config": {"leader.replication.throttled.rate": "5"}}).encode(),
        )
    try:
        code, out, _ = run(capsys, "config", *argv, "--yes", "--json", "--read-only", *admin_args(sandbox))
        assert code == 2
        assert "read-only" in out["error"]
        expected = {"leader.replication.throttled.rate": "5"} if argv[0] == "delete" else {}
        assert config(zk, broker_config_path(1)) == expected
        assert config(zk, broker_config_path("<default>")) == {} and config(zk, broker_config_path(2)) == {}
    finally:
        if argv[0] == "delete":
            zk.delete(broker_config_path(1))


def test_a_password_config_is_left_to_the_broker_and_never_shown(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    audit = tmp_path / "audit.jsonl"
    monkeypatch.setenv("KZC_AUDIT_LOG", str(audit))
    secret = "hunter2-not-to-be-seen"
    key = "listener.name.plaintext.ssl.key.password"
    code, out, err = run(capsys, "config", "set", "--broker", "1", f"{key}={secret}", "--dry-run", *admin_args(sandbox))
    assert code == 0, err
    assert f"+ {key}=(secret)" in out and secret not in out
    code, out, err = run(
        capsys, "config", "set", "--broker", "1", f"{key}={secret}", "--yes", "--json", *admin_args(sandbox)
    )
    assert code == 2  # the broker encrypts passwords with password.encoder.secret, which the sandbox lacks
    assert out["error"].endswith("Password encoder secret not configured")
    code, out, _ = run(
        capsys, "config", "set", "--broker", "1", f"{key}={secret}", "--yes", "--json", *zk_args(sandbox)
    )
    assert code == 2 and "--bootstrap-server option must be specified" in out["error"]
    assert secret not in json.dumps(out) and secret not in err and secret not in audit.read_text()
    assert config(zk, broker_config_path(1)) == {}


def test_via_chooses_a_topic_configs_path_and_the_json_names_it(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], unique_name: str, audit_file: Path
) -> None:
    create = ["topic", "create", unique_name, "--partitions", "1", "--replication-factor", "1", "--yes"]
    code, _, err = run(capsys, *create, *admin_args(sandbox))
    assert code == 0, err
    # CreateTopics answers once the controller made the topic; a broker knows it once its UpdateMetadata comes,
    # and until then it answers a config change with "does not exist", as it would to kafka-configs.
    wait_until(lambda: brokers_know(sandbox, unique_name), 30, f"the brokers to know topic {unique_name}")
    paths = {
        "zookeeper": "--via zookeeper: written through ZooKeeper, as kafka-configs --zookeeper",
        "admin": "every broker serves IncrementalAlterConfigs: sent through the AdminClient",
    }
    for via, retention in (("zookeeper", "3600001"), ("admin", "3600002")):
        change = ["config", "set", unique_name, f"retention.ms={retention}", "--via", via, "--yes", "--json"]
        code, out, err = run(capsys, *change, *admin_args(sandbox))
        assert code == 0, err
        assert (out["via"], out["path"].startswith(paths[via])) == (via, True), out["path"]
        assert config(zk, topic_config_path(unique_name)) == {"retention.ms": retention}
    refused = ["config", "set", unique_name, "retention.ms=1", "--via", "admin", "--yes", "--json"]
    code, out, _ = run(capsys, *refused, *zk_args(sandbox))
    assert (code, out) == (2, {"error": "--via admin needs --bootstrap-server (the brokers to send the request to)"})
    assert config(zk, topic_config_path(unique_name)) == {"retention.ms": "3600002"}
    lines = [line for line in read_audit_log(audit_file) if line["operation"] == "config set"]
    assert [line["outcome"] for line in lines] == ["applied", "applied", "refused"]
    assert [line["details"]["via"] for line in lines[:2]] == ["zookeeper", "admin"]


def brokers_know(sandbox: Sandbox, topic: str) -> bool:
    """Whether every broker describes ``topic``'s configs (has it in its metadata): each asked as the only
    bootstrap server, the broker a new client sends its first request to."""
    for broker in sandbox.info().brokers:
        admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{broker.port}"})
        [future] = admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)]).values()
        try:
            future.result(timeout=10)
        except KafkaException:
            return False
    return True
