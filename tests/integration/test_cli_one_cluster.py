"""A command acts on one cluster, decided in one place, and says which (issue 27): a config file whose
default context points elsewhere never redirects an explicit ``--zookeeper``; refusals name their real cause;
previews and audit lines name the cluster by id; ``--json`` answers in JSON on every path."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from cli.main import main
from core.audit import read_audit_log
from core.sandbox.local_cluster import Sandbox
from tests.integration.zk_server import zk_client

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def no_zk_auth(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KZC_ZK_AUTH", raising=False)


@pytest.fixture
def elsewhere(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """A config file whose default context is another cluster (a chroot of its own, brokers that do not
    answer, read-only, credentials); returns that chroot's connect string."""
    hosts = sandbox.info().zookeeper.rsplit("/", 1)[0]
    other = f"{hosts}/elsewhere-{uuid.uuid4().hex[:8]}"
    path = tmp_path / "config.toml"
    path.write_text(
        'default_context = "prod"\n[contexts.prod]\n'
        f'zookeeper = "{other}"\nbootstrap_server = "127.0.0.1:1"\nread_only = true\nzk_auth = "ops:secret"\n'
    )
    path.chmod(0o600)
    monkeypatch.setenv("KZC_CONFIG", str(path))
    return other


def _cluster_id(zk: KazooClient) -> str:
    return str(json.loads(zk.get("/cluster/id")[0])["id"])


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_default_context_elsewhere_never_redirects_an_explicit_zookeeper(
    sandbox: Sandbox, zk: KazooClient, elsewhere: str, audit_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = f"one-cluster-{uuid.uuid4().hex[:8]}"
    connect = sandbox.info().zookeeper
    create = ["topic", "create", topic, "--partitions", "1", "--replication-factor", "1", "--zookeeper", connect]
    code, out, err = _run(capsys, *create, "--dry-run")
    assert code == 0, err
    cluster_id = _cluster_id(zk)
    # The preview opens with the cluster it is for, and plans through ZooKeeper (not the context's brokers).
    assert out.splitlines()[0] == f"Cluster: cluster {cluster_id} at {connect}"
    assert "check /controller (if version is" in out  # the fence its multi-op sends, as config set lists it
    code, out, err = _run(capsys, *create, "--yes")
    assert code == 0, err
    assert "via ZooKeeper" in out and "127.0.0.1:1" not in out + err
    assert zk.exists(f"/brokers/topics/{topic}") is not None
    lines = read_audit_log(audit_file)
    assert [(x["cluster"], x["cluster_id"]) for x in lines] == [(connect, cluster_id)] * 2
    with zk_client(elsewhere.rsplit("/", 1)[0]) as root:
        assert root.exists("/" + elsewhere.rsplit("/", 1)[1]) is None  # nothing anywhere but the sandbox


def test_the_read_only_refusal_names_the_flag_not_the_default_context(
    sandbox: Sandbox, elsewhere: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(
        capsys, "topic", "create", "never", "--partitions", "1", "--replication-factor", "1", "--yes", "--json",
        "--read-only", "--zookeeper", sandbox.info().zookeeper,
    )  # fmt: skip
    assert code == 2
    assert json.loads(out) == {"error": "kzc is read-only (--read-only was given): refusing every mutation"}


def test_a_named_context_and_a_zookeeper_of_another_cluster_are_refused_before_connecting(
    sandbox: Sandbox, elsewhere: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "describe", "--json", "--context", "prod", "--zookeeper", sandbox.info().zookeeper)
    assert code == 2 and "name different clusters" in json.loads(out)["error"]


def test_config_show_lists_only_non_defaults_in_json_as_in_text(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    info = sandbox.info()
    admin = ["--zookeeper", info.zookeeper, "--bootstrap-server", info.bootstrap_servers]
    code, out, err = _run(capsys, "config", "show", "--broker", "1", "--json", *admin)
    assert code == 0, err
    described = json.loads(out)["described"]
    assert described and not any(d["default"] for d in described)
    code, out, err = _run(capsys, "config", "show", "--broker", "1", *admin)
    assert code == 0 and "None" not in out
    assert "no such znode" in out or "znode version" in out


def test_reassign_status_lists_topic_throttles_and_clear_throttles_answers_in_json(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = f"throttled-{uuid.uuid4().hex[:8]}"
    connect = ["--zookeeper", sandbox.info().zookeeper]
    create = ["topic", "create", topic, "--partitions", "1", "--replication-factor", "1", "--yes"]
    assert _run(capsys, *create, *connect)[0] == 0
    code, _, err = _run(capsys, "config", "set", topic, "leader.replication.throttled.replicas=0:1", "--yes", *connect)
    assert code == 0, err
    code, out, err = _run(capsys, "reassign", "status", "--json", *connect)
    assert code == 0, err
    assert f"topic {topic} leader.replication.throttled.replicas=0:1" in json.loads(out)["throttles"]
    code, out, err = _run(capsys, "reassign", "clear-throttles", "--topic", topic, "--yes", "--json", *connect)
    assert code == 0, err
    assert f"topics/{topic}" in json.loads(out)["removed"]
