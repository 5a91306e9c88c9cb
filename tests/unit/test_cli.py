"""The command line: global options on either side of the command, security flags over contexts, --version,
--help, exit codes."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from cli.commands import Subcommands
from cli.main import build_parser, main
from cli.options import settings_from_args
from core import __version__
from core.config import ConnectionSettings


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, Subcommands):
            action.load_all()
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _all_commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, sub in _subparsers(parser).items():
        found.append((*prefix, name))
        found += _all_commands(sub, (*prefix, name))
    return found


def test_global_options_mean_the_same_before_or_after_the_command(tmp_path: Path) -> None:
    parser = build_parser()
    config = ["--config", str(tmp_path / "none.toml")]
    before = parser.parse_args([*config, "--zookeeper", "zk1:2181/kafka", "--read-only", "sandbox", "status"])
    after = parser.parse_args(["sandbox", "status", *config, "--zookeeper", "zk1:2181/kafka", "--read-only"])
    middle = parser.parse_args(["sandbox", *config, "--zookeeper", "zk1:2181/kafka", "status", "--read-only"])
    results = [settings_from_args(a) for a in (before, after, middle)]
    assert results[0] == results[1] == results[2]
    assert str(results[0].zookeeper) == "zk1:2181/kafka" and results[0].read_only


def test_an_option_after_the_command_overrides_the_same_option_before_it(tmp_path: Path) -> None:
    args = build_parser().parse_args(
        ["--config", str(tmp_path / "none.toml"), "--zookeeper", "a:1", "sandbox", "status", "--zookeeper", "b:2"]
    )
    assert str(settings_from_args(args).zookeeper) == "b:2"


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"kzc {__version__}"


def test_every_command_has_a_help_that_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    commands = _all_commands(build_parser())
    assert ("sandbox", "up") in commands and ("sandbox", "kill-broker") in commands
    for command in [(), *commands]:
        with pytest.raises(SystemExit) as info:
            main([*command, "--help"])
        assert info.value.code == 0
        out = capsys.readouterr().out
        assert out.startswith(f"usage: kzc {' '.join(command)}".rstrip())
        assert "--zookeeper" in out, f"global options missing from the help of {command}"


@pytest.mark.parametrize("connect", ["zk1:abc", "::1:2181", "zk1:2181/kafka/", ""])
def test_a_malformed_connect_string_exits_2_with_one_line(connect: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--zookeeper", connect, "sandbox", "status", "--dir", "/nonexistent"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kzc: error: ") and "ZooKeeper" in err[0]


def test_json_errors_are_printed_as_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["sandbox", "status", "--json", "--dir", str(tmp_path)]) == 1
    assert "no sandbox in" in json.loads(capsys.readouterr().out)["error"]


def test_the_console_without_a_cluster_explains_how_to_name_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["--config", str(tmp_path / "none.toml")]) == 2
    assert "give --zookeeper" in capsys.readouterr().err


def _settings_for(tmp_path: Path, *argv: str) -> ConnectionSettings:
    config = tmp_path / "config.toml"
    config.write_text(
        '[contexts.secure]\nzookeeper = "zk:2182"\nzk_tls = true\nzk_tls_ca = "/ca.pem"\nzk_sasl_mechanism = "GSSAPI"\n'
    )
    return settings_from_args(build_parser().parse_args(["--config", str(config), "--context", "secure", *argv]))


def test_the_context_s_tls_and_sasl_settings_stand_when_no_flag_is_given(tmp_path: Path) -> None:
    settings = _settings_for(tmp_path, "sandbox", "status")
    assert settings.zk_tls and settings.zk_tls_verify_hostname and settings.zk_tls_ca == "/ca.pem"
    assert settings.zk_sasl_service is None and settings.zk_sasl_principal is None


@pytest.mark.parametrize("after_command", [False, True], ids=["before-command", "after-command"])
def test_every_zookeeper_security_setting_has_a_flag_that_overrides_the_context(
    tmp_path: Path, after_command: bool
) -> None:
    flags = ["--no-zk-tls", "--no-zk-tls-verify-hostname", "--zk-tls-ca", "/other.pem", "--zk-tls-cert", "/c.pem",
             "--zk-tls-key", "/c.key", "--zk-sasl-service", "zk", "--zk-sasl-principal", "ops@EXAMPLE.COM"]  # fmt: skip
    argv = ["sandbox", "status", *flags] if after_command else [*flags, "sandbox", "status"]
    settings = _settings_for(tmp_path, *argv)
    assert not settings.zk_tls and not settings.zk_tls_verify_hostname
    assert (settings.zk_tls_ca, settings.zk_tls_cert, settings.zk_tls_key) == ("/other.pem", "/c.pem", "/c.key")
    assert (settings.zk_sasl_service, settings.zk_sasl_principal) == ("zk", "ops@EXAMPLE.COM")


def test_tls_and_hostname_verification_can_be_switched_on_from_the_command_line(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[contexts.plain]\nzookeeper = "zk:2181"\nzk_tls_verify_hostname = false\n')
    args = ["--config", str(config), "--context", "plain", "--zk-tls", "--zk-tls-verify-hostname"]
    settings = settings_from_args(build_parser().parse_args(args))
    assert settings.zk_tls and settings.zk_tls_verify_hostname


def test_every_config_file_connection_key_has_a_command_line_flag() -> None:
    help_text = " ".join(build_parser().format_help().split())
    for key in ("zk_auth", "zk_sasl_mechanism", "zk_sasl_username", "zk_sasl_password", "zk_sasl_service",
                "zk_sasl_principal", "zk_tls", "zk_tls_ca", "zk_tls_cert", "zk_tls_key", "zk_tls_verify_hostname",
                "session_timeout", "read_only", "bootstrap_server", "zookeeper", "spark_master",
                "stage_dir", "kafka_security_protocol", "kafka_sasl_mechanism", "kafka_sasl_username",
                "kafka_sasl_password_file", "kafka_ssl_ca_location", "kafka_ssl_certificate_location",
                "kafka_ssl_key_location"):  # fmt: skip
        assert f"--{key.replace('_', '-')}" in help_text, key
    assert "--zk-tls, --no-zk-tls " in help_text
    assert "--zk-tls-verify-hostname, --no-zk-tls-verify-hostname " in help_text


SPARK_FLAGS = ["--spark-master", "spark://m:7077", "--stage-dir", "file:///shared/kzc"]


def test_the_console_takes_the_spark_master_and_stage_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    opened: list[ConnectionSettings] = []

    def open_console(settings: ConnectionSettings) -> int:
        opened.append(settings)
        return 0

    monkeypatch.setattr("cli.console_cmd.open_console", open_console)
    assert main(["--config", str(tmp_path / "none.toml"), "--zookeeper", "zk:2181", *SPARK_FLAGS]) == 0
    assert [(s.spark_master, s.stage_dir) for s in opened] == [("spark://m:7077", "file:///shared/kzc")]


def test_without_spark_flags_the_console_leaves_spark_to_its_defaults(tmp_path: Path) -> None:
    settings = settings_from_args(build_parser().parse_args(["--config", str(tmp_path / "none.toml")]))
    assert settings.spark_master is None and settings.stage_dir is None


@pytest.mark.parametrize("after_command", [False, True], ids=["before-command", "after-command"])
def test_kzc_check_takes_the_spark_options_on_either_side(tmp_path: Path, after_command: bool) -> None:
    config = ["--config", str(tmp_path / "none.toml")]
    argv = ["check", *config, *SPARK_FLAGS] if after_command else [*config, *SPARK_FLAGS, "check"]
    settings = settings_from_args(build_parser().parse_args(argv))
    assert (settings.spark_master, settings.stage_dir) == ("spark://m:7077", "file:///shared/kzc")


def test_the_spark_flags_override_the_context_s_spark_settings(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[contexts.c]\nzookeeper = "zk:2181"\nspark_master = "yarn"\nstage_dir = "hdfs:///kzc"\n')
    base = ["--config", str(config), "--context", "c"]
    from_context = settings_from_args(build_parser().parse_args(base))
    assert (from_context.spark_master, from_context.stage_dir) == ("yarn", "hdfs:///kzc")
    flagged = settings_from_args(build_parser().parse_args([*base, "--spark-master", "local[2]"]))
    assert (flagged.spark_master, flagged.stage_dir) == ("local[2]", "hdfs:///kzc")


def test_the_console_and_kzc_check_share_the_spark_options() -> None:
    parser = build_parser()

    def spark_options(p: argparse.ArgumentParser) -> dict[str, tuple[str | None, str | None]]:
        return {
            a.option_strings[0]: (str(a.metavar), a.help)
            for a in p._actions
            if a.option_strings and a.option_strings[0] in ("--spark-master", "--stage-dir")
        }

    console = spark_options(parser)
    assert sorted(console) == ["--spark-master", "--stage-dir"] and "local[*]" in str(console["--spark-master"])
    assert spark_options(_subparsers(parser)["check"]) == console
