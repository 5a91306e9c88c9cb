"""Every command reaches a cluster through ``core.zookeeper.kafka_root.open_kafka_session`` (the wrong-chroot
rule): no other module of ``cli`` or ``core`` builds a ``ZkSession`` except those listed here, with why."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Modules allowed to build a ZkSession themselves, and why.
ALLOWED = {
    "core/zookeeper/kafka_root.py": "the opener itself, and its search of the chroots without one",
    "cli/zk_cmd.py": "kzc zk ls/get browse raw ZooKeeper: they warn (no_kafka_cluster) instead of refusing",
    "core/console/zk.py": "the console's backend: calls require_kafka_cluster right after connecting",
    "core/consistency/pipeline.py": "kzc check's own read: calls require_kafka_cluster right after connecting",
    "core/fleet/follow.py": "the fleet screen's watch sessions outlive a read: require_kafka_cluster after connecting",
}
# The allowed modules other than the opener and the raw browser must apply the rule themselves.
MUST_REQUIRE = ("core/console/zk.py", "core/consistency/pipeline.py", "core/fleet/follow.py")


def _builds_session(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name == "ZkSession":
                return True
    return False


def test_only_the_opener_and_the_listed_modules_build_a_zookeeper_session() -> None:
    builders = {
        str(path.relative_to(ROOT))
        for package in ("cli", "core")
        for path in (ROOT / package).rglob("*.py")
        if _builds_session(path)
    }
    assert builders <= set(ALLOWED), f"use core.zookeeper.kafka_root.open_kafka_session in {builders - set(ALLOWED)}"


def test_the_listed_modules_that_connect_on_their_own_apply_the_wrong_chroot_rule() -> None:
    for module in MUST_REQUIRE:
        assert "require_kafka_cluster(" in (ROOT / module).read_text(encoding="utf-8"), module
