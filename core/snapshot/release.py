"""Which Kafka release a cluster's brokers run: exact where a broker answers ApiVersions (``3.9``, dated by
``core.brokers.capabilities.release_floor``), else the era its registration version gives (``2.7+``,
``core.kafka.znodes.brokers.releases_of_registration``), always saying which. The console's cluster screen,
``kzc broker`` and ``kzc fleet`` show it; ``ReleaseAsks`` is when the console and the fleet screen ask again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from core.brokers.capabilities import Capabilities, release_floor
from core.kafka.znodes import BrokerRegistration, Unreadable
from core.kafka.znodes.brokers import releases_of_registration
from core.snapshot.model import ClusterSnapshot

FROM_API_VERSIONS = "ApiVersions"
FROM_REGISTRATION = "registration"
# A broker registers in ZooKeeper before it serves requests (KafkaServer.startup registers, then starts the
# request processors), so one that just (re)registered may not answer ApiVersions yet: the brokers are asked
# again after each of these delays while one is unanswered, then only when the registrations change.
RELEASE_RETRIES_S = (3.0, 10.0, 30.0)

Asked = tuple[tuple[int, BrokerRegistration | Unreadable], ...]  # the registrations the brokers were asked for


@dataclass(frozen=True)
class Release:
    """A broker's release (``3.9``, ``2.7+``, ``unknown``) and where it comes from (None: nowhere)."""

    text: str
    source: str | None

    def __str__(self) -> str:
        return f"{self.text} (from {self.source})" if self.source else self.text

    def to_json(self) -> dict[str, str | None]:
        """``{"release": "3.9", "from": "ApiVersions"}``."""
        return {"release": self.text, "from": self.source}


UNKNOWN = Release("unknown", None)
NOT_RECORDED = Release("not recorded", None)  # a recorded moment: the history store keeps no release


def broker_release(snapshot: ClusterSnapshot, broker_id: int, capabilities: Capabilities | None = None) -> Release:
    """``broker_id``'s release: from its ApiVersions answer in ``capabilities`` when there is one, else from its
    registration; unknown when it is not registered or its registration is unreadable, or at a recorded moment
    (the history store does not keep registration versions)."""
    answer = capabilities.of(broker_id) if capabilities is not None else None
    if answer is not None and answer.ranges is not None:
        return Release(".".join(map(str, release_floor(answer.ranges))), FROM_API_VERSIONS)
    if snapshot.recorded:
        return NOT_RECORDED
    entry = snapshot.brokers.get(broker_id)
    if entry is None or not isinstance(entry.registration, BrokerRegistration):
        return UNKNOWN
    return Release(releases_of_registration(entry.registration.version), FROM_REGISTRATION)


def cluster_release(
    snapshot: ClusterSnapshot, capabilities: Capabilities | None = None, say_source: bool = True
) -> str:
    """The registered brokers' release: ``3.9 (from ApiVersions)``, ``2.7+ (from registration)``, ``mixed: 3.9
    (1, 2), 3.8 (3), from ApiVersions`` (a rolling upgrade), or ``unknown``; without ``say_source``, where
    every release shown has one source the reader knows (``2.7+``, ``mixed: 2.7+ (1, 2), 0.10.2+ (3)``)."""
    by_release: dict[Release, list[int]] = {}
    for broker_id in sorted(snapshot.brokers):
        by_release.setdefault(broker_release(snapshot, broker_id, capabilities), []).append(broker_id)
    if not by_release:
        return UNKNOWN.text
    if len(by_release) == 1:
        only = next(iter(by_release))
        return str(only) if say_source else only.text
    parts = ", ".join(f"{r.text} ({', '.join(map(str, ids))})" for r, ids in by_release.items())
    sources = sorted({r.source for r in by_release if r.source}) if say_source else []
    return f"mixed: {parts}" + (f", from {' and '.join(sources)}" if sources else "")


class ReleaseAsks:
    """When to ask the registered brokers for ApiVersions (their exact release): when their registrations
    change (a restart, an upgrade), and again after each of ``RELEASE_RETRIES_S`` while one does not answer.
    The console's cluster screen and the fleet screen's follower (``core.fleet.follow``) keep one per cluster."""

    def __init__(self) -> None:
        self.asked: Asked | None = None
        self._retries = 0  # asked again for these registrations, after an unanswered broker

    def due(self, registrations: Mapping[int, BrokerRegistration | Unreadable], again: bool = False) -> Asked | None:
        """The registrations to ask for now (noted as asked); None when they were asked already and not
        ``again``. New registrations start the retries afresh."""
        asked = tuple(sorted(registrations.items(), key=lambda item: item[0]))
        if asked == self.asked and not again:
            return None
        if asked != self.asked:
            self._retries = 0
        self.asked = asked
        return asked

    def current(self, asked: Asked) -> bool:
        """Whether ``asked`` are still the registrations last asked for (else a newer answer follows)."""
        return asked == self.asked

    def answered(self, asked: Asked, capabilities: Capabilities) -> float | None:
        """Seconds until the brokers are asked again, now that ``capabilities`` answered for ``asked``; None when
        every broker answered, the retries are spent, or the registrations changed since."""
        if not self.current(asked) or capabilities.unknown() is None or self._retries >= len(RELEASE_RETRIES_S):
            return None
        delay = RELEASE_RETRIES_S[self._retries]
        self._retries += 1
        return delay
