"""The ZooKeeper browser: a lazy tree with child counts (huge child lists come in pages), and the pane of
the selected znode (Kafka data explained field by field, JSON pretty-printed, text or hex; stat; ACL),
which follows the znode live. ``g`` jumps to a path, ``y`` copies it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Label, Static, Tree
from textual.widgets.tree import TreeNode

from core.console.protocols import Unsubscribe, ZnodeBrowser
from core.kafka.znodes import Unreadable
from core.zookeeper.tree import ChildPage, ZnodeView
from tui.dialogs.jump import JumpDialog
from tui.messages import ZnodeChanged
from tui.screens.base import KzcScreen
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.virtual_table import Column, Row, VirtualTable

PAGE = 200  # children per page: a Tree node with 50k children took 1.5 s to expand
DATA_LINES = 400  # lines of data shown; export (e) writes everything
EXPLAIN_COLUMNS = (
    Column("field", "field", max_width=28),
    Column("value", "value", max_width=60),
    Column("meaning", "meaning", max_width=200),
)


@dataclass
class NodeData:
    """What a tree node stands for: a znode, or the "more children" entry of a paged list."""

    path: str
    count: int | None = None
    loaded: int = 0  # children loaded so far
    total: int | None = None
    more: bool = False  # True for the "… N more" entry


def child_path(parent: str, name: str) -> str:
    """The path of ``name`` under ``parent``."""
    return f"/{name}" if parent == "/" else f"{parent}/{name}"


def node_label(name: str, count: int | None) -> Text:
    """``name (count)``, the count dimmed; no count for leaves."""
    label = Text(name)
    if count:
        label.append(f" ({count:,})", style="dim")
    elif count is None:
        label.append(" (?)", style="dim")
    return label


class ZkBrowserScreen(KzcScreen):
    """Browse ZooKeeper under the Kafka chroot."""

    VIEW_NAME = "znode"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g", "jump", "Jump to path", id="jump_to_path"),
        Binding("y", "copy_path", "Copy path", id="copy_path"),
        Binding("r", "reload", "Reload", id="reload_znode"),
    ]

    def __init__(self, browser: ZnodeBrowser, path: str = "/") -> None:
        """``browser``: reads and watches znodes; ``path``: where to open."""
        super().__init__()
        self.browser = browser
        self.path = path
        self._view: ZnodeView | None = None
        self._unwatch: Unsubscribe | None = None
        self._pending_jump: str | None = path

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        with Horizontal(id="zk-body"):
            tree: Tree[NodeData] = Tree("/", NodeData("/"), id="zk-tree")
            tree.show_root = True
            tree.guide_depth = 2
            yield tree
            with VerticalScroll(id="zk-pane"):
                yield Label("", id="zk-path")
                yield Label("", id="zk-kind")
                yield VirtualTable(EXPLAIN_COLUMNS, empty_text="(no Kafka fields)", id="zk-explained")
                yield Static("", id="zk-field", markup=False)
                yield Static("", id="zk-data", markup=False)
                yield Static("", id="zk-meta", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        tree = self.query_one("#zk-tree", Tree)
        tree.focus()
        tree.root.expand()
        self.query_one("#zk-explained").border_title = "Explained"

    def on_unmount(self) -> None:
        if self._unwatch is not None:
            self._unwatch()

    # ---- tree ----------------------------------------------------------------------------------------

    @on(Tree.NodeExpanded, "#zk-tree")
    def _expanded(self, event: Tree.NodeExpanded[NodeData]) -> None:
        data = event.node.data
        if data is not None and data.loaded == 0 and data.count != 0:
            self.load_children(event.node, data.path, 0)

    class PageRead(Message):
        """A page of a znode's children."""

        def __init__(self, node: TreeNode[NodeData], page: ChildPage) -> None:
            super().__init__()
            self.node = node
            self.page = page

    @work(thread=True, exit_on_error=False, group="zk-children")
    def load_children(self, node: TreeNode[NodeData], path: str, offset: int) -> None:
        """Fetch a page of children (worker thread)."""
        page = self.browser.children(path, offset, PAGE)
        self.post_message(self.PageRead(node, page))

    @on(PageRead)
    def _on_page_read(self, message: PageRead) -> None:
        self._add_page(message.node, message.page)

    def _add_page(self, node: TreeNode[NodeData], page: ChildPage) -> None:
        data = node.data
        if data is None:
            return
        for child in list(node.children):
            if child.data is not None and child.data.more:
                child.remove()
        known = {c.data.path for c in node.children if c.data is not None}
        for name, count in zip(page.names, page.counts, strict=True):
            path = child_path(page.path, name)
            if path in known:
                continue
            node.add(node_label(name, count), NodeData(path, count), allow_expand=count != 0)
        data.loaded = page.offset + len(page.names)
        data.total = page.total
        if page.has_more:
            left = page.total - data.loaded
            label = Text(f"… {left:,} more (Enter loads {min(PAGE, left):,})", style="italic")
            node.add_leaf(label, NodeData(page.path, loaded=data.loaded, more=True))
        if not node.is_expanded:
            node.expand()
        self._continue_jump()

    @on(Tree.NodeSelected, "#zk-tree")
    def _selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        data = event.node.data
        if data is not None and data.more and event.node.parent is not None:
            self.load_children(event.node.parent, data.path, data.loaded)

    @on(Tree.NodeHighlighted, "#zk-tree")
    def _highlighted(self, event: Tree.NodeHighlighted[NodeData]) -> None:
        data = event.node.data
        # While a jump is under way the cursor passes other nodes (the root first): the pane keeps the target.
        if data is not None and not data.more and self._pending_jump in (None, data.path):
            self.show_path(data.path)

    # ---- the znode pane ------------------------------------------------------------------------------

    def show_path(self, path: str) -> None:
        """Show ``path`` in the pane and follow it live."""
        if path != self.path or self._view is None:
            self.path = path
            if self._unwatch is not None:
                self._unwatch()
                self._unwatch = None
            self.follow_path(path)
        self.fetch(path)

    @work(thread=True, exclusive=True, exit_on_error=False, group="zk-watch")
    def follow_path(self, path: str) -> None:
        """Watch ``path`` (worker thread); the callback only posts."""

        def changed(changed_path: str) -> None:
            self.post_message(ZnodeChanged(changed_path))

        self._unwatch = self.browser.watch_znode(path, changed)

    class ZnodeRead(Message):
        """A znode's data and stat (None: gone)."""

        def __init__(self, path: str, view: ZnodeView | None) -> None:
            super().__init__()
            self.path = path
            self.view = view

    @work(thread=True, exclusive=True, exit_on_error=False, group="zk-fetch")
    def fetch(self, path: str) -> None:
        """Read the znode (worker thread)."""
        view = self.browser.znode(path)
        self.post_message(self.ZnodeRead(path, view))

    @on(ZnodeRead)
    def _on_znode_read(self, message: ZnodeRead) -> None:
        self._show_znode(message.path, message.view)

    @on(ZnodeChanged)
    def _changed(self, message: ZnodeChanged) -> None:
        if message.path == self.path:
            self.fetch(self.path)
            self._refresh_node_count(message.path)

    def _refresh_node_count(self, path: str) -> None:
        node = self._find(path)
        if node is not None and node.data is not None and node.is_expanded:
            node.data.loaded = 0
            node.remove_children()
            self.load_children(node, path, 0)

    def _show_znode(self, path: str, view: ZnodeView | None) -> None:
        if path != self.path:
            return
        self._view = view
        self.query_one("#zk-path", Label).update(path)
        kind = self.query_one("#zk-kind", Label)
        explained = self.query_one("#zk-explained", VirtualTable)
        data = self.query_one("#zk-data", Static)
        meta = self.query_one("#zk-meta", Static)
        if view is None:
            kind.update("this znode does not exist (any more)")
            kind.add_class("-unreadable")
            explained.set_rows([])
            self._show_field(None)
            data.update("")
            meta.update("")
            return
        decoded = view.data
        unreadable = isinstance(decoded.parsed, Unreadable)
        kafka_kind = view.kafka_kind
        what = kafka_kind.value if kafka_kind is not None else "not a Kafka znode"
        unreadable_text = " · UNREADABLE" if unreadable else ""
        kind.update(f"{what} · {len(view.raw):,} bytes shown as {decoded.kind}{unreadable_text}")
        kind.set_class(unreadable, "-unreadable")
        rows = view.explained()
        explained.set_rows([Row(str(i), (f, v, m)) for i, (f, v, m) in enumerate(rows)])
        explained.display = bool(rows)
        self._show_field(explained.current_row)
        text = decoded.text
        lines = text.splitlines()
        if len(lines) > DATA_LINES:
            text = "\n".join(lines[:DATA_LINES]) + f"\n… {len(lines) - DATA_LINES:,} more lines (e exports all)"
        data.update(text or "(no data)")
        meta.update(_meta_text(view))

    @on(VirtualTable.Highlighted, "#zk-explained")
    def _field_highlighted(self, event: VirtualTable.Highlighted) -> None:
        self._show_field(event.row)

    def _show_field(self, row: Row | None) -> None:
        """The highlighted field whole, wrapped: its value and meaning never fit the table's columns."""
        field = self.query_one("#zk-field", Static)
        field.update(f"{row.cells[0]} = {row.cells[1]}\n{row.cells[2]}" if row is not None else "")
        field.display = row is not None

    # ---- jump, copy, reload --------------------------------------------------------------------------

    def jump(self, path: str) -> None:
        """Open the tree down to ``path`` and select it."""
        self._pending_jump = path
        self.show_path(path)
        if self.is_mounted:
            self._continue_jump()

    def _continue_jump(self) -> None:
        target = self._pending_jump
        if target is None:
            return
        tree = self.query_one("#zk-tree", Tree)
        node: TreeNode[NodeData] = tree.root
        if target != "/":
            parts = target.strip("/").split("/")
            for depth in range(1, len(parts) + 1):
                path = "/" + "/".join(parts[:depth])
                child = next((c for c in node.children if c.data is not None and c.data.path == path), None)
                if child is None:
                    data = node.data
                    if data is not None and data.loaded == 0 and data.count != 0:
                        if not node.is_expanded:
                            node.expand()  # loads the first page; the jump continues from _add_page
                        return
                    # Not in the loaded page(s): add it right here so the jump never waits for 50k names.
                    child = node.add(node_label(parts[depth - 1], None), NodeData(path))
                if not node.is_expanded:
                    node.expand()
                node = child
        self._pending_jump = None

        def select() -> None:
            # A node's line is known once the tree lays its lines out, which it does when idle: a refresh
            # may come first. Asking for a line lays them out now (else the cursor could miss the node).
            tree.get_node_at_line(0)
            tree.move_cursor(node)
            tree.scroll_to_node(node, animate=False)

        self.call_after_refresh(select)

    def _find(self, path: str) -> TreeNode[NodeData] | None:
        stack = [self.query_one("#zk-tree", Tree).root]
        while stack:
            node = stack.pop()
            if node.data is not None and node.data.path == path and not node.data.more:
                return node
            stack.extend(node.children)
        return None

    def action_jump(self) -> None:
        """Ask for a path and go there."""

        def done(path: str | None) -> None:
            if path:
                self.jump(path)

        self.app.push_screen(JumpDialog(self.path), done)

    def action_copy_path(self) -> None:
        """Copy the path to the clipboard (OSC 52: works over SSH in most terminals)."""
        self.app.copy_to_clipboard(self.path)
        self.notify(f"copied {self.path}", timeout=3)

    def action_reload(self) -> None:
        """Re-read the znode and its children."""
        self.fetch(self.path)
        self._refresh_node_count(self.path)

    def export_payload(self) -> dict[str, Any] | None:
        """The znode as shown, in the form of ``kzc zk get --json``."""
        return None if self._view is None else self._view.to_json()


def _when(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ms / 1000))


def _meta_text(view: ZnodeView) -> str:
    stat = view.stat
    owner = f"ephemeral (session 0x{stat.ephemeral_owner:x})" if stat.ephemeral else "persistent"
    lines = [
        f"{owner} · {stat.data_length:,} bytes · {stat.num_children:,} children",
        f"version {stat.version} · cversion {stat.cversion} · aversion {stat.aversion}",
        f"created  {_when(stat.ctime_ms)} · czxid 0x{stat.czxid:x}",
        f"modified {_when(stat.mtime_ms)} · mzxid 0x{stat.mzxid:x}",
        f"pzxid 0x{stat.pzxid:x}",
    ]
    if view.acl_error:
        lines.append(f"ACL not readable: {view.acl_error}")
    for entry in view.acl:
        lines.append(f"ACL {entry.perms} {entry.scheme}:{entry.id}")
    return "\n".join(lines)
