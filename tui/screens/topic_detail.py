"""The topic detail screen: every partition (leader, epoch, replicas, ISR, preferred leader, health,
``acks=all``, offsets when the brokers are reachable, its size: the leader's replica and the bytes over all
replicas from the brokers' log dirs, ``core.snapshot.sizes``, read every 30 s while the screen is up), the
topic's config overrides and the consumer groups consuming it with their lag on it, live."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Protocol

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Label

from core.console.protocols import (
    AclSource,
    GroupSource,
    OffsetSource,
    PartitionOffsets,
    SizeSource,
    TopicFollower,
    TrafficSource,
    Unsubscribe,
)
from core.console.view import ClusterView, PartitionRow, partition_rows, topic_configs
from core.errors import KzcError
from core.groups.freshness import aged
from core.groups.lag import GroupLag, LagTotal
from core.human_time import clock_text
from core.kafka.znodes import TopicAssignment, Unreadable
from core.kafka.znodes.paths import state_path, topic_path
from core.security.acls import ResourceAccess
from core.snapshot.model import TopicEntry
from core.snapshot.sizes import Size, SizesView
from core.traffic.ticker import TrafficView
from tui.keymap import MUTATION_IDS
from tui.messages import (
    ConfigEditRequested,
    DeleteTopicsRequested,
    ElectionRequested,
    ExpandTopicRequested,
    GroupChosen,
    MessagesChosen,
    TopicEntryChanged,
    ZnodeChosen,
)
from tui.screens.base import KzcScreen
from tui.screens.groups import REFRESH_S, STALE_AFTER_S, TOPIC_GROUP_COLUMNS, topic_group_row, wall_ms
from tui.screens.topics import bytes_cell
from tui.size_reads import SizeReads
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.traffic_panel import PanelContent, TrafficPanel, history_caption, rates_line
from tui.widgets.virtual_table import Column, Row, VirtualTable

PARTITION_COLUMNS = (
    Column("partition", "p", align="right"),
    Column("leader", "leader", align="right"),
    Column("leader_epoch", "epoch", align="right"),
    Column("replicas", "replicas"),
    Column("isr", "isr"),
    Column("preferred_leader", "pref", align="right"),
    Column("health", "health"),
    Column("accepts_acks_all", "acks=all"),
    Column("log_start", "log start", align="right"),
    Column("high_watermark", "high wm", align="right"),
    Column("size", "size", align="right"),  # its leader's replica (DescribeLogDirs)
    Column("on_disk", "on disk", align="right"),  # all its replicas
    Column("note", "note", max_width=200),
)
CONFIG_COLUMNS = (Column("key", "config override", max_width=50), Column("value", "value", max_width=200))
OFFSETS_EVERY_S = 5.0
ACCESS_COLUMNS = (
    Column("principal", "principal", max_width=60),
    Column("host", "host", max_width=40),
    Column("access", "access"),
    Column("operations", "operations (as the brokers decide)", max_width=200),
)


def _ids(values: tuple[int, ...]) -> str:
    return ",".join(map(str, values))


LOADING = "loading…"  # offsets asked for and not (yet) answered, e.g. right after a leader change


def partition_table_row(
    p: PartitionRow, offsets: PartitionOffsets | None, loading: bool = False, size: Size | None = None
) -> Row:
    """The table row of one partition (``loading``: its offsets are being fetched and none are known; ``size``:
    from the brokers' log dirs, None while not read)."""
    start = offsets.log_start if offsets else None
    end = offsets.high_watermark if offsets else None
    # No leader: nobody to ask, so "-" rather than a promise; a led partition's offsets come with the next fetch.
    missing = "" if not loading else (LOADING if p.leader is not None and p.leader >= 0 else "-")
    cells = (
        str(p.partition),
        "-" if p.leader is None else str(p.leader),
        "-" if p.leader_epoch is None else str(p.leader_epoch),
        _ids(p.replicas),
        _ids(p.isr),
        "-" if p.preferred_leader is None else str(p.preferred_leader),
        p.health,
        {True: "yes", False: "NO", None: "?"}[p.accepts_acks_all],
        missing if start is None else f"{start:,}",
        missing if end is None else f"{end:,}",
        bytes_cell(size.size if size is not None else None),
        bytes_cell(size.on_disk if size is not None else None),
        p.note,
    )
    values = (
        p.partition,
        p.leader,
        p.leader_epoch,
        list(p.replicas),
        list(p.isr),
        p.preferred_leader,
        p.health,
        p.accepts_acks_all,
        start,
        end,
        size.size if size is not None else None,
        size.on_disk if size is not None else None,
        p.note,
    )
    return Row(str(p.partition), cells, p.flags, values, p)


class TopicSource(TopicFollower, OffsetSource, GroupSource, SizeSource, AclSource, TrafficSource, Protocol):
    """What the topic detail reads: the topic's znodes, followed, its offsets and log sizes from the brokers,
    the consumer groups consuming it and who the ACLs let do what on it."""


class TopicDetailScreen(KzcScreen):
    """One topic, followed live."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("plus", "expand", "Add partitions", id="expand_topic"),
        Binding("d", "delete", "Delete", id="delete_topic"),
        Binding("z", "znode", "Znode", id="open_znode"),
        Binding("P", "elect_preferred", "Elect preferred", id="elect_preferred"),
        Binding("C", "edit_config", "Config", id="edit_config"),
        Binding("r", "offsets", "Offsets", id="refresh_offsets"),
        Binding("m", "messages", "Messages", id="topic_detail_messages"),
        Binding("M", "partition_messages", "Partition messages", show=False, id="partition_messages"),
        Binding("tab", "app.focus_next", "Next pane", show=False, id="next_pane"),
    ]

    class OffsetsRead(Message):
        """The brokers' offsets of the topic (``offsets`` None: no brokers configured), or why not."""

        def __init__(self, offsets: dict[int, PartitionOffsets] | None, error: str | None = None) -> None:
            super().__init__()
            self.offsets = offsets
            self.error = error

    class GroupsRead(Message):
        """The groups consuming the topic with their lag on it, or why they could not be read."""

        def __init__(self, found: list[tuple[GroupLag, LagTotal]] | str) -> None:
            super().__init__()
            self.found = found

    def __init__(self, topic: str, source: TopicSource, read_only: bool, clock_ms: Callable[[], int] = wall_ms) -> None:
        """``source``: follows the topic and reads its offsets; ``read_only``: hide every mutation."""
        super().__init__()
        self.topic = topic
        self.source = source
        self.read_only = read_only
        self._entry: TopicEntry | None = None
        self._offsets: dict[int, PartitionOffsets] = {}
        self._offsets_wanted = True  # until the brokers say there are none to ask (no --bootstrap-server)
        self._unfollow: Unsubscribe | None = None
        self.clock_ms = clock_ms
        self._groups: list[tuple[GroupLag, LagTotal]] = []
        self._groups_failure: tuple[int, str] | None = None  # the last groups read failed: when, why
        self._sizes: SizesView | None = None
        self._sizes_error: str | None = None
        self._size_reads = SizeReads(self, source, lambda sizes: None, self._sizes_read)

    @property
    def view_name(self) -> str:
        """Exports are named after the topic."""
        return f"topic-{self.topic}"

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        yield Label(f"topic {self.topic}", id="topic-summary")
        yield TrafficPanel(self._derive_traffic, id="topic-traffic")
        yield VirtualTable(PARTITION_COLUMNS, empty_text="no partitions", id="partitions")
        yield VirtualTable(CONFIG_COLUMNS, empty_text="no config overrides (broker defaults apply)", id="configs")
        yield VirtualTable(TOPIC_GROUP_COLUMNS, empty_text="no consumer group", id="topic-groups")
        yield VirtualTable(ACCESS_COLUMNS, empty_text="no ACL applies to this topic", id="topic-access")
        yield KeyBar(hide=MUTATION_IDS if self.read_only else frozenset())

    def on_mount(self) -> None:
        self.query_one("#partitions").border_title = "Partitions"
        self.query_one("#configs").border_title = "Configs"
        groups = self.query_one("#topic-groups", VirtualTable)
        groups.border_title = "Consumer groups"
        groups.display = False  # until a group consuming the topic is seen
        access = self.query_one("#topic-access", VirtualTable)
        access.border_title = "Who can do what (ACLs)"
        access.display = False  # until there is something to say (an ACL applies, or the authorizer is known)
        self.query_one("#partitions", VirtualTable).focus()
        self.follow()
        self.action_offsets()
        self.fetch_groups()
        self._size_reads.start()
        self.query_one("#topic-traffic", TrafficPanel).start(self, self.source)
        self.set_interval(1.0, self._tick_group_ages)

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        self._size_reads.resume()
        self.query_one("#topic-traffic", TrafficPanel).resume()

    def _derive_traffic(self, traffic: TrafficView) -> PanelContent:
        """Worker thread: its messages and bytes in, and the last minutes for the sparkline."""
        history = traffic.topic_history(self.topic)
        lines = [rates_line("traffic in", traffic.topic(self.topic), traffic), history_caption(history)]
        return PanelContent(lines, [v for v in history if v is not None])

    def _sizes_read(self, sizes: SizesView | None, _: None, error: str | None) -> None:
        self._sizes_error = error
        if sizes is not None:
            self._sizes = sizes
        if self.latest_view is not None:
            self._draw(self.latest_view)

    @work(thread=True, exclusive=True, exit_on_error=False, group="follow")
    def follow(self) -> None:
        """Subscribe to the topic's changes (the callback runs on a backend thread and only posts)."""

        def changed(entry: TopicEntry | None) -> None:
            self.post_message(TopicEntryChanged(self.topic, entry))

        self._unfollow = self.source.follow_topic(self.topic, changed)

    def on_unmount(self) -> None:
        if self._unfollow is not None:
            self._unfollow()

    @on(TopicEntryChanged)
    def _entry_changed(self, message: TopicEntryChanged) -> None:
        self._entry = message.entry
        if self.latest_view is not None:
            self._draw(self.latest_view)

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        """Brokers or cluster defaults may change health too: re-render with the latest entry."""
        if self._entry is None:
            self._entry = view.snapshot.topics.get(self.topic)
        self._draw(view)

    def _draw(self, view: ClusterView) -> None:
        entry = self._entry
        summary = self.query_one("#topic-summary", Label)
        if entry is None:
            pending = self.topic in view.snapshot.deletion_markers
            summary.update(f"topic {self.topic} does not exist" + (" (deletion marker left)" if pending else ""))
            summary.add_class("-offline")
            self.query_one("#partitions", VirtualTable).set_rows([])
            return
        rows = partition_rows(view.snapshot, entry)
        sizes, live = self._sizes, view.snapshot.live_broker_ids()
        self.query_one("#partitions", VirtualTable).set_rows(
            [
                partition_table_row(
                    p,
                    self._offsets.get(p.partition),
                    self._offsets_wanted,
                    sizes.partition(p.replicas, p.leader if p.leader in live else None, (self.topic, p.partition))
                    if sizes is not None
                    else None,
                )
                for p in rows
            ]
        )
        self.query_one("#configs", VirtualTable).set_rows([Row(k, (k, v)) for k, v in topic_configs(entry)])
        summary.update(self._summary_text(entry, rows, view))
        summary.set_class(any("offline" in r.flags for r in rows), "-offline")

    def _summary_text(self, entry: TopicEntry, rows: list[PartitionRow], view: ClusterView) -> str:
        parts = [f"topic {self.topic}"]
        assignment = entry.assignment
        if isinstance(assignment, Unreadable):
            parts.append(f"assignment unreadable: {assignment.reason}")
        elif isinstance(assignment, TopicAssignment):
            rf = len(assignment.partitions[0][1]) if assignment.partitions else 0
            parts.append(f"{assignment.partition_count} partitions · rf {rf}")
            if assignment.topic_id:
                parts.append(f"id {assignment.topic_id}")
        offline = sum(1 for r in rows if "offline" in r.flags)
        urp = sum(1 for r in rows if "under-replicated" in r.flags)
        no_acks = sum(1 for r in rows if r.accepts_acks_all is False)
        unknown = [r for r in rows if r.accepts_acks_all is None]
        if offline:
            parts.append(f"{offline} offline")
        if urp:
            parts.append(f"{urp} under-replicated")
        if no_acks:
            parts.append(f"{no_acks} refuse acks=all")
        if unknown:
            parts.append(f"acks=all {unknown[0].acks_all_text}")
        if self.topic in view.snapshot.deletion_markers:
            parts.append("QUEUED FOR DELETION")
        parts.append(self._size_text(entry, view))
        return " · ".join(parts)

    def _size_text(self, entry: TopicEntry, view: ClusterView) -> str:
        """``size 1.2 GiB, 3.6 GiB on disk (sizes 14:36:40)``, or why unknown."""
        if self._sizes_error is not None:
            return f"size unknown: {self._sizes_error}"
        if self._sizes is None:
            return "size: reading…"
        if not self._sizes.at_ms:
            return self._sizes.footer(self.clock_ms())  # never read: why (e.g. a recording has no brokers)
        size = self._sizes.topic(view.snapshot, entry)
        if size.size is None and size.on_disk is None:
            return f"size unknown ({size.unknown})" if size.unknown else "size unknown"
        text = f"size {bytes_cell(size.size)}, {bytes_cell(size.on_disk)} on disk"
        return text + (f" (? {size.unknown})" if size.unknown else "") + f" · {self._sizes.footer(self.clock_ms())}"

    # ---- offsets -------------------------------------------------------------------------------------

    def action_offsets(self) -> None:
        """Fetch log-start and high-watermark offsets from the brokers (if configured), and the ACLs again."""
        self.fetch_offsets()
        self.fetch_access()

    @work(thread=True, exclusive=True, exit_on_error=False, group="offsets")
    def fetch_offsets(self) -> None:
        """Ask the brokers (worker thread); reschedules itself only after it finished."""
        try:
            offsets = self.source.offsets(self.topic)
        except KzcError as exc:
            self.post_message(self.OffsetsRead(None, str(exc)))
            return
        self.post_message(self.OffsetsRead(None if offsets is None else dict(offsets)))

    @on(OffsetsRead)
    def _offsets_read(self, message: OffsetsRead) -> None:
        if message.error is not None:
            self.notify(f"offsets unavailable: {message.error}", severity="warning", timeout=4)
            self.set_timer(OFFSETS_EVERY_S * 3, self._next_offsets)
            return
        if message.offsets is None:
            self._offsets_wanted = False
        else:
            self._offsets = message.offsets
            self.set_timer(OFFSETS_EVERY_S, self._next_offsets)
        if self.latest_view is not None and self.is_current:
            self._draw(self.latest_view)

    def _next_offsets(self) -> None:
        if self.is_current:
            self.fetch_offsets()

    # ---- who can do what (ACLs) ------------------------------------------------------------------------

    class AccessRead(Message):
        """Who can do what on the topic, or why it could not be read."""

        def __init__(self, found: ResourceAccess | str) -> None:
            super().__init__()
            self.found = found

    @work(thread=True, exclusive=True, exit_on_error=False, group="topic-access")
    def fetch_access(self) -> None:
        """The ACLs that apply to this topic (worker thread): read on opening the screen and with ``r``."""
        try:
            found: ResourceAccess | str = self.source.topic_access(self.topic)
        except KzcError as exc:
            found = str(exc)
        self.post_message(self.AccessRead(found))

    @on(AccessRead)
    def _on_access_read(self, message: AccessRead) -> None:
        self._access_arrived(message.found)

    def _access_arrived(self, found: ResourceAccess | str) -> None:
        if not self.is_mounted:
            return
        table = self.query_one("#topic-access", VirtualTable)
        if isinstance(found, str):
            table.set_rows([])
            table.empty_text = f"ACLs unknown: {found}"
            table.display = True
            return
        table.set_rows(
            [Row(f"{p} {h} {verdict}", (p, h, verdict, ", ".join(ops))) for p, h, verdict, ops in found.rows]
        )
        table.border_title = f"Who can do what (ACLs): {found.authorizer}"[:150]
        table.border_subtitle = "  ".join([*found.patterns, *found.caveats])[:150]
        if found.unreadable:
            table.empty_text = f"{len(found.unreadable)} ACL znodes unreadable (kzc acl list says which)"
        table.display = bool(found.rows) or bool(found.unreadable)

    # ---- consumer groups -----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="topic-groups")
    def fetch_groups(self) -> None:
        """The groups consuming this topic (worker thread); reschedules itself only after it finished."""
        try:
            found: list[tuple[GroupLag, LagTotal]] | str = self.source.groups_of_topic(self.topic)
        except KzcError as exc:
            found = str(exc)
        self.post_message(self.GroupsRead(found))

    @on(GroupsRead)
    def _groups_read(self, message: GroupsRead) -> None:
        found = message.found
        if isinstance(found, str):
            self._groups_failure = (self.clock_ms(), found)
        else:
            self._groups_failure = None
            self._groups = found
        self._draw_groups()
        self.set_timer(REFRESH_S, self._next_groups)

    def _draw_groups(self) -> None:
        """The pane with its ages as they are now: shown once a group consumes the topic, and whenever the
        groups could not be read (it then says why, or marks the rows it keeps stale)."""
        table = self.query_one("#topic-groups", VirtualTable)
        failure = self._groups_failure
        now = self.clock_ms()
        rows = [(aged(g, now, STALE_AFTER_S, failure[1] if failure else None), t) for g, t in self._groups]
        table.set_rows([topic_group_row(group, total) for group, total in rows])
        if failure is not None and not rows:
            table.empty_text = f"consumer groups unknown since {clock_text(failure[0])}: {failure[1]}"
        else:
            table.empty_text = "no consumer group"
        table.display = bool(rows) or failure is not None or table.display

    def _tick_group_ages(self) -> None:
        # Only numbers turning stale change the pane between reads.
        if self.is_current and self._groups and self._groups_failure is None:
            now = self.clock_ms()
            if any(g.stale is None and aged(g, now, STALE_AFTER_S) is not g for g, _ in self._groups):
                self._draw_groups()

    def _next_groups(self) -> None:
        if self.is_current:
            self.fetch_groups()

    @on(VirtualTable.Selected, "#topic-groups")
    def _open_group(self, event: VirtualTable.Selected) -> None:
        self.post_message(GroupChosen(event.row.key))

    # ---- actions -------------------------------------------------------------------------------------

    def action_expand(self) -> None:
        """Add partitions to this topic."""
        self.post_message(ExpandTopicRequested(self.topic))

    def action_delete(self) -> None:
        """Delete this topic."""
        self.post_message(DeleteTopicsRequested(topics=(self.topic,)))

    def action_elect_preferred(self) -> None:
        """Preview a preferred leader election of this topic."""
        self.post_message(ElectionRequested(self.topic))

    def action_edit_config(self) -> None:
        """Change this topic's config overrides, with the diff previewed."""
        self.post_message(ConfigEditRequested(self.topic))

    def action_messages(self) -> None:
        """The topic's messages, every partition (read without a trace)."""
        self.post_message(MessagesChosen(self.topic))

    def action_partition_messages(self) -> None:
        """The messages of the highlighted partition."""
        row = self.query_one("#partitions", VirtualTable).current_row
        if row is not None:
            self.post_message(MessagesChosen(self.topic, int(row.key)))

    def action_znode(self) -> None:
        """Open the topic's znode in the ZooKeeper browser."""
        self.post_message(ZnodeChosen(topic_path(self.topic)))

    @on(VirtualTable.Selected, "#partitions")
    def _partition_znode(self, event: VirtualTable.Selected) -> None:
        self.post_message(ZnodeChosen(state_path(self.topic, event.row.key)))

    def export_payload(self) -> dict[str, Any] | None:
        """Partitions and configs of the topic."""
        return {
            "topic": self.topic,
            "partitions": self.query_one("#partitions", VirtualTable).export_rows(),
            "configs": dict(topic_configs(self._entry)) if self._entry else {},
        }
