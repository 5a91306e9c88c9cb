"""The kzc console application: wires the ZooKeeper session to the screens.

Until the full console lands this shows what kzc connected to and the live connection state.
"""

from __future__ import annotations

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Header, Static

from core.config import ConnectionSettings
from core.errors import KzcError
from core.zk_session import ConnectionState, ZkSession
from tui.messages import Connected, ConnectFailed, ConnectionChanged


class KzcApp(App[None]):
    """The console for one cluster."""

    TITLE = "kzc"
    CSS = """
    #summary { padding: 1 2; }
    #state { padding: 0 2; color: $text-muted; }
    """
    BINDINGS = [Binding("q", "quit", "Quit", id="quit")]

    def __init__(self, settings: ConnectionSettings) -> None:
        super().__init__()
        self.settings = settings
        self.session: ZkSession | None = None
        self.sub_title = settings.context or str(settings.zookeeper)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Connecting to ZooKeeper {self.settings.zookeeper} ...", id="summary")
        yield Static("", id="state")
        yield Footer()

    def on_mount(self) -> None:
        self.connect()

    @work(thread=True, exclusive=True, exit_on_error=False, group="zookeeper")
    def connect(self) -> None:
        """Open the ZooKeeper session (worker thread) and report what is there."""
        try:
            session = ZkSession(self.settings)
            session.add_state_listener(self._post_state)
            session.start()
        except KzcError as exc:
            self.post_message(ConnectFailed(str(exc)))
            return
        self.session = session
        children = sorted(session.retry(session.client.get_children, "/"))
        mode = "read-only" if self.settings.read_only else "read-write"
        summary = (
            f"Connected to ZooKeeper {self.settings.zookeeper} (session 0x{session.session_id or 0:x}, {mode})\n"
            f"Top-level znodes: {', '.join(children) or '(none)'}"
        )
        if self.settings.bootstrap_servers:
            summary += "\nBootstrap servers: " + ",".join(str(s) for s in self.settings.bootstrap_servers)
        self.post_message(Connected(summary))

    def _post_state(self, state: ConnectionState) -> None:
        # kazoo's thread: post and return; the handler runs on the UI thread.
        self.post_message(ConnectionChanged(state))

    def on_connected(self, message: Connected) -> None:
        self.query_one("#summary", Static).update(message.summary)

    def on_connect_failed(self, message: ConnectFailed) -> None:
        self.query_one("#summary", Static).update(f"Cannot connect: {message.reason}")

    def on_connection_changed(self, message: ConnectionChanged) -> None:
        self.query_one("#state", Static).update(f"ZooKeeper connection: {message.state.value}")
        if message.state is ConnectionState.SUSPENDED:
            self.notify("ZooKeeper connection suspended; reconnecting", severity="warning")

    def on_unmount(self) -> None:
        if self.session is not None:
            self.session.stop()
