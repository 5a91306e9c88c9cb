"""Global command-line options and how they become ``ConnectionSettings``."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from cli.commands import help_of
from core.config import (
    CREDENTIAL_ENV,
    CREDENTIAL_FILES,
    DEFAULT_SPARK_MASTER,
    FILE_OR_ENV_ONLY,
    KAFKA_SASL_MECHANISMS,
    KAFKA_SECURITY_PROTOCOLS,
    ConnectionSettings,
    parse_metrics_urls,
    read_secret_file,
    resolve_settings,
)
from core.config_file import load_config
from core.errors import UsageError
from core.history.location import STORE_ENV
from core.human_time import parse_duration, parse_moment, utc_text

# (flags, keyword arguments) of every global option; the ZooKeeper security ones map 1:1 onto
# ConnectionSettings fields (and config-file keys) of the same name. The on/off ones (--zk-tls and
# --no-zk-tls...) default to None, "not given", so a context's value stands unless a flag says otherwise.
_GLOBAL_OPTIONS: list[tuple[tuple[str, ...], dict[str, object]]] = [
    (
        ("--zookeeper",),
        {"metavar": "HOST:PORT[,...][/chroot]", "help": "ZooKeeper connect string (IPv6 as [::1]:2181)"},
    ),
    (("--bootstrap-server",), {"metavar": "HOST:PORT[,...]", "help": "Kafka brokers to use for admin operations"}),
    (("--context",), {"metavar": "NAME", "help": "a named cluster profile from the config file"}),
    (("--config",), {"metavar": "FILE", "help": "config file (default: ~/.config/kzc/config.toml)"}),
    (("--read-only",), {"action": "store_true", "help": "refuse every mutation"}),
    (
        ("--zk-auth",),
        {
            "metavar": "USER:PASSWORD",
            "help": "ZooKeeper digest authentication (visible in ps: prefer --zk-auth-file or KZC_ZK_AUTH)",
        },
    ),
    (("--zk-auth-file",), {"metavar": "FILE", "help": "file holding USER:PASSWORD for ZooKeeper digest auth"}),
    (("--zk-sasl-mechanism",), {"choices": ["DIGEST-MD5", "GSSAPI"], "help": "ZooKeeper SASL mechanism"}),
    (("--zk-sasl-username",), {"metavar": "USER", "help": "ZooKeeper SASL user (DIGEST-MD5)"}),
    (
        ("--zk-sasl-password",),
        {
            "metavar": "PASSWORD",
            "help": "ZooKeeper SASL password (visible in ps: prefer --zk-sasl-password-file or KZC_ZK_SASL_PASSWORD)",
        },
    ),
    (("--zk-sasl-password-file",), {"metavar": "FILE", "help": "file holding the ZooKeeper SASL password"}),
    (("--zk-sasl-service",), {"metavar": "NAME", "help": "ZooKeeper SASL service name (GSSAPI)"}),
    (("--zk-sasl-principal",), {"metavar": "PRINCIPAL", "help": "ZooKeeper SASL principal (GSSAPI)"}),
    (("--zk-tls",), {"action": argparse.BooleanOptionalAction, "help": "connect to ZooKeeper over TLS (or not)"}),
    (("--zk-tls-ca",), {"metavar": "FILE", "help": "CA certificate file for ZooKeeper TLS"}),
    (("--zk-tls-cert",), {"metavar": "FILE", "help": "client certificate file for ZooKeeper TLS"}),
    (("--zk-tls-key",), {"metavar": "FILE", "help": "client key file for ZooKeeper TLS"}),
    (
        ("--zk-tls-verify-hostname",),
        {
            "action": argparse.BooleanOptionalAction,
            "help": "check that ZooKeeper's TLS certificate names the host connected to (default: on; the CA is "
            "always checked)",
        },
    ),
    (
        ("--kafka-security-protocol",),
        {"choices": list(KAFKA_SECURITY_PROTOCOLS), "help": "the brokers' listener protocol (default: PLAINTEXT)"},
    ),
    (("--kafka-sasl-mechanism",), {"choices": list(KAFKA_SASL_MECHANISMS), "help": "Kafka SASL mechanism"}),
    (("--kafka-sasl-username",), {"metavar": "USER", "help": "Kafka SASL user"}),
    (
        ("--kafka-sasl-password-file",),
        {"metavar": "FILE", "help": "file holding the Kafka SASL password (or $KZC_KAFKA_SASL_PASSWORD)"},
    ),
    # Refused with a pointer to the file or the environment: a password on the command line is seen in ps.
    (("--kafka-sasl-password",), {"metavar": "PASSWORD", "help": argparse.SUPPRESS}),
    (("--kafka-ssl-ca-location",), {"metavar": "FILE", "help": "CA certificate file for Kafka TLS (SSL, SASL_SSL)"}),
    (("--kafka-ssl-certificate-location",), {"metavar": "FILE", "help": "client certificate file for Kafka TLS"}),
    (("--kafka-ssl-key-location",), {"metavar": "FILE", "help": "client key file for Kafka TLS"}),
    (
        ("--metrics-url",),
        {
            "action": "append",
            "metavar": "URL|ID=URL",
            "help": "the brokers' Prometheus metrics (JMX exporter): a template over each broker's registration, "
            "e.g. http://{host}:7071/metrics ({id} too), or one broker's URL as ID=URL (repeatable)",
        },
    ),
    (("--session-timeout",), {"type": float, "metavar": "SECONDS", "help": "ZooKeeper session timeout"}),
    (
        ("--jute-maxbuffer",),
        {
            "type": int,
            "metavar": "BYTES",
            "help": "the ZooKeeper servers' jute.maxbuffer: writes above it are refused up front (default 1 MiB)",
        },
    ),
    (
        ("--zk-admin-port",),
        {
            "type": int,
            "metavar": "PORT",
            "help": "the ZooKeeper servers' AdminServer port, for their health where four-letter words are not "
            "whitelisted (default 8080)",
        },
    ),
]
# Where the Spark engine of the checks runs: on the console's command line and on `kzc check`'s, nowhere
# else. They map onto the ConnectionSettings fields (and context keys) spark_master and stage_dir.
_SPARK_OPTIONS: list[tuple[tuple[str, ...], dict[str, object]]] = [
    (
        ("--spark-master",),
        {
            "metavar": "M",
            "help": f"Spark master (spark://, yarn, k8s://) or Spark Connect sc://host:port for the checks "
            f"(default: the context's spark_master, else {DEFAULT_SPARK_MASTER})",
        },
    ),
    (
        ("--stage-dir",),
        {
            "metavar": "DIR",
            "help": "directory the Spark cluster can read (file://, hdfs://, s3a://): the snapshot is staged there "
            "as Parquet (default: the context's stage_dir, if any)",
        },
    ),
]
_OVERRIDES = ("zk_auth", "zk_sasl_mechanism", "zk_sasl_username", "zk_sasl_password", "zk_sasl_service",
              "zk_sasl_principal", "zk_tls", "zk_tls_ca", "zk_tls_cert", "zk_tls_key", "zk_tls_verify_hostname",
              "session_timeout", "spark_master", "stage_dir", "jute_maxbuffer", "zk_admin_port",
              "kafka_security_protocol", "kafka_sasl_mechanism", "kafka_sasl_username", "kafka_ssl_ca_location",
              "kafka_ssl_certificate_location", "kafka_ssl_key_location")  # fmt: skip
_SPARK_KEYS = ("spark_master", "stage_dir")


class MalformedArguments(UsageError):
    """argparse refused the command line; ``str()`` is its one-line reason with a pointer to ``--help``."""


class KzcArgumentParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose refusals are one line, not a usage block: it raises ``MalformedArguments``
    (exit 2, printed by ``cli.main`` as ``kzc: error: ...`` or, with ``--json``, ``{"error": ...}``).

    Subcommand parsers are of this class too (argparse builds them with their parent's class).
    """

    def error(self, message: str) -> NoReturn:
        raise MalformedArguments(f"{message} (see {self.prog} --help)")

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """As argparse, but arguments left over point at the help of the command they were given to, and a
        moment ago given after its option (``--at -45m``, ``--until -5m``) is that option's value."""
        if args is not None:
            args = _joined_moments(list(args))
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(parsed, "command", None)
            words = [w for w in (command, getattr(parsed, f"{command}_command", None)) if w]
            raise MalformedArguments(
                f"unrecognized arguments: {' '.join(extras)} (see {' '.join([self.prog, *words])} --help)"
            )
        return parsed


