"""Generic ZooKeeper browsing for the tree view and ``kzc zk``: children in pages, data, stat and ACL.

Paths are relative to the session's chroot (the Kafka chroot), so Kafka znodes are recognised and their
data decoded as Kafka JSON (``core.kafka.znodes.decode_data``); any other data shows as UTF-8 text, else
as a hexdump.

**Child lists and paging: the trade-off.** ZooKeeper has no server-side paging: ``getChildren`` returns
every name in one response (300k topic-sized names are ~10 MB, seconds of work for the server, the
network and kazoo). So ``list_children`` first reads the znode's stat (one small request) and knows
``numChildren``. Up to ``large_threshold`` children it fetches the names at once and pages over them in
memory. Above it, it does **not** call ``getChildren`` unless the caller asks (``fetch_large=True``):
the UI shows the count and lets the user decide. When fetched, the sorted names are kept in the
``ChildCursor``, and later pages are slices of that one list (no second fetch); each page re-reads only
the stat, so a list that changed since it was fetched is flagged (``changed``), not silently mixed.
The cost of a huge list is therefore paid once, on request; what cannot be avoided is that one fetch,
and holding the names (about 60 bytes each in Python) for as long as the cursor lives. Not done: probing
predictable names instead of listing (partition numbers, sequential ``..._0000000042`` suffixes below
the parent's ``cversion``), which would page without ``getChildren`` but cannot see gaps cheaply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from kazoo.exceptions import KazooException, NoNodeError
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.security import Permissions

from core.errors import KzcError, UsageError
from core.human_time import utc_text
from core.kafka.znodes import DecodedData, Row, Unreadable, ZnodeKind, classify, decode_data, explain
from core.zookeeper.session import ZkSession

T = TypeVar("T")

DEFAULT_PAGE_SIZE = 500
LARGE_CHILD_COUNT = 10_000  # above this many children, names are fetched only when asked

# zkCli's order and letters for permissions.
_PERMISSION_LETTERS = (
    (Permissions.CREATE, "c"),
    (Permissions.DELETE, "d"),
    (Permissions.READ, "r"),
    (Permissions.WRITE, "w"),
    (Permissions.ADMIN, "a"),
)


@dataclass(frozen=True, slots=True)
class ZnodeStatView:
    """A znode's ZooKeeper stat, with its times also as UTC text."""

    czxid: int
    mzxid: int
    pzxid: int
    ctime_ms: int
    mtime_ms: int
    version: int
    cversion: int
    aversion: int
    ephemeral_owner: int
    data_length: int
    num_children: int

    @property
    def ctime(self) -> str:
        """Creation time, ``YYYY-MM-DD HH:MM:SS UTC``."""
        return utc_text(self.ctime_ms)

    @property
    def mtime(self) -> str:
        """Last modification time, ``YYYY-MM-DD HH:MM:SS UTC``."""
        return utc_text(self.mtime_ms)

    @property
    def ephemeral(self) -> bool:
        """Whether the znode lives only as long as the session that created it."""
        return self.ephemeral_owner != 0

    def to_json(self) -> dict[str, Any]:
        """The stat as a JSON object, zxids also in hex as zkCli prints them, times also as text."""
        return {
            "czxid": self.czxid,
            "czxid_hex": hex(self.czxid),
            "mzxid": self.mzxid,
            "mzxid_hex": hex(self.mzxid),
            "pzxid": self.pzxid,
            "pzxid_hex": hex(self.pzxid),
            "ctime_ms": self.ctime_ms,
            "ctime": self.ctime,
            "mtime_ms": self.mtime_ms,
            "mtime": self.mtime,
            "version": self.version,
            "cversion": self.cversion,
            "aversion": self.aversion,
            "ephemeral_owner": self.ephemeral_owner,
            "ephemeral_owner_hex": hex(self.ephemeral_owner),
            "data_length": self.data_length,
            "num_children": self.num_children,
        }

    @classmethod
    def of(cls, stat: Any) -> ZnodeStatView:
        """From a kazoo ``ZnodeStat``."""
        return cls(
            stat.czxid, stat.mzxid, stat.pzxid, stat.ctime, stat.mtime, stat.version, stat.cversion,
            stat.aversion, stat.ephemeralOwner, stat.dataLength, stat.numChildren,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class AclView:
    """One ACL entry: ``perms`` as zkCli letters (``cdrwa``), the scheme and the id."""

    perms: str
    scheme: str
    id: str

    def __str__(self) -> str:
        return f"{self.scheme}:{self.id}: {self.perms}"


@dataclass(frozen=True)
class ZnodeView:
    """Everything the browser shows about one znode."""

    path: str
    stat: ZnodeStatView
    acl: tuple[AclView, ...]
    raw: bytes
    data: DecodedData
    acl_error: str | None = None  # why the ACL could not be read (e.g. a recording holds none)

    @property
    def kafka_kind(self) -> ZnodeKind | None:
        """The Kafka format of this path, or None for a non-Kafka znode."""
        return classify(self.path)

    def explained(self) -> list[Row]:
        """(field, value, meaning) rows for a Kafka znode; empty for anything else."""
        return [] if self.data.parsed is None else explain(self.data.parsed)

    def to_json(self) -> dict[str, Any]:
        """The view as a JSON object (``kzc zk get --json``)."""
        kind = self.kafka_kind
        parsed = self.data.parsed
        reason = parsed.reason if isinstance(parsed, Unreadable) else None
        return {
            "path": self.path,
            "kafka_format": kind.value if kind is not None else None,
            "readable": None if kind is None else reason is None,
            "problem": reason,
            "data_kind": self.data.kind,
            "data": self.data.text,
            "explained": [{"field": f, "value": v, "meaning": m} for f, v, m in self.explained()],
            "stat": self.stat.to_json(),
            "acl": [{"perms": a.perms, "scheme": a.scheme, "id": a.id} for a in self.acl],
            "acl_error": self.acl_error,
        }


@dataclass(frozen=True, slots=True)
class ChildCursor:
    """Where the next page starts in a child list that was fetched once.

    ``names`` is the whole sorted list as fetched; ``cversion`` is the parent's child version at that
    moment, so a later page can tell the list has changed since.
    """

    path: str
    names: tuple[str, ...]
    offset: int
    cversion: int


@dataclass(frozen=True, slots=True)
class ChildPage:
    """One page of a znode's children.

    ``total`` is ``numChildren`` from the stat read for this page. ``listed`` is False when the list is
    larger than the threshold and was not fetched: ``names`` is then empty. ``next_cursor`` is None on the
    last page. ``changed`` is True when the children changed after the list was fetched. ``counts[i]``,
    when filled (the console's tree shows them), is the child count of ``names[i]`` (None: unreadable).
    """

    path: str
    total: int
    names: tuple[str, ...]
    offset: int
    next_cursor: ChildCursor | None
    listed: bool
    changed: bool
    stat: ZnodeStatView
    counts: tuple[int | None, ...] = ()

    @property
    def has_more(self) -> bool:
        """Whether children after this page exist."""
        return self.offset + len(self.names) < self.total


def child_sort_key(name: str) -> tuple[int, int, str]:
    """Numbers in numeric order first (broker ids, partitions), then other names in code-point order."""
    if name.isascii() and name.isdigit():
        return (0, int(name), "")
    return (1, 0, name)


def check_path(path: str) -> str:
    """``path`` if it is a valid absolute ZooKeeper path.

    Raises:
        UsageError: the path is not absolute, ends with ``/``, or has empty, ``.`` or ``..`` segments.
    """
    if not path.startswith("/"):
        raise UsageError(f"'{path}' is not a ZooKeeper path: it must start with '/'")
    if path == "/":
        return path
    if path.endswith("/"):
        raise UsageError(f"'{path}' is not a ZooKeeper path: it must not end with '/'")
    for segment in path[1:].split("/"):
        if segment in ("", ".", ".."):
            raise UsageError(f"'{path}' is not a ZooKeeper path: empty, '.' or '..' segment")
        if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in segment):
            raise UsageError(f"'{path}' is not a ZooKeeper path: it contains a control character")
    return path


