"""Client quotas in ZooKeeper, pure: the quota keys each release knows, the entity a quota belongs to,
Kafka's name sanitising, and the one precedence rule that gives a user/client-id its effective quota.

Sources: ``QuotaConfigs`` / ``DynamicConfig.Client`` (``producer_byte_rate``, ``consumer_byte_rate`` 0.9+,
``request_percentage`` 0.11+ (KIP-124), ``controller_mutation_rate`` 2.7+ (KIP-599)), ``Sanitizer``
(entity names are URL-encoded, ``*`` as ``%2A``, a space as ``%20``), and ``ClientQuotaManager``'s
documented order (each quota type separately: the most specific entity that sets it wins)::

    /config/users/<user>/clients/<client-id>
    /config/users/<user>/clients/<default>
    /config/users/<user>
    /config/users/<default>/clients/<client-id>
    /config/users/<default>/clients/<default>
    /config/users/<default>
    /config/clients/<client-id>
    /config/clients/<default>
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

from core.errors import UsageError

DEFAULT = "<default>"
# key -> (value type, first release)
QUOTA_KEYS: dict[str, tuple[type, tuple[int, ...]]] = {
    "producer_byte_rate": (int, (0, 9)),
    "consumer_byte_rate": (int, (0, 9)),
    "request_percentage": (float, (0, 11)),
    "controller_mutation_rate": (float, (2, 7)),
}
USER_QUOTAS_SINCE = (0, 10, 1)


def sanitize(name: str) -> str:
    """``Sanitizer.sanitize``: the znode name of a user or client id (Java's URLEncoder, ``*`` → ``%2A``,
    space → ``%20``, ``~`` → ``%7E``). ``<default>`` is kept as it is."""
    if name == DEFAULT:
        return name
    return urllib.parse.quote(name, safe="-_.").replace("~", "%7E")


def desanitize(name: str) -> str:
    """``Sanitizer.desanitize``: the user or client id of a znode name."""
    return urllib.parse.unquote(name)


@dataclass(frozen=True, slots=True, order=True)
class QuotaEntity:
    """Whose quota: a user, a client id, or both; either may be ``<default>`` (``None``: not part of it)."""

    user: str | None = None
    client_id: str | None = None

    def __post_init__(self) -> None:
        if self.user is None and self.client_id is None:
            raise UsageError("a quota belongs to a user (--user), a client id (--client-id), both, or --default")

    def describe(self) -> str:
        """``user alice, client-id app1`` (``default user`` for ``<default>``)."""
        parts = []
        if self.user is not None:
            parts.append("default user" if self.user == DEFAULT else f"user {self.user}")
        if self.client_id is not None:
            parts.append("default client-id" if self.client_id == DEFAULT else f"client-id {self.client_id}")
        return ", ".join(parts)

    def to_json(self) -> dict[str, str | None]:
        """``{"user", "client_id"}``."""
        return {"user": self.user, "client_id": self.client_id}


def parse_quota(key: str, value: str, release: tuple[int, ...] | None) -> str:
    """``value`` of quota ``key`` as Kafka stores it, checked as ``ConfigDef`` parses it.

    Raises:
        UsageError: an unknown key, a key the release lacks, a value that is not a positive number.
    """
    if key not in QUOTA_KEYS:
        raise UsageError(f"Unknown quota {key!r}: one of {', '.join(QUOTA_KEYS)}")
    kind, since = QUOTA_KEYS[key]
    if release is not None and release < since:
        raise UsageError(
            f"{key} needs Kafka {'.'.join(map(str, since))}+; the oldest broker runs {'.'.join(map(str, release))}"
        )
    try:
        number = kind(value)
    except ValueError:
        raise UsageError(
            f"Invalid value {value} for configuration {key}: Not a number of type {'LONG' if kind is int else 'DOUBLE'}"
        ) from None
    if number <= 0:
        raise UsageError(f"Invalid value {value} for configuration {key}: a quota must be positive")
    return str(number) if kind is int else value


def precedence(user: str, client_id: str) -> list[QuotaEntity]:
    """The eight entities ``ClientQuotaManager`` consults for ``user`` and ``client_id``, most specific first."""
    return [
        QuotaEntity(user, client_id),
        QuotaEntity(user, DEFAULT),
        QuotaEntity(user, None),
        QuotaEntity(DEFAULT, client_id),
        QuotaEntity(DEFAULT, DEFAULT),
        QuotaEntity(DEFAULT, None),
        QuotaEntity(None, client_id),
        QuotaEntity(None, DEFAULT),
    ]


@dataclass(frozen=True, slots=True)
class EffectiveQuota:
    """One quota type's effective value and the entity that sets it (None: unlimited)."""

    key: str
    value: str | None
    source: QuotaEntity | None


def effective_quotas(
    quotas: Mapping[QuotaEntity, Mapping[str, str]], user: str, client_id: str
) -> list[EffectiveQuota]:
    """The quota ``user`` with ``client_id`` gets for each key: from the first of ``precedence`` that sets it.

    ``quotas`` maps each entity with overrides to its quota keys (other keys, such as SCRAM credentials,
    are ignored)."""
    order = precedence(user, client_id)
    found = []
    for key in QUOTA_KEYS:
        source = next((e for e in order if key in quotas.get(e, {})), None)
        found.append(EffectiveQuota(key, quotas[source][key] if source is not None else None, source))
    return found
