"""What the sandbox's Kafka processes are configured with: each broker's ``server.properties`` and the
``log4j.properties`` every JVM logs with."""

from __future__ import annotations

from pathlib import Path

from core.sandbox.info import BrokerInfo, SandboxInfo
from core.sandbox.releases import KafkaRelease, protocol_properties
from core.sandbox.security import admin_password
from core.sandbox.security import broker_properties as security_properties

# A broker session of 6 s (the sandbox ZooKeeper ticks every 500 ms): a killed broker leaves /brokers/ids quickly.
BROKER_SESSION_MS = 6000

LOG4J = """log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=${kzc.log.file}
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.org.apache.zookeeper=WARN
log4j.logger.kafka.request.logger=WARN
"""


def broker_properties(broker: BrokerInfo, info: SandboxInfo) -> str:
    """The ``server.properties`` of ``broker``: its listeners and log dirs, the sandbox's small-machine settings,
    its release's own, its security listener, and ``info.broker_config`` last (it replaces a key set here)."""
    replication = min(3, len(info.brokers))
    release = KafkaRelease.parse(broker.kafka_version)
    oldest = KafkaRelease.parse(info.versions[0])
    lines = [
        f"broker.id={broker.id}",
        f"listeners=PLAINTEXT://127.0.0.1:{broker.port}",
        f"advertised.listeners=PLAINTEXT://127.0.0.1:{broker.port}",
        f"log.dirs={','.join(str(p) for p in info.log_dir_paths(broker.id))}",
        f"zookeeper.connect={info.zookeeper}",
        f"zookeeper.session.timeout.ms={BROKER_SESSION_MS}",
        # Connecting may take long on a loaded machine (the default is the 6 s session timeout); every release knows it.
        "zookeeper.connection.timeout.ms=60000",
        "auto.create.topics.enable=false",
        *release.broker_properties(replication),
        *protocol_properties(release, oldest),
        # Few threads: a sandbox shares 2 cores with ZooKeeper, two other brokers and the tests.
        "num.network.threads=1",
        "num.io.threads=2",
        "background.threads=2",
        "num.replica.fetchers=1",
        "log.cleaner.enable=false",
        "controlled.shutdown.max.retries=1",
        "controlled.shutdown.retry.backoff.ms=500",
    ]
    if broker.rack:
        lines.append(f"broker.rack={broker.rack}")
    if broker.sasl_port is not None:
        secured = security_properties(release, broker.port, broker.sasl_port, admin_password(Path(info.dir)))
        replaced = {line.split("=", 1)[0] for line in secured}
        lines = [line for line in lines if line.split("=", 1)[0] not in replaced] + secured
    lines = [line for line in lines if line.split("=", 1)[0] not in info.broker_config]
    lines.extend(f"{key}={value}" for key, value in info.broker_config.items())
    return "\n".join(lines) + "\n"
