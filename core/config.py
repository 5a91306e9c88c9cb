"""Connection settings: what reaches one cluster (``ConnectionSettings``, ``KafkaSecurity``), the parsed config
file (``UserConfig``), how a command's flags and at most one context combine (``resolve_settings``), the
refusals of bad security settings and credentials, and how a cluster is named.

The config file itself, where it is and how its contexts are read and validated, is ``core.config_file``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from string import Formatter
from typing import Any

from core.connect import HostPort, ZkConnect, parse_bootstrap, parse_zookeeper
from core.errors import ConfigError, UsageError

# ZooKeeper's default jute.maxbuffer (bytes): the server refuses any request larger than this, so no znode
# (and no multi-op) of that size can ever be written. A context's jute_maxbuffer may raise it.
JUTE_MAXBUFFER = 1024 * 1024
DEFAULT_SPARK_MASTER = "local[*]"  # where the checks' Spark engine runs when no flag or context names a master
# Credentials from the environment: the safe way besides files, as a command line is visible in ps.
CREDENTIAL_ENV = {
    "zk_auth": "KZC_ZK_AUTH",
    "zk_sasl_password": "KZC_ZK_SASL_PASSWORD",
    "kafka_sasl_password": "KZC_KAFKA_SASL_PASSWORD",
}
# Config keys and flags naming a file that holds a credential, and the setting it fills.
CREDENTIAL_FILES = {
    "zk_auth_file": "zk_auth",
    "zk_sasl_password_file": "zk_sasl_password",
    "kafka_sasl_password_file": "kafka_sasl_password",
}
# Credentials that only come from the environment or a file: never a flag or a plain config value.
FILE_OR_ENV_ONLY = ("kafka_sasl_password",)
KAFKA_SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
KAFKA_SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
# ZooKeeper auth schemes: "digest:alice:pw" as --zk-auth would log in as user "digest".
_AUTH_SCHEMES = ("digest", "sasl", "ip", "world", "auth", "x509", "kerberos")


@dataclass(frozen=True)
class KafkaSecurity:
    """How kzc's Kafka clients authenticate and encrypt: the client side of one listener's security protocol.

    ``core.brokers.client_config.kafka_client_config`` turns it into librdkafka's settings. The password is
    left out of ``repr`` (and so of any log or traceback that prints the settings).
    """

    protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    sasl_username: str | None = None
    sasl_password: str | None = field(default=None, repr=False)
    ssl_ca_location: str | None = None
    ssl_certificate_location: str | None = None
    ssl_key_location: str | None = None

    @property
    def sasl(self) -> bool:
        """Whether the protocol authenticates with SASL."""
        return self.protocol.startswith("SASL_")

    @property
    def tls(self) -> bool:
        """Whether the protocol encrypts with TLS."""
        return self.protocol in ("SSL", "SASL_SSL")


PLAINTEXT = KafkaSecurity()

_URL_FIELDS = ("host", "id")


@dataclass(frozen=True)
class MetricsUrls:
    """Where each broker's Prometheus metrics are (``--metrics-url``, the context's ``metrics_url``): a template
    over the broker's registration (``http://{host}:7071/metrics``; ``{id}`` too) and/or one URL per broker id
    (which wins over the template for that broker)."""

    template: str | None = None
    brokers: tuple[tuple[int, str], ...] = ()

    def url(self, broker_id: int, host: str | None) -> str | None:
        """The URL of broker ``broker_id`` registered on ``host`` (None: no URL for it, or the template needs
        a host and the broker has none)."""
        for known, url in self.brokers:
            if known == broker_id:
                return url
        if self.template is None or (host is None and "{host}" in self.template):
            return None
        shown = f"[{host}]" if host and ":" in host else host
        return self.template.format(host=shown, id=broker_id)


def parse_metrics_urls(values: Sequence[str]) -> MetricsUrls:
    """``--metrics-url`` values: one template and/or ``ID=URL`` items.

    Raises:
        UsageError: not an http(s) URL, a template field other than ``{host}`` and ``{id}``, two templates, or
            a broker given twice.
    """
    template: str | None = None
    brokers: dict[int, str] = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if sep and key.strip().isdigit():
            broker_id, url = int(key), rest.strip()
            if broker_id in brokers:
                raise UsageError(f"--metrics-url gives broker {broker_id} twice")
            brokers[broker_id] = _checked_url(url, f"--metrics-url {value}", template=False)
        elif template is not None:
            raise UsageError(
                f"--metrics-url {value}: a template is already given ({template}); give one template, "
                "and ID=URL for the brokers it does not fit"
            )
        else:
            template = _checked_url(value.strip(), f"--metrics-url {value}", template=True)
    return MetricsUrls(template, tuple(sorted(brokers.items())))


def _checked_url(url: str, where: str, template: bool) -> str:
    if not url.lower().startswith(("http://", "https://")) or len(url) <= len("https://"):
        raise UsageError(f"{where}: give an http:// or https:// URL, e.g. http://{{host}}:7071/metrics")
    if not template:
        return url
    try:
        names = {name for _, name, _, _ in Formatter().parse(url) if name is not None}
    except ValueError as exc:
        raise UsageError(f"{where}: {exc} (literal braces are written {{{{ and }}}})") from None
    if unknown := names - set(_URL_FIELDS):
        raise UsageError(
            f"{where}: unknown field(s) {', '.join(sorted(unknown))}: a template may use {{host}} and {{id}}"
        )
    return url


@dataclass(frozen=True)
class ConnectionSettings:
    """Everything needed to reach one cluster; fields left ``None`` are not set.

    ZooKeeper security follows kazoo: ``zk_auth`` is digest ``user:password``; ``zk_sasl_mechanism``
    (``DIGEST-MD5`` or ``GSSAPI``) with username/password or a service principal; ``zk_tls`` with CA,
    certificate and key files. ``spark_master`` and ``stage_dir`` say where the consistency checks'
    Spark engine runs for this cluster (``core.consistency.spark_engine.SparkSettings``; ``None``:
    ``DEFAULT_SPARK_MASTER``, no staging). ``history`` is the cluster's history store and ``record``
    whether the console records into it (``core.history.location``).
    """

    zookeeper: ZkConnect | None = None
    bootstrap_servers: tuple[HostPort, ...] | None = None
    read_only: bool = False
    context: str | None = None
    session_timeout: float = 10.0
    zk_auth: str | None = field(default=None, repr=False)
    zk_sasl_mechanism: str | None = None
    zk_sasl_username: str | None = None
    zk_sasl_password: str | None = field(default=None, repr=False)
    zk_sasl_service: str | None = None
    zk_sasl_principal: str | None = None
    zk_tls: bool = False
    zk_tls_ca: str | None = None
    zk_tls_cert: str | None = None
    zk_tls_key: str | None = None
    zk_tls_verify_hostname: bool = True
    spark_master: str | None = None
    stage_dir: str | None = None
    jute_maxbuffer: int = JUTE_MAXBUFFER
    read_only_by: str | None = None  # what made it read-only, in words: "--read-only", "context 'x' has ..."
    zk_admin_port: int = 8080  # the servers' AdminServer, asked where a four-letter word is not whitelisted
    history: str | None = None  # the context's history store (kzc record's directory; core.history.location)
    record: bool = False  # the console records this cluster into ``history`` while it runs
    kafka_security_protocol: str | None = None  # None: PLAINTEXT
    kafka_sasl_mechanism: str | None = None
    kafka_sasl_username: str | None = None
    kafka_sasl_password: str | None = field(default=None, repr=False)  # only from KZC_KAFKA_SASL_PASSWORD or a file
    kafka_ssl_ca_location: str | None = None
    kafka_ssl_certificate_location: str | None = None
    kafka_ssl_key_location: str | None = None
    metrics_url: MetricsUrls | None = None  # the brokers' Prometheus metrics (core.metrics)
    # The brokers' authorizer properties kzc cannot read (super.users, allow.everyone.if.no.acl.found: reported
    # as sensitive), as kafka-acls --authorizer-properties takes them: the context's table, then the flags.
    authorizer_properties: tuple[tuple[str, str], ...] = ()

    @property
    def kafka_security(self) -> KafkaSecurity:
        """The security every Kafka client of these settings uses (``PLAINTEXT`` when none is set)."""
        return KafkaSecurity(
            protocol=(self.kafka_security_protocol or "PLAINTEXT").upper(),
            sasl_mechanism=self.kafka_sasl_mechanism.upper() if self.kafka_sasl_mechanism else None,
            sasl_username=self.kafka_sasl_username,
            sasl_password=self.kafka_sasl_password,
            ssl_ca_location=self.kafka_ssl_ca_location,
            ssl_certificate_location=self.kafka_ssl_certificate_location,
            ssl_key_location=self.kafka_ssl_key_location,
        )


_SASL_MECHANISMS = ("DIGEST-MD5", "GSSAPI")


@dataclass(frozen=True)
class UserConfig:
    """The parsed config file."""

    contexts: Mapping[str, ConnectionSettings] = field(default_factory=dict)
    default_context: str | None = None
    theme: str | None = None
    keys: Mapping[str, str] = field(default_factory=dict)
    path: Path | None = None
    warnings: tuple[str, ...] = ()
    broken: Mapping[str, str] = field(default_factory=dict)  # with ``per_context``: context -> why it is unusable


def exposure_warning(path: Path, what: str) -> str | None:
    """A warning when ``path`` (which ``what``) can be read or written by other users, as ssh warns."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if mode & 0o077 == 0:
        return None
    return (
        f"{path} {what} and is accessible by other users (mode {mode & 0o777:04o}): restrict it with chmod 600 {path}"
    )


