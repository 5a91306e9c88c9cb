"""The user's config file: where it is, and its named cluster contexts, key remaps and theme read and validated
into a ``core.config.UserConfig`` (``load_config``).

The file is TOML at ``$KZC_CONFIG``, else ``$XDG_CONFIG_HOME/kzc/config.toml``, else
``~/.config/kzc/config.toml``. Its format is documented in ``docs/configuration.md``.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.config import (
    CREDENTIAL_ENV,
    CREDENTIAL_FILES,
    FILE_OR_ENV_ONLY,
    KAFKA_SASL_MECHANISMS,
    KAFKA_SECURITY_PROTOCOLS,
    ConnectionSettings,
    MetricsUrls,
    UserConfig,
    check_choice,
    check_zk_sasl_mechanism,
    exposure_warning,
    parse_metrics_urls,
    read_secret_file,
)
from core.connect import parse_bootstrap, parse_zookeeper
from core.errors import ConfigError, UsageError


def config_dir() -> Path:
    """The directory holding the config file, user themes and the audit log."""
    if env := os.environ.get("KZC_CONFIG"):
        return Path(env).expanduser().parent
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kzc"


def config_path() -> Path:
    """The path of the config file (it need not exist)."""
    if env := os.environ.get("KZC_CONFIG"):
        return Path(env).expanduser()
    return config_dir() / "config.toml"


# Context keys in the TOML file -> ConnectionSettings field; everything else is rejected, so typos show.
_CONTEXT_STRINGS = (
    "zk_auth",
    "zk_sasl_mechanism",
    "zk_sasl_username",
    "zk_sasl_password",
    "zk_sasl_service",
    "zk_sasl_principal",
    "zk_tls_ca",
    "zk_tls_cert",
    "zk_tls_key",
    "kafka_security_protocol",
    "kafka_sasl_mechanism",
    "kafka_sasl_username",
    "kafka_ssl_ca_location",
    "kafka_ssl_certificate_location",
    "kafka_ssl_key_location",
    "spark_master",
    "stage_dir",
    "history",
)
_CONTEXT_BOOLS = ("read_only", "zk_tls", "zk_tls_verify_hostname", "record")
_CONTEXT_KEYS = {
    "zookeeper", "bootstrap_server", "session_timeout", "jute_maxbuffer", "zk_admin_port", "metrics_url",
    "authorizer_properties",
    *CREDENTIAL_FILES,
    *_CONTEXT_STRINGS,
    *_CONTEXT_BOOLS,
}  # fmt: skip


def load_config(path: Path | None = None, per_context: bool = False) -> UserConfig:
    """Read the config file; a missing file is an empty config.

    Args:
        per_context: a context with a bad key or value, or an unreadable secret file, is left out of
            ``contexts`` and its reason kept in ``broken`` instead of failing the whole file (``kzc fleet``
            reports it as that context's row; every other command refuses the file).

    Raises:
        ConfigError: the file is not valid TOML or holds an unknown key or a bad value.
    """
    path = path or config_path()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return UserConfig(path=path)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    unknown = set(raw) - {"default_context", "theme", "keys", "contexts"}
    if unknown:
        raise ConfigError(f"config file {path}: unknown key(s) {', '.join(sorted(unknown))}")
    contexts = {}
    broken: dict[str, str] = {}
    for name, table in _table(raw, "contexts", path).items():
        try:
            if not isinstance(table, dict):
                raise ConfigError(f"config file {path}: [contexts.{name}] must be a table")
            contexts[name] = _context(name, table, path)
        except ConfigError as exc:
            if not per_context:
                raise
            broken[name] = str(exc)
    keys = _table(raw, "keys", path)
    if not all(isinstance(v, str) for v in keys.values()):
        raise ConfigError(f'config file {path}: every entry of [keys] must be a string, e.g. quit = "ctrl+q"')
    default = raw.get("default_context")
    if default is not None and default not in contexts and default not in broken:
        raise ConfigError(f"config file {path}: default_context '{default}' is not a defined context")
    theme = raw.get("theme")
    if theme is not None and not isinstance(theme, str):
        raise ConfigError(f"config file {path}: theme must be a string")
    tables = [t for t in _table(raw, "contexts", path).values() if isinstance(t, dict)]
    found = [exposure_warning(path, "holds credentials")] if any(set(t) & set(CREDENTIAL_ENV) for t in tables) else []
    for table in tables:
        for key, target in CREDENTIAL_FILES.items():
            if isinstance(file := table.get(key), str):
                found.append(exposure_warning(Path(file).expanduser(), f"holds the {target}"))
    warnings = tuple(dict.fromkeys(w for w in found if w is not None))
    return UserConfig(
        contexts=contexts, default_context=default, theme=theme, keys=keys, path=path, warnings=warnings, broken=broken
    )


def _table(raw: Mapping[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"config file {path}: '{key}' must be a table")
    return value


def _context(name: str, table: Mapping[str, Any], path: Path) -> ConnectionSettings:
    where = f"config file {path}, context '{name}'"
    for key in FILE_OR_ENV_ONLY:
        if key in table:
            raise ConfigError(
                f"{where}: {key} may not be written in the config file: put it in a file named by {key}_file "
                f"(chmod 600) or in ${CREDENTIAL_ENV[key]}"
            )
    unknown = set(table) - _CONTEXT_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {"context": name}
    try:
        if "zookeeper" in table:
            values["zookeeper"] = parse_zookeeper(_typed(table, "zookeeper", str, where))
        if "bootstrap_server" in table:
            values["bootstrap_servers"] = parse_bootstrap(_typed(table, "bootstrap_server", str, where))
    except UsageError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    if "session_timeout" in table:
        timeout = table["session_timeout"]
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ConfigError(f"{where}: session_timeout must be a positive number of seconds")
        values["session_timeout"] = float(timeout)
    if "jute_maxbuffer" in table:
        limit = table["jute_maxbuffer"]
        if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
            raise ConfigError(f"{where}: jute_maxbuffer must be a positive number of bytes")
        values["jute_maxbuffer"] = limit
    if "zk_admin_port" in table:
        port = table["zk_admin_port"]
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise ConfigError(f"{where}: zk_admin_port must be a port number (1-65535)")
        values["zk_admin_port"] = port
    for key in _CONTEXT_STRINGS:
        if key in table:
            values[key] = _typed(table, key, str, where)
    if "metrics_url" in table:
        values["metrics_url"] = _metrics_url(table["metrics_url"], where)
    if "authorizer_properties" in table:
        values["authorizer_properties"] = _authorizer_properties(table["authorizer_properties"], where)
    for key, target in CREDENTIAL_FILES.items():
        if key in table:
            if target in table:
                raise ConfigError(f"{where}: give {target} or {key}, not both")
            try:
                values[target] = read_secret_file(_typed(table, key, str, where), target)[0]
            except UsageError as exc:
                raise ConfigError(f"{where}: {exc}") from exc
    for key in _CONTEXT_BOOLS:
        if key in table:
            values[key] = _typed(table, key, bool, where)
    check_zk_sasl_mechanism(values.get("zk_sasl_mechanism"), where)
    try:
        check_choice(values.get("kafka_security_protocol"), "kafka_security_protocol", KAFKA_SECURITY_PROTOCOLS, where)
        check_choice(values.get("kafka_sasl_mechanism"), "kafka_sasl_mechanism", KAFKA_SASL_MECHANISMS, where)
    except UsageError as exc:
        raise ConfigError(str(exc)) from exc
    return ConnectionSettings(**values)


def _metrics_url(value: Any, where: str) -> MetricsUrls:
    """A context's ``metrics_url``: a template string, or a table of broker id to URL."""
    if isinstance(value, str):
        items = [value]
    elif isinstance(value, dict) and all(isinstance(k, str) and k.isdigit() for k in value):
        items = [f"{k}={v}" for k, v in value.items() if isinstance(v, str)]
        if len(items) != len(value):
            raise ConfigError(f"{where}: every URL of the metrics_url table must be a string")
    else:
        raise ConfigError(
            f'{where}: metrics_url must be a template string ("http://{{host}}:7071/metrics") or a table of '
            'broker id to URL ({ 1 = "http://10.0.0.1:7071/metrics" })'
        )
    try:
        return parse_metrics_urls(items)
    except UsageError as exc:
        raise ConfigError(f"{where}: {str(exc).replace('--metrics-url', 'metrics_url')}") from exc


def _authorizer_properties(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    """``[contexts.x.authorizer_properties]``: string keys to strings (``super.users``) or booleans."""
    if not isinstance(value, dict):
        raise ConfigError(f'{where}: authorizer_properties must be a table, e.g. {{ "super.users" = "User:admin" }}')
    pairs: list[tuple[str, str]] = []
    for key, item in value.items():
        if isinstance(item, dict):  # TOML reads an unquoted super.users = ... as a nested table
            pairs += [(f"{key}.{k}", v) for k, v in _authorizer_properties(item, where)]
            continue
        if isinstance(item, bool):
            item = str(item).lower()
        if not isinstance(item, str):
            raise ConfigError(f"{where}: authorizer_properties.{key} must be a string or a boolean")
        pairs.append((str(key), item))
    return tuple(pairs)


def _typed(table: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = table[key]
    if not isinstance(value, kind):
        raise ConfigError(f"{where}: {key} must be a {kind.__name__}")
    return value
