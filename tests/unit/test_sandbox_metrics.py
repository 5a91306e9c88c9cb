"""The exporter agent of `kzc sandbox up --metrics`: its JVM option, rules file and the broker's recorded URL."""

from __future__ import annotations

from pathlib import Path

from core.sandbox.info import BrokerInfo, SandboxInfo
from core.sandbox.metrics import RULES_FILE, agent_option, metrics_url, write_rules


def test_agent_option_binds_the_exporter_to_the_loopback_port_of_its_url() -> None:
    url = metrics_url(7071)
    assert url == "http://127.0.0.1:7071/metrics"
    assert agent_option("/j/agent.jar", url, "/s/rules.yml") == "-javaagent:/j/agent.jar=127.0.0.1:7071:/s/rules.yml"


def test_rules_query_every_mbean_kzc_reads(tmp_path: Path) -> None:
    rules = write_rules(tmp_path).read_text()
    assert (tmp_path / RULES_FILE).exists()
    for mbean in (
        "kafka.server:type=BrokerTopicMetrics,*",
        "kafka.server:type=ReplicaManager,*",
        "kafka.server:type=KafkaRequestHandlerPool,*",
        "kafka.network:type=SocketServer,*",
        "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce",
        "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=FetchConsumer",
    ):
        assert f"- {mbean}\n" in rules


def test_status_json_lists_each_brokers_metrics_url() -> None:
    info = SandboxInfo(
        dir="/x",
        zookeeper="127.0.0.1:1/kafka",
        bootstrap_servers="127.0.0.1:2",
        zookeeper_port=1,
        zookeeper_pid=None,
        brokers=(BrokerInfo(1, 2, None, None, metrics_url=metrics_url(9001)), BrokerInfo(2, 3, None, None)),
    )
    assert [b["metrics_url"] for b in info.to_json()["brokers"]] == ["http://127.0.0.1:9001/metrics", None]