_AGO = re.compile(r"-\d+(\.\d+)?[smhdw]\w*$")  # -45m, -1h30m: a moment ago (argparse takes it for an option)


def _joined_moments(args: list[str]) -> list[str]:
    """``--at -45m`` as ``--at=-45m``: no kzc option looks like a duration."""
    out: list[str] = []
    for word in args:
        if out and _AGO.match(word) and out[-1].startswith("--") and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={word}"
        else:
            out.append(word)
    return out


def add_global_options(parser: argparse.ArgumentParser, suppress: bool) -> None:
    """Add the global options to ``parser``.

    On subcommand parsers ``suppress`` is True: an option not given there leaves the value parsed
    before the subcommand untouched, which is what lets global options go on either side.
    """
    _add_options(parser.add_argument_group("global options"), _GLOBAL_OPTIONS, suppress)


def add_spark_options(parser: argparse.ArgumentParser, suppress: bool) -> None:
    """Add ``--spark-master`` and ``--stage-dir`` (where the checks' Spark engine runs) to ``parser``.

    The console's parser (the top-level one) and ``kzc check`` share them; ``suppress`` as for
    ``add_global_options``, so ``kzc --spark-master M check`` and ``kzc check --spark-master M`` agree.
    Not given, they leave the context's ``spark_master`` / ``stage_dir`` as they are.
    """
    _add_options(parser.add_argument_group("Spark engine of the checks"), _SPARK_OPTIONS, suppress)


