"""The Kafka and ZooKeeper jars of the sandbox: fetched once through Maven, then used offline.

The jars of a release's broker (``org.apache.kafka:kafka_<scala>:<version>``, its runtime dependencies and what
it needs on Java 17, ``core.sandbox.releases``) go to ``$KZC_CACHE_DIR/jars/kafka_<scala>-<version>`` (default
cache: ``$XDG_CACHE_HOME/kzc`` or ``~/.cache/kzc``). The default release's set (3.9.1) also runs the sandbox's
ZooKeeper, whatever the brokers' release. Kafka's own tools (``kafka-tools``, which tests and benchmarks compare
kzc with) go to ``jars/kafka-tools-<version>``.
A ``.complete`` marker is written last, so an interrupted fetch is redone, never half-used.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from core.errors import MissingToolError, SandboxError
from core.sandbox.releases import DEFAULT_RELEASE, DEFAULT_VERSION, KafkaRelease

KAFKA_VERSION = DEFAULT_VERSION
MIN_JAVA = 17

# One Maven project per jar set: its dependencies are copied, with their runtime dependencies, into one folder.
_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kzc</groupId><artifactId>kzc-sandbox-jars</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>{dependencies}
  </dependencies>
</project>
"""
_DEPENDENCY = """
    <dependency><groupId>{}</groupId><artifactId>{}</artifactId><version>{}</version></dependency>"""
# Kafka's command-line tools (TopicCommand, ConsumerGroupCommand...), which tests and benchmarks compare kzc with.
_TOOLS = (f"org.apache.kafka:kafka-tools:{KAFKA_VERSION}",)


def cache_dir() -> Path:
    """kzc's cache directory (jars live below it)."""
    if env := os.environ.get("KZC_CACHE_DIR"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kzc"


def jars_dir(release: KafkaRelease = DEFAULT_RELEASE) -> Path:
    """Where the jars of a Kafka release (default: 3.9.1, which also runs ZooKeeper) live once fetched."""
    return cache_dir() / "jars" / release.jar_dir_name


def java_executable() -> str:
    """The ``java`` to run, after checking it is at least Java 17.

    Raises:
        MissingToolError: no java, or one that is too old.
    """
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home and (Path(home) / "bin" / "java").exists() else shutil.which("java")
    if not java:
        raise MissingToolError(
            f"java not found: the sandbox runs Kafka {KAFKA_VERSION}, which needs Java {MIN_JAVA} or newer "
            "(install e.g. openjdk-17-jre-headless, or set JAVA_HOME)"
        )
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.SubprocessError) as exc:
        raise MissingToolError(f"cannot run {java} -version: {exc}") from exc
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    major = int(match.group(1)) if match else 0
    if major == 1 and match and match.group(2):  # "1.8.0_292" style
        major = int(match.group(2))
    if major < MIN_JAVA:
        raise MissingToolError(
            f"{java} is Java {major or 'of unknown version'}: the sandbox needs Java {MIN_JAVA} or newer "
            "(install e.g. openjdk-17-jre-headless, or set JAVA_HOME)"
        )
    return java


def tools_jars_dir() -> Path:
    """Where the jars of Kafka's own command-line tools (``kafka-tools``) live once fetched."""
    return cache_dir() / "jars" / f"kafka-tools-{KAFKA_VERSION}"


def ensure_jars(log: Callable[[str], None] | None = None, release: KafkaRelease = DEFAULT_RELEASE) -> Path:
    """Return the jar directory of a release's broker (default 3.9.1, whose set also runs ZooKeeper), fetching
    the jars through Maven the first time.

    Raises:
        MissingToolError: the jars are not cached yet and ``mvn`` is not installed.
        SandboxError: Maven failed (its last output lines are in the message).
    """
    what = f"Kafka {release.version} and ZooKeeper" if release == DEFAULT_RELEASE else f"Kafka {release.version}"
    return _fetch(release.artifacts, jars_dir(release), "kafka_*.jar", what, log, release.version)


