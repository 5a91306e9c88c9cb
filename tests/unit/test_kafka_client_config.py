"""Kafka client security: the settings (contexts, flags, the password only from the environment or a file),
the one maker of librdkafka settings every confluent-kafka client goes through, and the password never shown."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from confluent_kafka import KafkaError
from confluent_kafka.admin import AdminClient

from cli.main import build_parser, main
from cli.options import settings_from_args
from core.brokers.client_config import BrokersDown, HandshakeRefusals, kafka_client_config
from core.brokers.metadata import fetch_served_metadata
from core.config import PLAINTEXT, KafkaSecurity, resolve_settings
from core.config_file import load_config
from core.connect import HostPort, parse_bootstrap
from core.errors import ConfigError, ConnectError, UsageError

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cr3t-Kafka-pw"
CLIENTS = ("AdminClient", "Consumer", "Producer")
MAKER = "core/brokers/client_config.py"


@pytest.fixture(autouse=True)
def _no_password_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KZC_KAFKA_SASL_PASSWORD", raising=False)


def _config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(body)
    return path


SCRAM_CONTEXT = """
[contexts.secure]
zookeeper = "zk:2181"
bootstrap_server = "b1:9093"
kafka_security_protocol = "SASL_SSL"
kafka_sasl_mechanism = "SCRAM-SHA-512"
kafka_sasl_username = "admin"
kafka_sasl_password_file = "{file}"
kafka_ssl_ca_location = "/etc/kafka/ca.pem"
"""


def test_a_context_s_kafka_security_is_read_with_the_password_from_its_file(tmp_path: Path) -> None:
    secret = tmp_path / "pw"
    secret.write_text(SECRET + "\n")
    secret.chmod(0o600)
    config = load_config(_config(tmp_path, SCRAM_CONTEXT.format(file=secret)))
    security = resolve_settings(config, context="secure").kafka_security
    assert security == KafkaSecurity("SASL_SSL", "SCRAM-SHA-512", "admin", SECRET, "/etc/kafka/ca.pem")
    assert security.sasl and security.tls


def test_the_password_comes_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KZC_KAFKA_SASL_PASSWORD", SECRET)
    args = build_parser().parse_args(
        ["--config", str(tmp_path / "none.toml"), "--bootstrap-server", "b:9093",
         "--kafka-security-protocol", "SASL_PLAINTEXT", "--kafka-sasl-mechanism", "SCRAM-SHA-256",
         "--kafka-sasl-username", "admin"]
    )  # fmt: skip
    security = settings_from_args(args).kafka_security
    assert (security.protocol, security.sasl_mechanism, security.sasl_username, security.sasl_password) == (
        "SASL_PLAINTEXT",
        "SCRAM-SHA-256",
        "admin",
        SECRET,
    )


def test_without_settings_every_client_speaks_plaintext(tmp_path: Path) -> None:
    settings = resolve_settings(load_config(tmp_path / "none.toml"), bootstrap_server="b:9092")
    assert settings.kafka_security == PLAINTEXT
    assert kafka_client_config(parse_bootstrap("b:9092"), PLAINTEXT) == {
        "bootstrap.servers": "b:9092",
        "security.protocol": "plaintext",
    }


def test_the_password_on_the_command_line_is_refused_without_echoing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--config", str(tmp_path / "none.toml"), "--kafka-sasl-password", SECRET, "describe"])
    out = capsys.readouterr()
    assert code == 2
    assert "KZC_KAFKA_SASL_PASSWORD" in out.err and "--kafka-sasl-password-file" in out.err
    assert SECRET not in out.out + out.err


def test_the_password_written_in_the_config_file_is_refused_without_echoing_it(tmp_path: Path) -> None:
    path = _config(tmp_path, f'[contexts.c]\nzookeeper = "zk:2181"\nkafka_sasl_password = "{SECRET}"\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "kafka_sasl_password_file" in str(info.value) and SECRET not in str(info.value)


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"kafka_security_protocol": "TLS"}, "kafka_security_protocol must be one of PLAINTEXT, SSL"),
        ({"kafka_security_protocol": "SASL_SSL"}, "needs kafka_sasl_mechanism"),
        ({"kafka_security_protocol": "SASL_SSL", "kafka_sasl_mechanism": "GSSAPI"}, "must be one of PLAIN,"),
        ({"kafka_security_protocol": "SASL_PLAINTEXT", "kafka_sasl_mechanism": "PLAIN"}, "needs a user"),
        (
            {"kafka_security_protocol": "SASL_PLAINTEXT", "kafka_sasl_mechanism": "PLAIN", "kafka_sasl_username": "u"},
            "set $KZC_KAFKA_SASL_PASSWORD or --kafka-sasl-password-file",
        ),
        ({"kafka_sasl_mechanism": "PLAIN", "kafka_sasl_username": "u"}, "kafka_security_protocol is PLAINTEXT"),
    ],
)
def test_incomplete_or_unknown_kafka_security_is_refused_up_front(
    tmp_path: Path, overrides: dict[str, str], fragment: str
) -> None:
    with pytest.raises(UsageError) as info:
        resolve_settings(load_config(tmp_path / "none.toml"), bootstrap_server="b:9093", overrides=overrides)
    assert fragment in str(info.value)


def test_the_password_is_left_out_of_every_repr(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KZC_KAFKA_SASL_PASSWORD", SECRET)
    settings = resolve_settings(
        load_config(tmp_path / "none.toml"),
        bootstrap_server="b:9093",
        overrides={"kafka_security_protocol": "SASL_PLAINTEXT", "kafka_sasl_mechanism": "PLAIN",
                   "kafka_sasl_username": "u"},
    )  # fmt: skip
    assert settings.kafka_sasl_password == SECRET
    assert SECRET not in repr(settings) and SECRET not in repr(settings.kafka_security)


def test_librdkafka_gets_the_sasl_and_tls_settings_of_the_security() -> None:
    security = KafkaSecurity("SASL_SSL", "SCRAM-SHA-256", "admin", SECRET, "/ca.pem", "/c.pem", "/c.key")
    config = kafka_client_config(parse_bootstrap("b1:9093,b2:9093"), security, {"group.id": "g"})
    assert config == {
        "bootstrap.servers": "b1:9093,b2:9093",
        "security.protocol": "sasl_ssl",
        "sasl.mechanism": "SCRAM-SHA-256",
        "sasl.username": "admin",
        "sasl.password": SECRET,
        "ssl.ca.location": "/ca.pem",
        "ssl.certificate.location": "/c.pem",
        "ssl.key.location": "/c.key",
        "group.id": "g",
    }
    ssl_only = kafka_client_config(parse_bootstrap("b:9093"), KafkaSecurity("SSL", ssl_ca_location="/ca.pem"))
    assert ssl_only == {"bootstrap.servers": "b:9093", "security.protocol": "ssl", "ssl.ca.location": "/ca.pem"}


def test_a_caller_cannot_override_the_security_settings() -> None:
    with pytest.raises(ValueError, match="security.protocol"):
        kafka_client_config(parse_bootstrap("b:9092"), PLAINTEXT, {"security.protocol": "plaintext"})


def test_librdkafka_accepts_the_sasl_settings() -> None:
    security = KafkaSecurity("SASL_PLAINTEXT", "SCRAM-SHA-512", "admin", SECRET)
    with AdminClient(kafka_client_config(parse_bootstrap("127.0.0.1:1"), security)) as client:
        assert client is not None


def _client_calls(path: Path) -> list[ast.Call]:
    calls = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in CLIENTS:
                calls.append(node)
    return calls


def _sources() -> list[Path]:
    return [path for package in ("core", "cli", "tui") for path in (ROOT / package).rglob("*.py")]


def test_bootstrap_servers_are_set_only_by_the_one_maker_of_client_settings() -> None:
    """No module but ``core.brokers.client_config`` writes ``bootstrap.servers``: a client configured anywhere
    else would lack the security settings (and speak PLAINTEXT to a SASL or TLS listener)."""
    writers = set()
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value == "bootstrap.servers":
                writers.add(str(path.relative_to(ROOT)))
    assert writers == {MAKER}


def test_every_confluent_kafka_client_is_built_from_the_one_maker() -> None:
    """Each AdminClient/Consumer/Producer is built in a module that uses ``kafka_client_config`` (or the
    reader's ``consumer_config``, built on it), never from a literal dict of settings."""
    found = 0
    for path in _sources():
        calls = _client_calls(path)
        if not calls:
            continue
        found += len(calls)
        text = path.read_text(encoding="utf-8")
        where = str(path.relative_to(ROOT))
        assert "kafka_client_config(" in text or "consumer_config(" in text, where
        for call in calls:
            assert call.args and not isinstance(call.args[0], ast.Dict), f"{where}:{call.lineno}"
    assert found >= 4  # the admin, metadata, message reader and sandbox traffic clients at least


def test_a_refused_login_becomes_a_sentence_naming_what_to_check() -> None:
    refusals = HandshakeRefusals()
    refusals(KafkaError(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down"))
    assert refusals.sentence() is None
    refusals(KafkaError(KafkaError._AUTHENTICATION, "SASL authentication error: invalid credentials"))
    sentence = refusals.sentence()
    assert sentence is not None and sentence.startswith("refused kzc's authentication (SASL authentication error")
    assert "$KZC_KAFKA_SASL_PASSWORD" in sentence and refusals.sentence() is None  # said once
    refusals(KafkaError(KafkaError._SSL, "SSL handshake failed: certificate verify failed"))
    assert "refused kzc's TLS handshake" in (refusals.sentence() or "")


def test_brokers_down_is_told_by_librdkafka_s_all_brokers_down_only() -> None:
    down = BrokersDown()
    down(KafkaError(KafkaError._TRANSPORT, "Connect to ipv4#127.0.0.1:1 failed: Connection refused"))
    assert not down.seen
    down(KafkaError(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down"))
    assert down.seen


def test_reading_metadata_from_an_address_that_refuses_every_connection_says_so_rather_than_time_out() -> None:
    # Port 1: nothing listens. Within the long timeout librdkafka would only retry; the refusal ends the read.
    with pytest.raises(ConnectError, match="no broker accepted the connection"):
        fetch_served_metadata([HostPort("127.0.0.1", 1)], security=KafkaSecurity(), timeout=120)
