"""Fixtures every test shares: unique names, and isolation from the developer's own config, audit log and
exports. The cluster fixtures live in ``tests/integration/conftest.py``.
"""

from __future__ import annotations

import itertools
import os
import signal
import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests import xdist_groups

_counter = itertools.count()

# A run started in the background by a non-interactive shell inherits SIGINT ignored, and so would every kzc the
# tests start (an ignored signal stays ignored across exec): the Ctrl-C tests need kzc to receive it.
signal.signal(signal.SIGINT, signal.default_int_handler)

# pytest-xdist's workers run with COLUMNS=80 and LINES=24 in their environment, and every kzc a test starts in a
# terminal would inherit them: Python's shutil.get_terminal_size (hence Textual) takes them over the terminal's own
# size, so a console started in a 200-column tmux drew 80 columns (two tests failed only under -n 2). A terminal's
# size is the terminal's.
for _size in ("COLUMNS", "LINES"):
    os.environ.pop(_size, None)


def pytest_configure(config: pytest.Config) -> None:
    """Under ``-n N --dist loadgroup``, the controller names the file its workers write the groups to."""
    if config.getoption("dist", "no") == "loadgroup" and not os.environ.get("PYTEST_XDIST_WORKER"):
        handle, path = tempfile.mkstemp(prefix="kzc-xdist-groups-", suffix=".json")
        os.close(handle)
        os.unlink(path)  # written whole by the first worker to collect
        os.environ[xdist_groups.ENV] = path


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.getoption("dist", "no") == "loadgroup" and not os.environ.get("PYTEST_XDIST_WORKER"):
        Path(os.environ.pop(xdist_groups.ENV, "")).unlink(missing_ok=True)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> object:
    """``--dist loadgroup`` with the groups the workers wrote (``tests/xdist_groups.py``: why not xdist's own)."""
    if config.getoption("dist") != "loadgroup":
        return None
    return xdist_groups.GroupScheduling(config, Path(os.environ[xdist_groups.ENV]), log)


@pytest.fixture
def unique_name(request: pytest.FixtureRequest) -> str:
    """A topic name / chroot segment unique to this test."""
    base = "".join(c if c.isalnum() else "-" for c in request.node.name)[:40].strip("-")
    return f"t-{base}-{next(_counter)}-{uuid.uuid4().hex[:6]}"


@pytest.fixture(autouse=True)
def _no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Tests never read the developer's own ~/.config/kzc/config.toml, nor write to their audit log, exports or
    the console's crash log (nor to another xdist worker's: each test has its own)."""
    monkeypatch.setenv("KZC_CONFIG", str(tmp_path / "kzc-config.toml"))
    monkeypatch.setenv("KZC_EXPORT_DIR", str(tmp_path / "exports"))
    monkeypatch.setenv("KZC_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    monkeypatch.setenv("KZC_CRASH_LOG", str(tmp_path / "console-crash.log"))


_INTEGRATION = Path(__file__).parent / "integration"


@pytest.fixture(autouse=True)
def _no_jvm_outside_integration(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The unit and console tiers (``make check``) start no JVM: a test there that would start Spark or a sandbox
    fails at once, naming the tier it belongs to."""
    if _INTEGRATION in Path(str(request.node.path)).parents:
        return
    from core.consistency.spark_engine import SparkEngine
    from core.sandbox.local_cluster import Sandbox
    from core.spark import session

    def refuse(*_args: object, **_kwargs: object) -> None:
        pytest.fail(f"{request.node.nodeid} starts a JVM: it belongs in tests/integration (make check starts none)")

    monkeypatch.setattr(session, "start_session", refuse)
    monkeypatch.setattr(SparkEngine, "start", refuse)
    monkeypatch.setattr(Sandbox, "up", refuse)
