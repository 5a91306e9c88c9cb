"""The sandbox against itself: a real ZooKeeper and real Kafka brokers on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from core.brokers.probe import broker_view
from core.polling import wait_until
from core.sandbox import class_data
from core.sandbox.jars import ensure_jars, java_executable
from core.sandbox.local_cluster import Sandbox
from core.sandbox.migration import storage_format_args


def test_up_registers_every_broker_with_its_rack_and_elects_a_controller(sandbox: Sandbox, zk: KazooClient) -> None:
    status = sandbox.status()
    assert status.zookeeper_alive and all(status.brokers_alive.values())
    assert status.registered == (1, 2, 3) and status.controller in (1, 2, 3)
    for broker in sandbox.info().brokers:
        registration = json.loads(zk.get(f"/brokers/ids/{broker.id}")[0])
        assert registration["rack"] == f"r{broker.id}"
        assert registration["endpoints"] == [f"PLAINTEXT://127.0.0.1:{broker.port}"]
    assert sandbox.info().zookeeper.startswith("127.0.0.1:") and sandbox.info().zookeeper.endswith("/kafka")


def test_a_killed_broker_leaves_then_start_broker_returns_it_registered_and_serving(
    sandbox: Sandbox, zk: KazooClient
) -> None:
    before = zk.exists("/brokers/ids/2")
    assert before is not None
    killed = sandbox.kill_broker(2)
    assert killed.pid is None and not sandbox.status().brokers_alive[2]
    wait_until(lambda: zk.exists("/brokers/ids/2") is None, 30, "broker 2's registration to expire")
    restarted = sandbox.start_broker(2)
    after = zk.exists("/brokers/ids/2")
    assert after is not None and after.czxid != before.czxid
    assert restarted.pid is not None and sandbox.status().brokers_alive[2]
    # Serving: it listens, and the controller has told it who the controller and its peers are.
    view = broker_view("127.0.0.1", restarted.port)
    assert view.controller in (1, 2, 3) and view.brokers == {1, 2, 3}


def _run_kzc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, timeout=300)


def test_cli_up_json_returns_a_serving_cluster_and_down_leaves_no_process(tmp_path: Path) -> None:
    up = _run_kzc("sandbox", "up", "--brokers", "1", "--dir", str(tmp_path), "--json")
    assert up.returncode == 0, up.stderr
    info = json.loads(up.stdout)
    assert info["zookeeper"] == f"127.0.0.1:{info['zookeeper_port']}/kafka"
    assert info["bootstrap_servers"] == f"127.0.0.1:{info['brokers'][0]['port']}"
    assert info["brokers"][0]["id"] == 1 and info["brokers"][0]["rack"] is None and info["dir"] == str(tmp_path)
    pids = [info["zookeeper_pid"], info["brokers"][0]["pid"]]
    assert all(Path(f"/proc/{pid}").exists() for pid in pids)
    view = broker_view("127.0.0.1", info["brokers"][0]["port"])  # it listens and knows it is the controller
    assert view.controller == 1 and view.brokers == {1}

    down = _run_kzc("sandbox", "down", "--dir", str(tmp_path), "--json")
    assert down.returncode == 0, down.stderr
    assert sorted(json.loads(down.stdout)["stopped_pids"]) == sorted(pids)
    assert Sandbox(tmp_path).running_pids() == []
    assert not any(f"-Dkzc.sandbox={tmp_path}" in _cmdline(p) for p in Path("/proc").iterdir() if p.name.isdigit())
    assert (tmp_path / "broker-1" / "server.log").stat().st_size > 0, "logs stay in the sandbox directory"


def test_status_of_a_stopped_sandbox_reports_everything_stopped(tmp_path: Path) -> None:
    box = Sandbox.up(tmp_path, brokers=1)
    box.down()
    status = box.status()
    assert not status.zookeeper_alive and status.brokers_alive == {1: False} and status.registered == ()


def test_a_cleanly_stopped_jvm_leaves_its_class_data_archive_and_the_next_start_maps_it(tmp_path: Path) -> None:
    box = Sandbox.up(tmp_path / "first", brokers=1)
    cmdline = _cmdline(Path(f"/proc/{box.info().brokers[0].pid}")).split()
    box.down()
    archive = class_data.archive_path(cmdline[0], cmdline[cmdline.index("-cp") + 1], "kafka.Kafka")
    assert archive.exists(), f"no archive {archive} after a clean stop"  # this stop's, or an earlier one's
    assert not list(archive.parent.glob(f"{archive.name}.*.tmp")) or _jvms_writing(archive)

    again = Sandbox.up(tmp_path / "again", brokers=1)
    try:
        broker = again.info().brokers[0]
        assert f"-XX:SharedArchiveFile={archive}" in _cmdline(Path(f"/proc/{broker.pid}"))
        # The JVM says when it cannot map an archive (and goes on without): -Xlog:cds would say it maps it.
        assert "Unable to use shared archive" not in (tmp_path / "again" / "broker-1" / "stdout.log").read_text()
    finally:
        again.down()


def test_a_half_written_class_data_archive_is_deleted_never_put_in_place(tmp_path: Path) -> None:
    jars = f"{ensure_jars()}/*"
    archive = class_data.archive_path(java_executable(), jars, "kzc.Half")
    written = archive.with_name(f"{archive.name}.half.tmp")
    written.parent.mkdir(parents=True, exist_ok=True)
    written.write_bytes(b"\0" * 4096)  # what a JVM killed while writing leaves: mapping it crashes a JVM
    class_data.promote([java_executable(), f"-XX:ArchiveClassesAtExit={written}", "-cp", jars, "kzc.Half"])
    assert not written.exists() and not archive.exists()


def test_a_sandbox_thrown_away_is_killed_without_a_controlled_shutdown_and_class_data_off_means_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KZC_CLASS_DATA", "off")
    box = Sandbox.up(tmp_path, brokers=1)
    assert "-XX:SharedArchive" not in (command := _cmdline(Path(f"/proc/{box.info().brokers[0].pid}")))
    assert "ArchiveClassesAtExit" not in command
    pids = box.running_pids()
    assert sorted(box.down(clean=False)) == sorted(pids) and box.running_pids() == []
    log = (tmp_path / "broker-1" / "server.log").read_text()
    assert "shutting down" not in log.lower(), "SIGKILL: no controlled shutdown, no shutdown hook"


def _jvms_writing(archive: Path) -> bool:
    """Whether another JVM (another test worker's sandbox) will write ``archive`` at its exit."""
    return any(f"ArchiveClassesAtExit={archive}" in _cmdline(p) for p in Path("/proc").iterdir() if p.name.isdigit())


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_the_kraft_controller_formats_with_a_cluster_id_that_begins_with_a_dash(tmp_path: Path) -> None:
    # Kafka's cluster ids are base64url: one in 64 begins with '-'; the migration's format failed on one in CI.
    cluster_id = "-kzcDashLeadingIdAAAAA"
    props = tmp_path / "controller.properties"
    props.write_text(
        "process.roles=controller\nnode.id=3000\ncontroller.quorum.voters=3000@127.0.0.1:9\n"
        f"controller.listener.names=CONTROLLER\nlisteners=CONTROLLER://127.0.0.1:9\nlog.dirs={tmp_path / 'data'}\n"
    )
    cmd = [java_executable(), "-cp", f"{ensure_jars()}/*", "kafka.tools.StorageTool",
           *storage_format_args(cluster_id, props)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"cluster.id={cluster_id}" in (tmp_path / "data" / "meta.properties").read_text()
