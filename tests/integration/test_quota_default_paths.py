"""Quotas and cluster-default broker configs through the brokers on the sandbox (Kafka 3.9): a quota kzc sets
goes through AlterClientQuotas (kzc's own request), the broker writes ZooKeeper, DescribeClientQuotas reads it
back and a producer with that client id is really throttled; a cluster-default broker config goes through
IncrementalAlterConfigs with an empty BROKER resource name (which librdkafka refuses) and every broker reports
it as ``DYNAMIC_DEFAULT_BROKER_CONFIG``; Kafka's own refusals reach the user; the console's security screen
shows the effective quota of a user/client-id and follows a change on ``r``."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import KafkaError, Producer
from kazoo.client import KazooClient
from textual.widgets import Input, Static

from core.config import ConnectionSettings
from core.connect import parse_bootstrap, parse_zookeeper
from core.console.zk import ZkBackend
from core.kafka.znodes.paths import broker_config_path, config_path
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run
from tests.integration.cluster_reads import admin_args, broker_config_source, config, zk_args
from tests.integration.sandbox_tools import eventually
from tui.app import KzcApp
from tui.screens.security import SecurityScreen
from tui.widgets.virtual_table import VirtualTable

QUOTA = 65536  # bytes/s: far below what one producer sends on loopback
NEVER = str(2**63 - 2)  # log.flush.interval.messages as good as its default: other tests are not affected


def _produce(box: Sandbox, topic: str, client_id: str, seconds: float = 5.0) -> tuple[float, float]:
    """Produce as fast as the broker lets ``client_id`` for ``seconds`` (a bounded queue); the rate
    acknowledged (bytes/s) and the largest throttle time the broker answered with (ms)."""
    payload = b"x" * 16384
    delivered: list[int] = []
    throttles: list[float] = []

    def acked(error: KafkaError | None, _message: object) -> None:
        if error is None:
            delivered.append(len(payload))

    producer = Producer({"bootstrap.servers": box.info().bootstrap_servers, "client.id": client_id, "linger.ms": 5,
                        "queue.buffering.max.kbytes": 512,
                        "throttle_cb": lambda event: throttles.append(event.throttle_time * 1000)})  # fmt: skip
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        try:
            producer.produce(topic, payload, on_delivery=acked)
        except BufferError:  # the queue is full: wait for acknowledgements
            producer.poll(0.05)
        producer.poll(0)
    elapsed = time.monotonic() - start
    producer.purge()
    producer.flush(30)
    return sum(delivered) / elapsed, max(throttles, default=0.0)


def _audit(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_quota_set_through_alter_client_quotas_reads_back_and_throttles_a_producer(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], audit_file: Path
) -> None:
    client = f"slow-{uuid.uuid4().hex[:6]}"
    topic = f"quota-{uuid.uuid4().hex[:6]}"
    code, _, err = run(
        capsys, "topic", "create", topic, "--partitions", "1", "--replication-factor", "1", "--yes", *zk_args(sandbox)
    )
    assert code == 0, err
    code, out, err = run(capsys, "quota", "set", "--client-id", client, "--dry-run", "--json",
                         f"producer_byte_rate={QUOTA}", "request_percentage=50", *admin_args(sandbox))  # fmt: skip
    assert code == 0, err
    # The sandbox's 3.9 brokers, dated exactly from their ApiVersions (core.snapshot.release).
    assert out["via"] == "admin" and "AlterClientQuotas" in out["path_reason"] and out["release_at_least"] == "3.9"
    assert config(zk, config_path("clients", client)) == {}  # validateOnly: the broker checked, wrote nothing
    code, out, err = run(capsys, "quota", "set", "--client-id", client, f"producer_byte_rate={QUOTA}",
                         "request_percentage=50", "--yes", "--json", *admin_args(sandbox))  # fmt: skip
    assert code == 0, err
    assert out["via"] == "admin"
    # Written by the broker itself: a LONG as an integer, a DOUBLE as Java's Double.toString.
    assert config(zk, config_path("clients", client)) == {
        "producer_byte_rate": str(QUOTA),
        "request_percentage": "50.0",
    }
    code, out, err = run(capsys, "quota", "show", "--client-id", client, "--json", *admin_args(sandbox))
    assert code == 0, err
    assert out["source"].startswith("DescribeClientQuotas from broker")
    assert out["quotas"] == [
        {"user": None, "client_id": client, "quotas": {"producer_byte_rate": str(QUOTA), "request_percentage": "50.0"}}
    ]
    applied = [x for x in _audit(audit_file) if x["outcome"] == "applied"][-1]
    assert applied["details"]["via"] == "admin" and "AlterClientQuotas" in applied["details"]["path"]  # type: ignore[index]

    def throttled() -> tuple[float, float] | None:
        rate, throttle = _produce(sandbox, topic, client)
        return (rate, throttle) if throttle > 0 else None

    rate, throttle = wait_until(throttled, 120, "the broker to throttle the producer")
    with capsys.disabled():
        print(f"\nproducer_byte_rate={QUOTA} through AlterClientQuotas: {rate:,.0f} B/s, throttle {throttle:,.0f} ms")
    assert throttle >= 100

    code, out, err = run(capsys, "quota", "delete", "--client-id", client, "producer_byte_rate", "request_percentage",
                         "--yes", "--json", *admin_args(sandbox))  # fmt: skip
    assert code == 0, err
    assert out["via"] == "admin" and config(zk, config_path("clients", client)) == {}


def test_a_default_user_quota_is_named_as_kafka_names_it_on_both_paths(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str]
) -> None:
    user = f"u-{uuid.uuid4().hex[:6]}"
    code, _, err = run(capsys, "quota", "set", "--user", user, "--default", "consumer_byte_rate=10000000000", "--yes",
                       *admin_args(sandbox))  # fmt: skip
    assert code == 0, err
    assert config(zk, f"{config_path('users', user)}/clients/<default>") == {"consumer_byte_rate": "10000000000"}
    code, through_brokers, err = run(capsys, "quota", "show", "--json", *admin_args(sandbox))
    assert code == 0, err
    code, through_zookeeper, err = run(capsys, "quota", "show", "--json", *zk_args(sandbox))
    assert code == 0, err
    wanted = {"user": user, "client_id": "<default>", "quotas": {"consumer_byte_rate": "10000000000"}}
    assert wanted in through_brokers["quotas"] and wanted in through_zookeeper["quotas"]
    code, _, err = run(
        capsys, "quota", "delete", "--user", user, "--default", "consumer_byte_rate", "--yes", *zk_args(sandbox)
    )
    assert code == 0, err


def test_a_bad_quota_value_is_refused_before_anything_is_sent(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str]
) -> None:
    client = f"bad-{uuid.uuid4().hex[:6]}"
    code, _, err = run(
        capsys, "quota", "set", "--client-id", client, "controller_mutation_rate=-1", "--yes", *admin_args(sandbox)
    )
    assert code != 0 and "must be positive" in err
    assert config(zk, config_path("clients", client)) == {}


def test_a_cluster_default_broker_config_goes_through_incremental_alter_configs_and_every_broker_applies_it(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], audit_file: Path
) -> None:
    key = "log.flush.interval.messages"
    code, out, err = run(
        capsys, "config", "set", "--broker-default", f"{key}={NEVER}", "--yes", "--json", *admin_args(sandbox)
    )
    assert code == 0, err
    assert out["via"] == "admin" and out["request"] == "IncrementalAlterConfigs" and out["sent_to"] is not None
    assert "librdkafka refuses" in out["path"]
    assert config(zk, broker_config_path("<default>")).get(key) == NEVER
    applied = (NEVER, "DYNAMIC_DEFAULT_BROKER_CONFIG")
    for broker in (1, 2, 3):
        wait_until(lambda b=broker: broker_config_source(sandbox, b, key) == applied, 30,
                   f"broker {broker} to apply the cluster default")  # fmt: skip
    shown = run(capsys, "config", "show", "--broker-default", "--json", *admin_args(sandbox))[1]
    assert shown["overrides"].get(key) == NEVER
    applied = [x for x in _audit(audit_file) if x["outcome"] == "applied"][-1]
    assert applied["details"]["via"] == "admin"  # type: ignore[index]
    code, _, err = run(capsys, "config", "delete", "--broker-default", key, "--yes", *admin_args(sandbox))
    assert code == 0, err
    assert key not in config(zk, broker_config_path("<default>"))


def test_the_brokers_refusal_of_a_default_config_is_shown_and_nothing_is_written(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str]
) -> None:
    before = config(zk, broker_config_path("<default>"))
    code, _, err = run(capsys, "config", "set", "--broker-default", "broker.id=7", "--yes", *admin_args(sandbox))
    assert code != 0 and "broker.id" in err, err  # not dynamic: the broker's own InvalidRequest/Config message
    code, _, err = run(
        capsys, "config", "set", "--broker-default", "listeners=PLAINTEXT://:1", "--yes", *admin_args(sandbox)
    )
    assert code != 0 and "default cluster level, broker id must be specified" in err
    assert config(zk, broker_config_path("<default>")) == before


def test_without_bootstrap_a_default_config_other_than_the_rates_is_refused_as_kafka_configs_zookeeper_did(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "config", "set", "--broker-default", f"log.flush.interval.messages={NEVER}", "--yes", *zk_args(sandbox)
    )
    assert code != 0 and "for default cluster if any broker is running" in err
    code, out, err = run(
        capsys, "config", "set", "--broker-default", "sasl.jaas.config=hunter2-secret", "--yes", *zk_args(sandbox)
    )
    assert code != 0 and "for default cluster if any broker is running" in err  # Kafka's first check
    assert "hunter2" not in err + json.dumps(out)


async def test_the_console_shows_the_effective_quota_a_client_gets_and_follows_a_change(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    user, client = f"u{uuid.uuid4().hex[:6]}", f"c{uuid.uuid4().hex[:6]}"
    code, _, err = run(
        capsys, "quota", "set", "--user", user, "producer_byte_rate=1048576", "--yes", *admin_args(sandbox)
    )
    assert code == 0, err
    zookeeper = sandbox.info().zookeeper
    bootstrap = parse_bootstrap(sandbox.info().bootstrap_servers)
    settings = ConnectionSettings(zookeeper=parse_zookeeper(zookeeper), bootstrap_servers=bootstrap)
    app = KzcApp(settings, backend=ZkBackend(settings), warm_spark=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await eventually(pilot, lambda: app.view is not None, 60, "the first view")
        await pilot.press("A")
        screen = await eventually(
            pilot, lambda: app.screen if isinstance(app.screen, SecurityScreen) else None, 10, "the security screen"
        )
        await pilot.press("2")
        table = screen.query_one("#security-quotas", VirtualTable)
        await eventually(pilot, lambda: str(table.border_title).startswith("Quotas from Describe"), 30, "the quotas")
        assert ("user", user, "-", "producer_byte_rate=1048576") in [r.cells for r in table.visible_rows()]
        screen.query_one("#effective-user", Input).focus()
        await pilot.press(*user, "enter", *client, "enter")

        def shown() -> str:
            return str(screen.query_one("#effective-quota", Static).render())

        await eventually(pilot, lambda: f"producer_byte_rate: 1048576  (from user {user})" in shown(), 30, "it")
        assert "consumer_byte_rate: -  (no quota at any level: unlimited)" in shown()
        code, _, err = run(capsys, "quota", "set", "--user", user, "--client-id", client, "producer_byte_rate=2048",
                           "--yes", *admin_args(sandbox))  # fmt: skip
        assert code == 0, err
        await pilot.press("r")
        await eventually(
            pilot, lambda: f"producer_byte_rate: 2048  (from user {user}, client-id {client})" in shown(), 30, "r"
        )
