"""Spark servers on loopback, started from the Spark distribution pyspark bundles: a Spark Connect server
and a standalone master with workers. The tests and ``benchmarks/checks_bench.py`` run the check job on
them; every socket they open is on 127.0.0.1.

pyspark is imported only to find its directory; the servers are separate JVM processes, each in a
process session of its own, and leaving a ``with`` block stops exactly the processes it started.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import KzcError
from core.polling import DeadlineExceeded, wait_until

LOOPBACK = "127.0.0.1"
START_TIMEOUT = 180.0
CONNECT_SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


@dataclass(frozen=True)
class SparkCluster:
    """Where a started server takes jobs: a master URL and the settings jobs need there."""

    master: str
    conf: dict[str, str] = field(default_factory=dict)


def spark_home() -> Path:
    """The Spark distribution inside the pyspark package (``bin/``, ``jars/``)."""
    import pyspark

    return Path(pyspark.__file__).parent


def connect_client_missing() -> list[str]:
    """The pip requirements of pyspark's ``connect`` extra that are not installed (as pyspark states them)."""
    import importlib.metadata as metadata

    from packaging.requirements import Requirement

    missing = []
    for text in metadata.requires("pyspark") or []:
        requirement = Requirement(text)
        if requirement.marker is None or not requirement.marker.evaluate({"extra": "connect"}):
            continue
        try:
            installed = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            missing.append(f"{requirement.name}{requirement.specifier}")
            continue
        if requirement.specifier and not requirement.specifier.contains(installed, prereleases=True):
            missing.append(f"{requirement.name}{requirement.specifier}")
    return missing


@contextmanager
def connect_server(scratch: Path, master: str = "local[*]") -> Iterator[SparkCluster]:
    """A Spark Connect server (``master`` behind it) on a free loopback port; yields its ``sc://`` URL.

    Raises:
        KzcError: it did not listen within ``START_TIMEOUT`` (the message names its log).
    """
    port = free_port()
    command = [
        str(spark_home() / "bin" / "spark-submit"), "--class", CONNECT_SERVER_CLASS, "--master", master,
        "--conf", f"spark.connect.grpc.binding.address={LOOPBACK}", "--conf", f"spark.connect.grpc.binding.port={port}",
        "--conf", f"spark.driver.host={LOOPBACK}", "--conf", f"spark.driver.bindAddress={LOOPBACK}",
        "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.memory=2g",
        # --stage-dir uploads there: allowed because this server's file system is the local one.
        "--conf", "spark.sql.artifact.copyFromLocalToFs.allowDestLocal=true", "spark-internal",
    ]  # fmt: skip
    log = scratch / "connect.log"
    with _started([command], _env(scratch), log):
        _wait(lambda: _listening(port), "the Spark Connect server", log)
        yield SparkCluster(f"sc://{LOOPBACK}:{port}")


@contextmanager
def standalone_cluster(scratch: Path, workers: int = 2) -> Iterator[SparkCluster]:
    """A standalone master and ``workers`` one-core workers; yields the ``spark://`` URL once all registered.

    Raises:
        KzcError: the master did not listen, or the workers did not register, within ``START_TIMEOUT``.
    """
    spark_class = str(spark_home() / "bin" / "spark-class")
    port, ui = free_port(), free_port()
    url = f"spark://{LOOPBACK}:{port}"
    master = [spark_class, "org.apache.spark.deploy.master.Master", "--host", LOOPBACK, "--port", str(port),
              "--webui-port", str(ui)]  # fmt: skip
    started_workers = [
        [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", LOOPBACK, "--cores", "1", "--memory",
         "2g", "--webui-port", str(free_port()), "--work-dir", str(scratch / f"worker-{n}"), url]
        for n in range(1, workers + 1)
    ]  # fmt: skip
    env = _env(scratch)
    log = scratch / "standalone.log"
    with _started([master], env, log):
        _wait(lambda: _listening(port), "the standalone master", log)
        with _started(started_workers, env, log):

            def alive_workers() -> int:
                try:
                    with urllib.request.urlopen(f"http://{LOOPBACK}:{ui}/json/", timeout=5) as answer:
                        return int(json.load(answer).get("aliveworkers", 0))
                except OSError:  # the master's UI is not up yet
                    return 0

            _wait(lambda: alive_workers() == workers, f"{workers} workers to register with the master", log)
            conf = {"spark.executor.memory": "1500m", "spark.cores.max": str(workers), "spark.executor.cores": "1"}
            yield SparkCluster(url, conf)


def free_port() -> int:
    """A TCP port free on loopback right now."""
    with closing(socket.socket()) as s:
        s.bind((LOOPBACK, 0))
        port: int = s.getsockname()[1]
        return port


def _listening(port: int) -> bool:
    with closing(socket.socket()) as s:
        s.settimeout(0.5)
        return s.connect_ex((LOOPBACK, port)) == 0


def _wait(condition: Callable[[], bool], what: str, log: Path) -> None:
    try:
        wait_until(condition, START_TIMEOUT, what)
    except DeadlineExceeded as exc:
        raise KzcError(f"{exc} (log: {log})") from exc


def _env(scratch: Path) -> dict[str, str]:
    return {
        **os.environ,
        "SPARK_HOME": str(spark_home()),
        "SPARK_LOCAL_IP": LOOPBACK,
        "SPARK_LOG_DIR": str(scratch),
        "SPARK_WORKER_DIR": str(scratch / "work"),
        "PYSPARK_PYTHON": sys.executable,
    }


@contextmanager
def _started(commands: list[list[str]], env: dict[str, str], log: Path) -> Iterator[None]:
    """Run ``commands`` (each in its own session, output to ``log``); stop exactly these afterwards."""
    procs: list[subprocess.Popen[bytes]] = []
    with log.open("ab") as out:
        try:
            for command in commands:
                procs.append(subprocess.Popen(command, env=env, stdout=out, stderr=out, start_new_session=True))
            yield
        finally:
            for proc in reversed(procs):
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGTERM)  # the session holds only what this command started
            for proc in reversed(procs):
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=10)
