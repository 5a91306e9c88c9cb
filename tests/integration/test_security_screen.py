"""The console's security screen on a real secured sandbox: an ACL, a quota and a SCRAM user that ``kzc acl
add``, ``kzc quota set`` and ``kzc user set-password`` wrote appear in its three tabs, read through the
ZooKeeper backend by the same functions as the CLI; the password appears nowhere on it."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.console.zk import ZkBackend
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run
from tests.integration.sandbox_tools import eventually
from tui.app import KzcApp
from tui.screens.security import SecurityScreen
from tui.widgets.virtual_table import VirtualTable

PASSWORD = "pw-" + uuid.uuid4().hex


async def test_what_the_cli_adds_appears_in_the_security_screen(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KZC_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    monkeypatch.setenv("KZC_TEST_PASSWORD", PASSWORD)
    zookeeper = secured.info().zookeeper
    user, topic, client = f"u{uuid.uuid4().hex[:6]}", f"t{uuid.uuid4().hex[:6]}", f"c{uuid.uuid4().hex[:6]}"
    for argv in (
        ("acl", "add", "--principal", f"User:{user}", "--operation", "Read", "--topic", topic, "--yes"),
        ("quota", "set", "--client-id", client, "producer_byte_rate=1048576", "--yes"),
        ("user", "set-password", user, "--mechanism", "SCRAM-SHA-512", "--iterations", "8192", "--password-env",
         "KZC_TEST_PASSWORD", "--yes"),
    ):  # fmt: skip
        code, _, err = run(capsys, *argv, "--zookeeper", zookeeper)
        assert code == 0, err

    settings = ConnectionSettings(zookeeper=parse_zookeeper(zookeeper))
    app = KzcApp(settings, backend=ZkBackend(settings), warm_spark=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await eventually(pilot, lambda: app.view is not None, 60, "the first view")
        await pilot.press("A")
        screen = await eventually(
            pilot, lambda: app.screen if isinstance(app.screen, SecurityScreen) else None, 10, "the security screen"
        )

        def rows(tab: str) -> list[tuple[str, ...]]:
            return [r.cells for r in screen.query_one(f"#security-{tab}", VirtualTable).visible_rows()]

        acl = ("Topic", "LITERAL", topic, f"User:{user}", "*", "Read", "Allow")
        await eventually(pilot, lambda: acl in rows("acls"), 30, "the ACL kzc added")
        await eventually(pilot, lambda: rows("quotas"), 30, "the quotas")
        assert ("client-id", "-", client, "producer_byte_rate=1048576") in rows("quotas")
        await eventually(pilot, lambda: rows("users"), 30, "the SCRAM users")
        assert (user, "SCRAM-SHA-512", "8192") in rows("users")
        assert "from no --bootstrap-server" in str(screen.query_one("#security-source").render())
        shown = " ".join(" ".join(c) for tab in ("acls", "quotas", "users") for c in rows(tab))
        assert PASSWORD not in shown and "salt" not in shown