def stat_of(session: ZkSession, path: str) -> ZnodeStatView:
    """The stat of ``path`` (one small request).

    Raises:
        KzcError: the znode does not exist.
        ConnectError: ZooKeeper denied the read (NoAuth) or did not answer; ``SessionLostError`` when the
            session expired.
    """
    check_path(path)
    stat = _zk(session, path, lambda: session.client.exists(path), f"read the stat of {path}")
    if stat is None:
        raise _not_found(session, path)
    return ZnodeStatView.of(stat)


def list_children(
    session: ZkSession,
    path: str,
    page_size: int = DEFAULT_PAGE_SIZE,
    cursor: ChildCursor | None = None,
    *,
    fetch_large: bool = False,
    large_threshold: int = LARGE_CHILD_COUNT,
) -> ChildPage:
    """One page of the children of ``path``, sorted (numbers numerically, then names).

    Without ``cursor`` the stat is read first; up to ``large_threshold`` children (or with
    ``fetch_large``) the names are fetched in one request and the first page returned; above it nothing
    is fetched and the page has ``listed=False``. With the ``cursor`` of a previous page, the next page is
    a slice of the list fetched then, and only the stat is re-read.

    Raises:
        UsageError: a bad path, page size, or a cursor of another path.
        KzcError: the znode does not exist (any more).
        ConnectError, SessionLostError: the read was denied (NoAuth), ZooKeeper is unreachable, or the
            session ended.
    """
    check_path(path)
    if page_size < 1:
        raise UsageError("the page size must be at least 1")
    if cursor is not None:
        if cursor.path != path:
            raise UsageError(f"this cursor pages {cursor.path}, not {path}")
        stat = stat_of(session, path)
        return _page(path, cursor.names, cursor.offset, page_size, cursor.cversion, stat)
    stat = stat_of(session, path)
    if stat.num_children > large_threshold and not fetch_large:
        return ChildPage(path, stat.num_children, (), 0, None, listed=False, changed=False, stat=stat)
    fetched = _zk(session, path, lambda: session.client.get_children(path, include_data=True), f"list {path}")
    names, children_stat = fetched
    view = ZnodeStatView.of(children_stat)
    ordered = tuple(sorted(names, key=child_sort_key))
    return _page(path, ordered, 0, page_size, view.cversion, view)