def _add_options(
    group: argparse._ArgumentGroup, options: list[tuple[tuple[str, ...], dict[str, object]]], suppress: bool
) -> None:
    for flags, kwargs in options:
        option = dict(kwargs)
        if suppress:
            option["default"] = argparse.SUPPRESS
        elif option.get("action") == "store_true":
            option["default"] = False
        group.add_argument(*flags, **option)  # type: ignore[arg-type]


def add_console_options(parser: argparse.ArgumentParser) -> None:
    """Add the console's history options (top-level parser only): ``--record``, ``--store DIR`` and ``--at TIME``.

    They fill the settings ``record`` and ``history`` (as the context's ``record = true`` and
    ``history = "DIR"`` do), so the console records and reads the store ``core.history.location`` names.
    """
    parser.add_argument(
        "--fleet",
        action="store_true",
        help="open the console on the fleet: one row per context of the config file, worst first (as kzc fleet); "
        "Enter opens that cluster, Esc comes back",
    )
    group = parser.add_argument_group("history (the console)")
    group.add_argument(
        "--record",
        action="store_true",
        help="record the cluster into its history store while the console runs (as kzc record does)",
    )
    group.add_argument(
        "--store",
        dest="console_store",
        metavar="DIR",
        help=f"the history store the console records into and reads (default: the context's history, else "
        f"${STORE_ENV})",
    )
    group.add_argument(
        "--at",
        metavar="TIME",
        help="open the console read-only on the cluster as the history store knows it at TIME: 2026-11-28 03:12 "
        "(UTC), -45m, ISO or epoch ms; [ and ] step to the previous and next recorded change, { and } by a minute",
    )


def global_parent() -> argparse.ArgumentParser:
    """A parent parser carrying the global options, for every subcommand parser."""
    parent = argparse.ArgumentParser(add_help=False)
    add_global_options(parent, suppress=True)
    return parent


def settings_from_args(args: argparse.Namespace) -> ConnectionSettings:
    """Resolve the connection settings from the config file and the parsed options (see ``resolve``)."""
    return resolve(args)[0]


def resolve(args: argparse.Namespace) -> tuple[ConnectionSettings, list[str]]:
    """The connection settings from the config file, the environment and the options, with warnings.

    The warnings say when credentials are exposed: a config file or secret file other users can read
    (as ssh warns), or a password typed on the command line (every user sees it in ``ps``).

    Raises:
        UsageError: unknown context, malformed connect string, unreadable secret file, ambiguous
            ``--zk-auth``.
        ConfigError: the config file is invalid.
    """
    for target in FILE_OR_ENV_ONLY:
        if getattr(args, target, None) is not None:
            raise UsageError(
                f"--{target.replace('_', '-')} is not accepted on the command line (every user of this machine "
                f"sees it in ps): set ${CREDENTIAL_ENV[target]} or give --{target.replace('_', '-')}-file FILE"
            )
    path = Path(args.config).expanduser() if args.config else None
    if getattr(args, "every_context", False):
        # Where the checks' one Spark engine runs is not a cluster's setting (kzc check --contexts).
        spark = ConnectionSettings(
            spark_master=getattr(args, "spark_master", None), stage_dir=getattr(args, "stage_dir", None)
        )
        return spark, _every_context(args, path)
    config = load_config(path)
    warnings = list(config.warnings)
    overrides: dict[str, object] = {key: getattr(args, key, None) for key in _OVERRIDES}
    overrides["history"] = getattr(args, "console_store", None)
    overrides["record"] = True if getattr(args, "record", False) else None
    if metrics := getattr(args, "metrics_url", None):
        overrides["metrics_url"] = parse_metrics_urls(metrics)
    for option, target in CREDENTIAL_FILES.items():
        flag = "--" + target.replace("_", "-")
        if getattr(args, target, None) is not None:
            warnings.append(
                f"{flag} on the command line is visible to every user of this machine (ps); use "
                f"--{option.replace('_', '-')} FILE or ${CREDENTIAL_ENV[target]} instead"
            )
        file = getattr(args, option, None)
        if file is None:
            continue
        if overrides.get(target) is not None:
            raise UsageError(f"give {flag} or --{option.replace('_', '-')}, not both")
        secret, warning = read_secret_file(file, target)
        overrides[target] = secret
        if warning is not None:
            warnings.append(warning)
    if (limit := overrides.get("jute_maxbuffer")) is not None and not (isinstance(limit, int) and limit > 0):
        raise UsageError("--jute-maxbuffer must be a positive number of bytes")
    if (port := overrides.get("zk_admin_port")) is not None and not (isinstance(port, int) and 1 <= port <= 65535):
        raise UsageError("--zk-admin-port must be a port number (1-65535)")
    settings = resolve_settings(
        config,
        context=args.context,
        zookeeper=args.zookeeper,
        bootstrap_server=args.bootstrap_server,
        read_only=args.read_only,
        overrides=overrides,
    )
    return settings, warnings


