"""The check job through Spark Connect returns exactly the local engine's findings.

A Spark Connect server (``local[*]`` behind it) runs on 127.0.0.1 for the module, started from the Spark
distribution pyspark bundles (``core.spark.servers``); the console side is a Spark Connect
client (``--spark-master sc://host:port``), which needs pyspark's ``connect`` extra (installed by
``make venv``). Covered: a synthetic snapshot holding every fault the generator plants, the brokers'
metadata (``metadata_mismatch``), and a snapshot uploaded to the server by ``--stage-dir``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.brokers.metadata import ServedMetadata, ServedPartition
from core.consistency.catalog import selected
from core.consistency.findings import CheckReport
from core.consistency.params import CheckParams
from core.consistency.pipeline import CheckInput, LocalEngine, SparkChecks
from core.consistency.spark_engine import SparkEngine, SparkSettings
from core.consistency.synthetic import FaultMix, write_synthetic
from core.spark.servers import connect_client_missing, connect_server
from core.testdata.checks import MINUTE, NOW, healthy
from tests.integration.engines import assert_same, both, both_staged


@pytest.fixture(scope="module")
def connect(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkEngine]:
    """A Spark Connect client engine on a loopback Spark Connect server, for the whole module."""
    assert not connect_client_missing(), "pyspark's connect extra is not installed (pip install -e '.[connect]')"
    with connect_server(tmp_path_factory.mktemp("connect")) as server:
        engine = SparkEngine(SparkSettings(master=server.master))
        engine.start()
        try:
            yield engine
        finally:
            engine.close()


def test_spark_connect_finds_what_the_local_engine_finds(connect: SparkEngine, tmp_path: Path) -> None:
    path = tmp_path / "synthetic.jsonl"
    info = write_synthetic(path, 3000, faults=FaultMix.every_fault(), seed=11)
    local, remote = both(connect, snapshot_file=path)
    assert_same(local, remote)
    assert remote.engine == "spark" and remote.partitions == info.partitions
    assert remote.findings  # every fault is planted: there is something to agree on


def test_spark_connect_compares_zookeeper_with_the_brokers_metadata(connect: SparkEngine) -> None:
    snapshot = healthy(markers={"gone": NOW - MINUTE})
    served = ServedMetadata(frozenset({1, 2}), {"orders": {0: ServedPartition(2, (1, 2, 3), (2, 1))}})
    data = CheckInput(snapshot=snapshot, served=served)
    checks = selected(None, with_brokers=True)
    results = [e.check(data, CheckParams(), checks, lambda _p: None) for e in (LocalEngine(), SparkChecks(connect))]
    local, remote = (CheckReport.build(r.findings, r.partitions, checks, "x") for r in results)
    assert_same(local, remote)
    assert any(f.check == "metadata_mismatch" for f in remote.findings)


def test_spark_connect_reads_a_snapshot_uploaded_to_the_stage_dir(connect: SparkEngine, tmp_path: Path) -> None:
    local, remote, stage = both_staged(connect, tmp_path)
    assert_same(local, remote)
    staged = {p.name for p in stage.iterdir()}
    assert any(name.endswith("-synthetic.jsonl") for name in staged), staged  # uploaded by the client
    assert any(name.endswith(".parquet") for name in staged), staged  # and converted by the server
