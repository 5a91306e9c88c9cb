"""Where the console's checks run: ``--spark-master`` / ``--stage-dir`` (or a context's keys) reach the
Spark engine of ``CheckEngines`` through the backends, which build it without connecting or starting Spark."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import main
from core.config import DEFAULT_SPARK_MASTER, ConnectionSettings
from core.connect import parse_zookeeper
from core.consistency.spark_engine import SparkSettings
from core.console.checks import CheckEngines
from core.console.zk import ZkBackend
from core.errors import ConnectError
from core.testdata.builder import snapshot
from core.zookeeper.session import ConnectionState
from tests.recorded_backend import RecordedBackend


def test_without_settings_spark_runs_locally_and_stages_nothing() -> None:
    assert CheckEngines().spark_settings == SparkSettings(master=DEFAULT_SPARK_MASTER, stage_dir=None)


def test_a_live_backend_hands_its_settings_spark_master_and_stage_dir_to_its_checks() -> None:
    settings = ConnectionSettings(
        zookeeper=parse_zookeeper("127.0.0.1:1"), spark_master="spark://m:7077", stage_dir="file:///shared/kzc"
    )
    backend = ZkBackend(settings)  # builds nothing remote: no ZooKeeper session, no Spark worker
    try:
        assert backend.check_engines.spark_settings == SparkSettings("spark://m:7077", "file:///shared/kzc")
    finally:
        backend.close()


def test_a_recorded_backend_takes_a_spark_master_and_stage_dir() -> None:
    backend = RecordedBackend(snapshot(), spark_master="sc://connect:15002", stage_dir="s3a://b/kzc")
    assert backend.check_engines.spark_settings == SparkSettings("sc://connect:15002", "s3a://b/kzc")
    assert RecordedBackend(snapshot()).check_engines.spark_settings == SparkSettings()


def test_the_console_s_spark_flags_and_context_reach_the_check_engines(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[contexts.c]\nzookeeper = "127.0.0.1:1"\nspark_master = "yarn"\nstage_dir = "hdfs:///kzc"\n')
    engines: list[SparkSettings] = []

    def open_console(settings: ConnectionSettings) -> int:
        backend = ZkBackend(settings)  # what the console builds for these settings
        engines.append(backend.check_engines.spark_settings)
        backend.close()
        return 0

    monkeypatch.setattr("cli.console_cmd.open_console", open_console)
    assert main(["--config", str(config), "--context", "c"]) == 0
    assert main(["--config", str(config), "--context", "c", "--spark-master", "spark://m:7077"]) == 0
    assert engines == [SparkSettings("yarn", "hdfs:///kzc"), SparkSettings("spark://m:7077", "hdfs:///kzc")]


def test_a_read_before_the_first_whole_read_says_so_not_that_zookeeper_is_unreachable() -> None:
    backend = ZkBackend(ConnectionSettings(zookeeper=parse_zookeeper("127.0.0.1:1")))  # nothing remote is built
    with pytest.raises(ConnectError, match="^not connected to ZooKeeper$"):
        backend.snapshot()
    backend._on_state(ConnectionState.CONNECTED)  # the session is up; the cluster is still being read
    with pytest.raises(ConnectError, match="^connected to ZooKeeper, still reading the cluster$"):
        backend.snapshot()