def _every_context(args: argparse.Namespace, path: Path | None) -> list[str]:
    """For a command over every context (``kzc fleet``): the config file's warnings, its contexts read one by
    one (a broken one is that context's row, not a refusal); flags that name one cluster are refused.

    Raises:
        UsageError: a flag naming one cluster or its credentials was given.
        ConfigError: the file itself is unreadable.
    """
    overrides = [key for key in _OVERRIDES if key not in _SPARK_KEYS or not getattr(args, "every_context_spark", False)]
    cluster_flags = ("zookeeper", "bootstrap_server", "context", *overrides, *CREDENTIAL_FILES)
    given = [f"--{key.replace('_', '-')}" for key in cluster_flags if getattr(args, key, None) is not None]
    if given or getattr(args, "read_only", False):
        raise UsageError(
            f"kzc {args.command} reads every context with its own settings: {', '.join(given) or '--read-only'} "
            "cannot apply to all of them (choose contexts with --contexts NAME,...)"
        )
    return list(load_config(path, per_context=True).warnings)


def add_command(sub: Any, name: str, help_text: str | None = None, json_flag: bool = True) -> argparse.ArgumentParser:
    """Add subcommand ``name`` to the ``sub`` action, with the global options and usually ``--json``.

    A top-level command gives no ``help_text``: its one-line help is the command table's
    (``cli.commands.COMMANDS``), which ``kzc --help`` lists without importing the command's module.
    """
    if help_text is None:
        help_text = help_of(name)
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=help_text, description=help_text, parents=[global_parent()]
    )
    if json_flag:
        parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    return parser


def parse_timeout(text: str) -> float:
    """``--timeout SECONDS``: a positive number of seconds (``not > 0`` also refuses nan)."""
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"--timeout must be a number of seconds, got '{text}'") from None
    if not value > 0:
        raise UsageError("--timeout must be positive")
    return value


def duration_option(text: str, flag: str) -> float:
    """A duration option (``15m``, ``10s``: ``core.human_time.parse_duration``) in seconds.

    Raises:
        UsageError: not a duration, named by its flag.
    """
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def past_moment_option(text: str, flag: str, now_ms: int) -> int:
    """A moment option (``2026-11-28 03:12`` UTC, ``-45m``, ISO, epoch ms: ``core.human_time.parse_moment``) in
    epoch ms, not after ``now_ms``.

    Raises:
        UsageError: not a moment, or in the future, named by its flag.
    """
    try:
        moment = parse_moment(text, now_ms)
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None
    if moment > now_ms:
        raise UsageError(f"{flag} {text} is in the future ({utc_text(moment)}; now is {utc_text(now_ms)})")
    return moment


def positive_duration(text: str, flag: str) -> float:
    """A duration option that must be above zero.

    Raises:
        UsageError: not a duration, or zero.
    """
    value = duration_option(text, flag)
    if value <= 0:
        raise UsageError(f"{flag} must be positive")
    return value


def add_via_option(parser: argparse.ArgumentParser, request: str) -> None:
    """``--via admin|zookeeper``, the one option that forces a mutation's path (``write_route``); ``request``
    names what the brokers are sent (``CreateAcls/DeleteAcls``)."""
    from core.brokers.capabilities import VIAS

    parser.add_argument(
        "--via",
        choices=VIAS,
        default=None,
        help=f"force the path: the brokers ({request}) or ZooKeeper (default: the brokers when "
        "--bootstrap-server is given and they serve it)",
    )