def read_secret_file(path: str | Path, what: str) -> tuple[str, str | None]:
    """The secret held by ``path`` (its first line) and a warning if others can read the file.

    Raises:
        UsageError: the file cannot be read or is empty.
    """
    file = Path(path).expanduser()
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the {what} file {file}: {getattr(exc, 'strerror', None) or exc}") from exc
    if not lines or not lines[0]:
        raise UsageError(f"the {what} file {file} is empty (expected the secret on its first line)")
    return lines[0], exposure_warning(file, f"holds the {what}")


def check_digest_auth(value: str) -> None:
    """Refuse a ``zk_auth`` value that is not an unambiguous ``USER:PASSWORD`` (the password is never shown).

    Raises:
        UsageError: no ``:``, an empty user, or a scheme prefix such as ``digest:user:pw`` (which
            ZooKeeper would read as user ``digest`` with password ``user:pw``).
    """
    user, sep, rest = value.partition(":")
    expected = "expected USER:PASSWORD (digest is implied), e.g. alice:secret"
    if not sep or not user:
        raise UsageError(f"ZooKeeper digest auth must be USER:PASSWORD: {expected}")
    if user.lower() in _AUTH_SCHEMES and ":" in rest:
        raise UsageError(
            f"ambiguous ZooKeeper auth '{user}:***': it would log in as user '{user}'; {expected} "
            f"(drop the '{user}:' prefix)"
        )