def _page(path: str, names: tuple[str, ...], offset: int, size: int, cversion: int, stat: ZnodeStatView) -> ChildPage:
    end = min(offset + size, len(names))
    following = ChildCursor(path, names, end, cversion) if end < len(names) else None
    return ChildPage(
        path=path,
        total=stat.num_children,
        names=names[offset:end],
        offset=offset,
        next_cursor=following,
        listed=True,
        changed=stat.cversion != cversion,
        stat=stat,
    )


def read_znode(session: ZkSession, path: str) -> ZnodeView:
    """Data (decoded), stat and ACL of ``path``, read in two pipelined requests.

    Raises:
        UsageError: a bad path.
        KzcError: the znode does not exist.
        ConnectError, SessionLostError: the read was denied (NoAuth), ZooKeeper is unreachable, or the
            session ended.
    """
    check_path(path)
    client = session.client

    def both() -> tuple[Any, Any]:
        data_result, acl_result = client.get_async(path), client.get_acls_async(path)
        return data_result.get(), acl_result.get()

    (data, stat), (acls, _) = _zk(session, path, both, f"read {path}")
    return ZnodeView(
        path=path,
        stat=ZnodeStatView.of(stat),
        acl=tuple(AclView(_perms(a.perms), a.id.scheme, a.id.id) for a in acls),
        raw=data or b"",
        data=decode_data(path, data),
    )


def _perms(mask: int) -> str:
    return "".join(letter for bit, letter in _PERMISSION_LETTERS if mask & bit)


def _zk(session: ZkSession, path: str, call: Callable[[], T], what: str) -> T:
    """Run ``call`` with the session's retry, turning ZooKeeper failures into kzc errors."""
    try:
        return session.retry(call)
    except NoNodeError:
        raise _not_found(session, path) from None
    except (KazooException, KazooTimeoutError) as exc:
        raise session.read_error(exc, what) from None


def _not_found(session: ZkSession, path: str) -> KzcError:
    chroot = f" (under the chroot {session.target.chroot})" if session.target.chroot else ""
    return KzcError(f"znode {path} does not exist{chroot}")
