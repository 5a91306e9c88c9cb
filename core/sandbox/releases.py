"""The Kafka releases the sandbox runs, 0.10.2 to 3.9: which Maven artifacts make each one run on Java 17,
and which ``server.properties`` settings each one knows.

Facts (checked against each release's Maven poms and ``KafkaConfig``; ``/work/shared/kafka/releases.md``):
- Kafka was built for Scala 2.11 up to 1.1 (2.12 from 0.10.2 too), 2.12 for 2.0 to 2.4, 2.13 from 2.5.
- log4j 1 releases bind slf4j with ``slf4j-log4j12``; from 3.1 Kafka ships ``slf4j-reload4j`` instead.
- On Java 17, releases before 1.1 need ``javax.xml.bind:jaxb-api`` (they call ``DatatypeConverter``).
- ``transaction.state.log.*`` and ``group.initial.rebalance.delay.ms`` came with 0.11 (KIP-98, KIP-134).
- ``delete.topic.enable`` defaults to false before 1.0: the sandbox always sets it to true.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.errors import UsageError

DEFAULT_VERSION = "3.9.1"
OLDEST = (0, 10, 2)
NEWEST_MAJOR = 3  # the last releases with ZooKeeper mode
# The releases `make test-versions` runs, one per minor line where kzc's paths or Kafka's facts change.
TESTED_VERSIONS = ("0.10.2.2", "0.11.0.3", "1.1.1", "2.0.1", "2.4.1", "2.8.2", "3.0.2", "3.4.1", "3.9.1")

_VERSION = re.compile(r"^\d+(\.\d+){2,3}$")
_JAXB = "javax.xml.bind:jaxb-api:2.3.1"
_SLF4J_LOG4J12 = "org.slf4j:slf4j-log4j12:1.7.30"
_SLF4J_RELOAD4J = "org.slf4j:slf4j-reload4j:1.7.36"
# ZooKeeper's 3.4.13-3.4.14 clients (Kafka 2.0 to 2.3) cannot connect on Java 17 here (UnresolvedAddressException;
# 3.4.14: "Unable to canonicalize address"); 3.4.10, the client of Kafka 1.1, can and speaks the same API.
_ZOOKEEPER_CLIENT = "org.apache.zookeeper:zookeeper:3.4.10"


@dataclass(frozen=True, order=True)
class KafkaRelease:
    """One Kafka release, by the version Maven Central publishes it under (``0.10.2.2``, ``2.4.1``, ``3.9.1``)."""

    parts: tuple[int, ...]

    @classmethod
    def parse(cls, version: str) -> KafkaRelease:
        """The release of ``version``.

        Raises:
            UsageError: not a full release number, or a release the sandbox cannot run in ZooKeeper mode.
        """
        text = version.strip()
        if not _VERSION.match(text):
            raise UsageError(
                f"Kafka version {version!r}: give a full release number as published on Maven Central, "
                "e.g. 0.10.2.2, 2.4.1 or 3.9.1"
            )
        release = cls(tuple(int(p) for p in text.split(".")))
        if release.parts < OLDEST or release.parts[0] > NEWEST_MAJOR:
            raise UsageError(
                f"Kafka {text}: the sandbox runs releases 0.10.2 to 3.9 (ZooKeeper mode; 4.0 dropped ZooKeeper)"
            )
        return release

    @property
    def version(self) -> str:
        """The version as Maven publishes it."""
        return ".".join(map(str, self.parts))

    @property
    def minor(self) -> str:
        """``major.minor`` (``0.10.2`` for 0.10 releases): what ``inter.broker.protocol.version`` takes."""
        return ".".join(map(str, self.parts[:3] if self.parts[0] == 0 else self.parts[:2]))

    def at_least(self, *parts: int) -> bool:
        """True iff this release is ``parts`` or newer."""
        return self.parts >= parts

    @property
    def scala(self) -> str:
        """The Scala build the sandbox uses for this release."""
        if not self.at_least(2, 0):
            return "2.11"
        return "2.12" if not self.at_least(2, 5) else "2.13"

    @property
    def artifacts(self) -> tuple[str, ...]:
        """The Maven artifacts (``group:artifact:version``) whose runtime closure runs this release's broker."""
        binding = _SLF4J_RELOAD4J if self.at_least(3, 1) else _SLF4J_LOG4J12
        extra = (_JAXB,) if not self.at_least(1, 1) else ()
        if self.at_least(2, 0) and not self.at_least(2, 4):
            extra = (_ZOOKEEPER_CLIENT,)
        return (f"org.apache.kafka:kafka_{self.scala}:{self.version}", binding, *extra)

    @property
    def jar_dir_name(self) -> str:
        """The folder of this release's jars below the jar cache."""
        return f"kafka_{self.scala}-{self.version}"

    def broker_properties(self, replication: int) -> list[str]:
        """The sandbox's release-dependent ``server.properties`` lines (settings the release knows)."""
        lines = [
            "delete.topic.enable=true",
            f"offsets.topic.replication.factor={replication}",
            "offsets.topic.num.partitions=3",
        ]
        if self.at_least(0, 11):
            lines += [
                f"transaction.state.log.replication.factor={replication}",
                "transaction.state.log.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
            ]
        return lines


DEFAULT_RELEASE = KafkaRelease.parse(DEFAULT_VERSION)


def protocol_properties(release: KafkaRelease, oldest: KafkaRelease) -> list[str]:
    """What a broker of ``release`` needs in a cluster whose oldest broker runs ``oldest`` (a rolling upgrade
    half done): Kafka's upgrade notes keep ``inter.broker.protocol.version`` (and, before 3.0,
    ``log.message.format.version``) at the oldest release until every broker runs the new one."""
    if release.minor == oldest.minor:
        return []
    lines = [f"inter.broker.protocol.version={oldest.minor}"]
    if not oldest.at_least(3, 0):
        lines.append(f"log.message.format.version={oldest.minor}")
    return lines