def resolve_settings(
    config: UserConfig,
    *,
    context: str | None = None,
    zookeeper: str | None = None,
    bootstrap_server: str | None = None,
    read_only: bool = False,
    overrides: Mapping[str, Any] | None = None,
) -> ConnectionSettings:
    """The one place a command's cluster is decided: the flags and at most one context.

    - ``--context NAME`` picks that context; flags override its values one by one. A ``--zookeeper``
      naming another ensemble or chroot than the context's is refused: the two would be mixed.
    - Without ``--context``, ``default_context`` applies only when no cluster is named on the command line
      (neither ``--zookeeper`` nor ``--bootstrap-server``): an explicit cluster never borrows a context's
      brokers, credentials or ``read_only``.

    ``read_only`` only ever adds protection; ``read_only_by`` records which setting made it so.

    Raises:
        UsageError: the context does not exist, names another cluster than ``--zookeeper``, or a connect
            string is malformed.
    """
    if context is not None and context not in config.contexts:
        known = ", ".join(sorted(config.contexts)) or "none defined"
        raise UsageError(f"unknown context '{context}' (known: {known}; config file: {config.path})")
    name = context
    if name is None and zookeeper is None and bootstrap_server is None:
        name = config.default_context
    base = config.contexts[name] if name else ConnectionSettings()
    changes: dict[str, Any] = {"context": name}
    if zookeeper is not None:
        changes["zookeeper"] = parse_zookeeper(zookeeper)
        if base.zookeeper is not None and base.zookeeper != changes["zookeeper"]:
            raise UsageError(
                f"--zookeeper {changes['zookeeper']} and --context {name} ({base.zookeeper}) name different "
                "clusters: give one of them"
            )
    if bootstrap_server is not None:
        changes["bootstrap_servers"] = parse_bootstrap(bootstrap_server)
    causes = ["--read-only was given"] if read_only else []
    if base.read_only:
        causes.append(f"context '{name}' has read_only = true")
    changes["read_only"] = bool(causes)
    changes["read_only_by"] = " and ".join(causes) or None
    names = {f.name for f in fields(ConnectionSettings)}
    for key, value in (overrides or {}).items():
        if key not in names:
            raise UsageError(f"unknown connection setting '{key}'")
        if value is not None:
            changes[key] = value
    for key, variable in CREDENTIAL_ENV.items():
        if changes.get(key) is None and (secret := os.environ.get(variable)):
            changes[key] = secret  # the environment overrides the context, a flag overrides both
    settings = replace(base, **changes)
    check_zk_sasl_mechanism(settings.zk_sasl_mechanism, "command line")
    check_kafka_security(settings)
    if settings.zk_auth is not None:
        check_digest_auth(settings.zk_auth)
    return settings