def ensure_tools_jars(log: Callable[[str], None] | None = None) -> Path:
    """Return the jar directory of Kafka's own tools (``kafka-topics.sh``, ``kafka-consumer-groups.sh``...);
    run them with ``ensure_jars()`` first on the class path. Fetched through Maven the first time.

    Raises:
        MissingToolError: the jars are not cached yet and ``mvn`` is not installed.
        SandboxError: Maven failed.
    """
    return _fetch(_TOOLS, tools_jars_dir(), "kafka-tools-*.jar", f"Kafka {KAFKA_VERSION} tools", log, KAFKA_VERSION)


def _fetch(
    artifacts: tuple[str, ...],
    target: Path,
    expect: str,
    what: str,
    log: Callable[[str], None] | None,
    version: str,
) -> Path:
    """Copy ``artifacts`` and their runtime dependencies into ``target`` once; a ``.complete`` marker is
    written last, so an interrupted fetch is redone, never half-used."""
    if (target / ".complete").exists():
        return target
    mvn = shutil.which("mvn")
    if not mvn:
        raise MissingToolError(
            f"mvn not found: kzc uses Apache Maven once to fetch the {what} jars into {target} "
            "(install e.g. the 'maven' package)"
        )
    if log:
        log(f"fetching the {what} jars through Maven into {target} (once)")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kzc-jars-", dir=target.parent) as tmp:
        pom = Path(tmp) / "pom.xml"
        pom.write_text(_POM.format(dependencies="".join(_DEPENDENCY.format(*a.split(":")) for a in artifacts)))
        staging = Path(tmp) / "libs"
        cmd = [
            mvn, "-q", "-B", "-f", str(pom), "dependency:copy-dependencies",
            f"-DoutputDirectory={staging}", "-DincludeScope=runtime",
        ]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0 or not any(staging.glob(expect)):
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            raise SandboxError(f"Maven could not fetch the {what} jars:\n{tail}")
        (staging / ".complete").write_text(version + "\n")
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    return target


# The AdminServer of ZooKeeper (its /commands/... HTTP API, used by a sandbox ensemble) needs Jetty, which
# ZooKeeper declares "provided" and Kafka does not ship; 9.4.x is the line ZooKeeper 3.8 is built with.
JETTY_VERSION = "9.4.57.v20241219"
_JETTY = (f"org.eclipse.jetty:jetty-server:{JETTY_VERSION}", f"org.eclipse.jetty:jetty-servlet:{JETTY_VERSION}")


def ensure_admin_server_jars(log: Callable[[str], None] | None = None) -> Path:
    """Return the jar directory of Jetty for ZooKeeper's AdminServer, fetching it through Maven the first time.

    Raises:
        MissingToolError: the jars are not cached yet and ``mvn`` is not installed.
        SandboxError: Maven failed.
    """
    target = cache_dir() / "jars" / f"jetty-{JETTY_VERSION}"
    return _fetch(_JETTY, target, "jetty-server-*.jar", "ZooKeeper AdminServer (Jetty)", log, JETTY_VERSION)


# The Prometheus JMX exporter's java agent (one shaded jar) for `kzc sandbox up --metrics`: the newest release
# Maven Central serves; it runs on Java 8 and newer, so on every broker release the sandbox starts.
EXPORTER_VERSION = "1.0.1"
_EXPORTER = (f"io.prometheus.jmx:jmx_prometheus_javaagent:{EXPORTER_VERSION}",)


def ensure_exporter_jar(log: Callable[[str], None] | None = None) -> Path:
    """Return the Prometheus JMX exporter's java agent jar, fetching it through Maven the first time.

    Raises:
        MissingToolError: the jar is not cached yet and ``mvn`` is not installed.
        SandboxError: Maven failed.
    """
    target = cache_dir() / "jars" / f"jmx_prometheus_javaagent-{EXPORTER_VERSION}"
    jar = "jmx_prometheus_javaagent-*.jar"
    return next(_fetch(_EXPORTER, target, jar, "Prometheus JMX exporter", log, EXPORTER_VERSION).glob(jar))
