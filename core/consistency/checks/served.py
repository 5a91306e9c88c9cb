"""What the brokers serve against ZooKeeper (``--bootstrap-server``)."""

from __future__ import annotations

from dataclasses import dataclass

from core.consistency.checks.text import ids, tp
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where

Ints = tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MetadataMismatch(Evidence):
    """``differs`` names the fields that differ; ``zk_<field>``/``served_<field>`` hold each side's value."""

    check = "metadata_mismatch"
    differs: tuple[str, ...]
    side: str | None = None  # a topic or partition only one side knows: "zookeeper" or "brokers"
    zk_brokers: Ints | None = None
    served_brokers: Ints | None = None
    zk_leader: int | None = None
    served_leader: int | None = None
    zk_isr: Ints | None = None
    served_isr: Ints | None = None
    zk_replicas: Ints | None = None
    served_replicas: Ints | None = None

    def sentence(self, at: Where) -> str:
        if at.topic is None:
            return (
                f"Brokers report live brokers {ids(self.served_brokers)} while /brokers/ids holds "
                f"{ids(self.zk_brokers)}."
            )
        if self.differs == ("topic",):
            where = (
                "ZooKeeper has it but no broker serves it"
                if self.side == "zookeeper"
                else "brokers serve it but ZooKeeper has no such topic"
            )
            return f"Topic '{at.topic}': {where}."
        if self.differs == ("partition",):
            where = (
                "ZooKeeper has it but no broker serves it"
                if self.side == "zookeeper"
                else "brokers serve it but ZooKeeper has no such partition"
            )
            return f"Partition {tp(at.topic, at.partition)}: {where}."
        sides = {
            "leader": (self.zk_leader, self.served_leader),
            "isr": (self.zk_isr, self.served_isr),
            "replicas": (self.zk_replicas, self.served_replicas),
        }
        parts = [f"{name} {ids(sides[name][0])} in ZooKeeper, {ids(sides[name][1])} served" for name in self.differs]
        return f"Partition {tp(at.topic, at.partition)} differs: {'; '.join(parts)}."


METADATA_MISMATCH = Check(
    CheckSpec(
        "metadata_mismatch",
        Severity.WARNING,
        Subject.PARTITION,
        "Brokers serve different metadata than ZooKeeper holds",
        "Brokers learn leaders, ISRs and replicas from the controller (UpdateMetadata); a lasting difference "
        "means a broker missed updates or ZooKeeper was edited behind the controller's back.",
        "§2.5",
        needs_brokers=True,
    ),
    MetadataMismatch,
    "partitions",
    ("served",),
)
