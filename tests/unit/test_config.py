"""Contexts from the config file and how command-line flags combine with them."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.config import cluster_banner, cluster_json, read_only_cause, resolve_settings
from core.config_file import load_config
from core.connect import parse_zookeeper
from core.errors import ConfigError, UsageError

CONFIG = """
default_context = "prod"
theme = "light"

[keys]
quit = "ctrl+q"

[contexts.prod]
zookeeper = "zk1:2181,zk2:2181/kafka"
bootstrap_server = "b1:9092"
read_only = true
session_timeout = 15
zk_auth = "ops:secret"

[contexts.stage]
zookeeper = "[::1]:2181/kafka-stage"
zk_tls = true
zk_tls_ca = "/etc/ssl/zk-ca.pem"
spark_master = "spark://spark-stage:7077"
stage_dir = "hdfs:///tmp/kzc"
"""


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    return path


def test_the_default_context_applies_without_flags(config_file: Path) -> None:
    settings = resolve_settings(load_config(config_file))
    assert settings.context == "prod"
    assert settings.zookeeper == parse_zookeeper("zk1:2181,zk2:2181/kafka")
    assert settings.read_only and settings.session_timeout == 15.0 and settings.zk_auth == "ops:secret"


def test_a_named_context_is_selected_and_flags_override_it(config_file: Path) -> None:
    settings = resolve_settings(load_config(config_file), context="stage", bootstrap_server="b9:9092")
    assert settings.zookeeper == parse_zookeeper("[::1]:2181/kafka-stage")
    assert settings.zk_tls and settings.zk_tls_ca == "/etc/ssl/zk-ca.pem"
    assert [str(b) for b in settings.bootstrap_servers or ()] == ["b9:9092"]
    same = resolve_settings(load_config(config_file), context="stage", zookeeper="[::1]:2181/kafka-stage")
    assert same.zk_tls and same.context == "stage"


def test_a_named_context_and_a_zookeeper_of_another_cluster_are_refused(config_file: Path) -> None:
    with pytest.raises(UsageError, match="name different clusters"):
        resolve_settings(load_config(config_file), context="stage", zookeeper="other:2181")


@pytest.mark.parametrize(
    "flags", [{"zookeeper": "sandbox:2181/kafka"}, {"bootstrap_server": "b9:9092"}], ids=["zookeeper", "brokers"]
)
def test_the_default_context_never_applies_to_a_cluster_named_on_the_command_line(
    config_file: Path, flags: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KZC_ZK_AUTH", raising=False)
    settings = resolve_settings(load_config(config_file), **flags)
    # Nothing of "prod" (its brokers, credentials, read_only, session timeout) leaks into the named cluster.
    assert settings.context is None and not settings.read_only and settings.zk_auth is None
    assert settings.session_timeout == 10.0
    if "zookeeper" in flags:
        assert str(settings.zookeeper) == "sandbox:2181/kafka" and settings.bootstrap_servers is None
    else:
        assert settings.zookeeper is None


def test_read_only_names_what_set_it(config_file: Path) -> None:
    config = load_config(config_file)
    assert read_only_cause(resolve_settings(config, zookeeper="z:2181", read_only=True)) == "--read-only was given"
    assert read_only_cause(resolve_settings(config)) == "context 'prod' has read_only = true"
    assert read_only_cause(resolve_settings(config, context="stage", read_only=True)) == "--read-only was given"
    assert read_only_cause(resolve_settings(config, context="stage")) is None


def test_a_context_s_spark_settings_are_read_and_flags_override_them(config_file: Path) -> None:
    config = load_config(config_file)
    stage = resolve_settings(config, context="stage")
    assert (stage.spark_master, stage.stage_dir) == ("spark://spark-stage:7077", "hdfs:///tmp/kzc")
    flagged = resolve_settings(config, context="stage", overrides={"spark_master": "yarn", "stage_dir": None})
    assert (flagged.spark_master, flagged.stage_dir) == ("yarn", "hdfs:///tmp/kzc")
    prod = resolve_settings(config, context="prod")
    assert prod.spark_master is None and prod.stage_dir is None


def test_read_only_from_a_context_cannot_be_turned_off_by_flags(config_file: Path) -> None:
    assert resolve_settings(load_config(config_file), context="prod", read_only=False).read_only
    assert resolve_settings(load_config(config_file), context="stage", read_only=True).read_only


def test_keys_and_theme_are_read(config_file: Path) -> None:
    config = load_config(config_file)
    assert config.keys == {"quit": "ctrl+q"} and config.theme == "light"


def test_a_missing_config_file_is_an_empty_config(tmp_path: Path) -> None:
    config = load_config(tmp_path / "absent.toml")
    assert config.contexts == {} and resolve_settings(config).zookeeper is None


def test_an_unknown_context_is_a_usage_error_naming_the_known_ones(config_file: Path) -> None:
    with pytest.raises(UsageError, match="unknown context 'dev'.*prod, stage"):
        resolve_settings(load_config(config_file), context="dev")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[contexts.a]\nzookeper = 'x:1'\n", "unknown key\\(s\\) zookeper"),
        ("[contexts.a]\nzookeeper = 'x:abc'\n", "port 'abc'"),
        ("[contexts.a]\nread_only = 'yes'\n", "read_only must be a bool"),
        ("[contexts.a]\nsession_timeout = -1\n", "positive number"),
        ("[contexts.a]\nspark_master = 7077\n", "spark_master must be a str"),
        ("[contexts.a]\nstagedir = '/tmp'\n", "unknown key\\(s\\) stagedir"),
        ("[contexts.a]\nzk_sasl_mechanism = 'PLAIN'\n", "DIGEST-MD5, GSSAPI"),
        ("default_context = 'b'\n[contexts.a]\n", "not a defined context"),
        ("colour = 'red'\n", "unknown key"),
        ("[contexts\n", "cannot read config file"),
    ],
)
def test_invalid_config_files_are_rejected_with_the_reason(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=fragment):
        load_config(path)


def test_every_preview_names_the_cluster_by_id_connect_string_and_context(config_file: Path) -> None:
    config = load_config(config_file)
    plain = resolve_settings(config, zookeeper="127.0.0.1:2181/kafka")
    assert cluster_banner(plain, "abc") == "Cluster: cluster abc at 127.0.0.1:2181/kafka"
    assert cluster_banner(plain, None) == "Cluster: cluster without /cluster/id at 127.0.0.1:2181/kafka"
    assert cluster_banner(resolve_settings(config), "abc") == "Cluster: cluster abc at prod (zk1:2181,zk2:2181/kafka)"
    assert cluster_json(plain, "abc") == {"id": "abc", "zookeeper": "127.0.0.1:2181/kafka", "context": None}


def test_authorizer_properties_quoted_or_dotted_keys_and_booleans(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[contexts.a]\nzookeeper = "z:2181"\n'
        'authorizer_properties = { "super.users" = "User:admin", "allow.everyone.if.no.acl.found" = true }\n'
        '[contexts.b]\nzookeeper = "z:2181"\n[contexts.b.authorizer_properties]\nsuper.users = "User:ops"\n'
    )
    contexts = load_config(path).contexts
    assert contexts["a"].authorizer_properties == (
        ("super.users", "User:admin"),
        ("allow.everyone.if.no.acl.found", "true"),
    )
    assert contexts["b"].authorizer_properties == (("super.users", "User:ops"),)
    path.write_text('[contexts.c]\nzookeeper = "z:2181"\nauthorizer_properties = { "super.users" = 3 }\n')
    with pytest.raises(ConfigError, match="authorizer_properties.super.users must be a string or a boolean"):
        load_config(path)
