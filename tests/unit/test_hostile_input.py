"""Pure rules behind issue 12: the topic-znode size bound, credentials, masking of secrets in audit lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cli.audit_args import masked, mutation_of
from core.config import check_digest_auth, exposure_warning, read_secret_file, resolve_settings
from core.config_file import load_config
from core.errors import GuardError, UsageError
from core.kafka.znode_size import EMPTY_TOPIC_ZNODE, check_topic_znode_size, digits_in_range, entries_size
from core.kafka.znodes.encode import add_partitions_to_raw, encode_new_topic


@pytest.mark.parametrize(("start", "stop"), [(0, 0), (0, 1), (0, 10), (5, 123), (9, 10_001), (99_990, 100_010)])
def test_digits_in_range_counts_every_digit(start: int, stop: int) -> None:
    assert digits_in_range(start, stop) == sum(len(str(n)) for n in range(start, stop))


def test_the_size_bound_is_exact_for_brokers_of_one_width_and_never_above_the_real_size() -> None:
    assignment = tuple((p, (1 + p % 3, 1 + (p + 1) % 3)) for p in range(1234))
    real = len(encode_new_topic(assignment, version=1))
    assert EMPTY_TOPIC_ZNODE + entries_size(0, 1234, 2, [1, 2, 3]) - 1 == real
    for version in (2, 3):
        assert EMPTY_TOPIC_ZNODE + entries_size(0, 1234, 2, [1, 2, 3]) <= len(encode_new_topic(assignment, version))
    raw = encode_new_topic(assignment[:10], version=3)
    grown = add_partitions_to_raw(raw, assignment[10:])
    assert len(raw) + entries_size(10, 1234, 2, [1, 2, 3]) == len(grown)
    wide = tuple((p, (1000, 7)) for p in range(50))
    assert EMPTY_TOPIC_ZNODE + entries_size(0, 50, 2, [7, 1000]) <= len(encode_new_topic(wide, version=1))


def test_the_largest_int_partition_count_is_refused_in_closed_form() -> None:
    size = EMPTY_TOPIC_ZNODE + entries_size(0, 2**31 - 1, 3, [1, 2, 3])
    assert size == 43_986_045_506  # 2^31-1 entries like "1234567890":[1,2,3], and the braces around them
    with pytest.raises(GuardError, match=r"at least 43,986,045,506 bytes .* jute.maxbuffer is 1,048,576 bytes"):
        check_topic_znode_size("t", size, 1024 * 1024, "2,147,483,647 partitions")
    check_topic_znode_size("t", 1024 * 1024 - 1024, 1024 * 1024, "fits")


@pytest.mark.parametrize("value", ["digest:alice:pw", "sasl:a:b", "IP:x:y", "nocolon", ":pw"])
def test_an_ambiguous_or_malformed_digest_auth_is_refused_without_showing_the_password(value: str) -> None:
    with pytest.raises(UsageError, match="USER:PASSWORD") as error:
        check_digest_auth(value)
    assert "pw" not in str(error.value).replace("PASSWORD", "")


@pytest.mark.parametrize("value", ["alice:pw", "alice:p:w", "super:pw", "digest:pw"])
def test_user_password_values_are_accepted(value: str) -> None:
    check_digest_auth(value)


def test_the_environment_overrides_the_context_and_a_flag_overrides_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file = tmp_path / "config.toml"
    config_file.write_text('[contexts.c]\nzookeeper = "zk:2181"\nzk_auth = "ctx:pw"\n')
    config = load_config(config_file)
    assert resolve_settings(config, context="c").zk_auth == "ctx:pw"
    monkeypatch.setenv("KZC_ZK_AUTH", "env:pw")
    assert resolve_settings(config, context="c").zk_auth == "env:pw"
    assert resolve_settings(config, context="c", overrides={"zk_auth": "flag:pw"}).zk_auth == "flag:pw"


def test_secret_files_are_read_and_warned_about_when_others_can_read_them(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("alice:pw\nignored\n")
    secret.chmod(0o600)
    assert read_secret_file(secret, "zk_auth") == ("alice:pw", None)
    secret.chmod(0o640)
    _, warning = read_secret_file(secret, "zk_auth")
    assert warning is not None and "mode 0640" in warning and f"chmod 600 {secret}" in warning
    with pytest.raises(UsageError, match="cannot read"):
        read_secret_file(tmp_path / "missing", "zk_auth")
    config_file = tmp_path / "config.toml"
    config_file.write_text(f'[contexts.c]\nzookeeper = "zk:2181"\nzk_auth_file = "{secret}"\n')
    config_file.chmod(0o600)
    config = load_config(config_file)
    assert config.contexts["c"].zk_auth == "alice:pw"
    assert any(str(secret) in w for w in config.warnings)  # the secret file is group-readable


def test_a_config_file_without_credentials_is_not_warned_about(tmp_path: Path) -> None:
    config_file = tmp_path / "config.toml"
    config_file.write_text('[contexts.c]\nzookeeper = "zk:2181"\n')
    os.chmod(config_file, 0o644)
    assert load_config(config_file).warnings == ()
    assert exposure_warning(config_file, "x") is not None  # the check itself sees the mode


def test_audit_lines_of_rejected_command_lines_mask_secrets() -> None:
    argv = ["topic", "create", "t", "--zk-auth", "a:b", "--zk-sasl-password=pw"]
    assert mutation_of(argv) == "topic create"
    assert masked(argv) == ["topic", "create", "t", "--zk-auth", "***", "--zk-sasl-password=***"]
    assert mutation_of(["describe", "--zookeeper", "topic"]) is None