def check_kafka_security(settings: ConnectionSettings) -> None:
    """Refuse Kafka security settings librdkafka would fail on later and obscurely (the password never shown).

    Raises:
        UsageError: an unknown protocol or mechanism, a SASL protocol without mechanism, user or password, or
            SASL settings with a protocol that does not use them.
    """
    where = f"context '{settings.context}'" if settings.context else "command line"
    check_choice(settings.kafka_security_protocol, "kafka_security_protocol", KAFKA_SECURITY_PROTOCOLS, where)
    check_choice(settings.kafka_sasl_mechanism, "kafka_sasl_mechanism", KAFKA_SASL_MECHANISMS, where)
    security = settings.kafka_security
    if not security.sasl:
        if settings.kafka_sasl_mechanism or settings.kafka_sasl_username:
            raise UsageError(
                f"Kafka SASL settings are given but kafka_security_protocol is {security.protocol}: set "
                "--kafka-security-protocol SASL_PLAINTEXT or SASL_SSL (or drop the SASL settings)"
            )
        return
    if not security.sasl_mechanism:
        raise UsageError(
            f"kafka_security_protocol {security.protocol} needs kafka_sasl_mechanism "
            f"({', '.join(KAFKA_SASL_MECHANISMS)}): --kafka-sasl-mechanism or the context's key"
        )
    if not security.sasl_username:
        raise UsageError(
            f"Kafka SASL {security.sasl_mechanism} needs a user: --kafka-sasl-username or the context's key"
        )
    if security.sasl_password is None:
        raise UsageError(
            f"Kafka SASL {security.sasl_mechanism} needs the password of user '{security.sasl_username}': set "
            f"${CREDENTIAL_ENV['kafka_sasl_password']} or --kafka-sasl-password-file FILE (or the context's "
            "kafka_sasl_password_file)"
        )


def read_only_cause(settings: ConnectionSettings) -> str | None:
    """Why ``settings`` are read-only, in words (``--read-only``, the context), or None when they are not."""
    if not settings.read_only:
        return None
    return settings.read_only_by or "read-only mode"


def cluster_name(settings: ConnectionSettings) -> str:
    """How the audit log names a cluster: the context (if any) and the ZooKeeper connect string."""
    target = str(settings.zookeeper) if settings.zookeeper else "no ZooKeeper"
    if settings.zookeeper is None and settings.bootstrap_servers:
        target = "brokers " + ",".join(str(b) for b in settings.bootstrap_servers)
    return f"{settings.context} ({target})" if settings.context else target


def cluster_banner(settings: ConnectionSettings, cluster_id: str | None) -> str:
    """The first line of every preview: which cluster this command acts on (id and connect string)."""
    named = (
        f"cluster {cluster_id}" if cluster_id else "cluster without /cluster/id" if settings.zookeeper else "cluster"
    )
    return f"Cluster: {named} at {cluster_name(settings)}"


def cluster_json(settings: ConnectionSettings, cluster_id: str | None) -> dict[str, str | None]:
    """``cluster_banner`` for ``--json`` previews: ``{"id", "zookeeper", "context"}``."""
    return {
        "id": cluster_id,
        "zookeeper": str(settings.zookeeper) if settings.zookeeper else None,
        "context": settings.context,
    }


def check_zk_sasl_mechanism(mechanism: str | None, where: str) -> None:
    """Refuse a ZooKeeper SASL mechanism other than kazoo's (``DIGEST-MD5``, ``GSSAPI``); raises ConfigError."""
    if mechanism is not None and mechanism.upper() not in _SASL_MECHANISMS:
        raise ConfigError(f"{where}: zk_sasl_mechanism must be one of {', '.join(_SASL_MECHANISMS)}")


def check_choice(value: str | None, key: str, choices: tuple[str, ...], where: str) -> None:
    """Refuse ``value`` of ``key`` unless it is one of ``choices`` (any case); raises UsageError."""
    if value is not None and value.upper() not in choices:
        raise UsageError(f"{where}: {key} must be one of {', '.join(choices)}")
