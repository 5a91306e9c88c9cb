"""The console's znode browser reads: pages of a znode's children, each with its own child count (pipelined
``exists``), and a znode's data, stat and ACL (``core.zookeeper.tree``).

The child lists fetched for a first page are kept (the last ``CHILD_LISTS_KEPT``), so later pages of a huge
list are slices checked by one stat read, not refetches. The lock guards that book only, never a read.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import replace

from kazoo.exceptions import KazooException
from kazoo.handlers.threading import KazooTimeoutError

from core.errors import KzcError
from core.zookeeper import tree as zk_tree
from core.zookeeper.session import ZkSession
from core.zookeeper.tree import ChildPage, ZnodeView

CHILD_LISTS_KEPT = 8  # child lists remembered for paging (a 300k list holds ~20 MB of names)


class ZnodeReads:
    """The browser's reads on one session's cluster (any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # The browser's last fetched child lists, so later pages of a huge list are slices, not refetches.
        self._child_lists: OrderedDict[str, zk_tree.ChildCursor] = OrderedDict()

    def children(self, session: ZkSession, path: str, offset: int = 0, limit: int = 500) -> ChildPage:
        """A page of children (numbers numerically, then names) with each child's own child count.

        Raises:
            ConnectError: ZooKeeper failed or denied the read; KzcError: the znode does not exist.
        """
        page = self._child_page(session, path, offset, limit)
        names = page.names
        base = "" if path == "/" else path
        pending = [session.client.exists_async(f"{base}/{n}") for n in names]
        counts: list[int | None] = []
        for result in pending:
            try:
                stat = result.get(timeout=30)
            except (KazooException, KazooTimeoutError):
                stat = None
            counts.append(stat.numChildren if stat is not None else None)
        return replace(page, counts=tuple(counts))

    def _child_page(self, session: ZkSession, path: str, offset: int, limit: int) -> ChildPage:
        """Page ``offset`` of ``path``'s children: a slice of the list fetched for an earlier page while the
        parent's child version is unchanged (one stat read), else one fresh ``getChildren``."""
        with self._lock:
            known = self._child_lists.get(path)
        if offset and known is not None:
            page = zk_tree.list_children(session, path, limit, replace(known, offset=offset))
            if not page.changed:
                return page
        first = zk_tree.list_children(session, path, limit, fetch_large=True)
        following = first.next_cursor
        with self._lock:
            self._child_lists.pop(path, None)
            if following is not None:
                self._child_lists[path] = following
                while len(self._child_lists) > CHILD_LISTS_KEPT:
                    self._child_lists.popitem(last=False)
        if offset == 0 or following is None:
            return first if offset == 0 else replace(first, names=(), offset=offset)
        return zk_tree.list_children(session, path, limit, replace(following, offset=offset))

    def znode(self, session: ZkSession, path: str) -> ZnodeView | None:
        """Data (decoded and explained), stat and ACL of ``path``; ``None`` when it does not exist.

        Raises:
            ConnectError: ZooKeeper failed or denied the read.
        """
        try:
            if session.client.exists(path) is None:
                return None
            return zk_tree.read_znode(session, path)
        except KzcError as exc:
            if "does not exist" in str(exc):
                return None
            raise
        except (KazooException, KazooTimeoutError) as exc:
            raise session.read_error(exc, f"read {path}") from exc
