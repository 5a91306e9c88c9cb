"""How big a topic znode would be, before anything is built: ZooKeeper refuses larger requests.

ZooKeeper drops any request longer than ``jute.maxbuffer`` (1 MiB unless the servers are configured
otherwise; ``core.config.JUTE_MAXBUFFER``), so no topic znode of that size can ever be written, by kzc or
by a broker. A create or expand that would need one is refused up front, from the partition count alone:
``{"partitions":{"0":[1,2,3],...}}`` costs at least ``"P":[`` + the replica ids + commas + ``]`` per
partition, counted in closed form (no assignment is built, so ``--partitions 2147483647`` costs nothing).
"""

from __future__ import annotations

from collections.abc import Iterable

from core.errors import GuardError
from core.human_size import human_size
from core.kafka.znodes.paths import topic_path

REQUEST_OVERHEAD = 1024  # the request around the znode data: header, path, ACL (generously)
# {"version":1,"partitions":{}}: the smallest topic znode format, without partitions.
EMPTY_TOPIC_ZNODE = 29


def digits_in_range(start: int, stop: int) -> int:
    """The decimal digits of every integer in ``[start, stop)`` (non-negative), in closed form."""
    total, low, width = 0, 0, 1
    while low < stop:
        high = 10**width  # numbers of this width are [10**(width-1), 10**width), and [0, 10) for width 1
        lo, hi = max(start, low), min(stop, high)
        if lo < hi:
            total += (hi - lo) * width
        low, width = high, width + 1
    return total


def entries_size(first: int, stop: int, replication_factor: int, broker_ids: Iterable[int]) -> int:
    """At least how many bytes partitions ``[first, stop)`` add to ``partitions`` (exact when all broker
    ids have the same number of digits): ``"P":[b1,...,bR]`` and a comma each."""
    if stop <= first:
        return 0
    shortest = min((len(str(b)) for b in broker_ids), default=1)
    per_partition = 2 + 1 + 2 + replication_factor * shortest + (replication_factor - 1) + 1
    return (stop - first) * per_partition + digits_in_range(first, stop)


def check_topic_znode_size(topic: str | None, size: int, limit: int, what: str, exact: bool = False) -> None:
    """Refuse a topic znode of ``size`` bytes that ZooKeeper would refuse (over ``limit`` less the request).

    Raises:
        GuardError: the size, the limit, and how to go on.
    """
    if size <= limit - REQUEST_OVERHEAD:
        return
    amount = f"{size:,} bytes" if exact else f"at least {size:,} bytes"
    znode = topic_path(topic) if topic is not None else "the topic znode"
    raise GuardError(
        f"{what} would make {znode} {amount} ({human_size(size)}), over what ZooKeeper accepts in one "
        f"request: jute.maxbuffer is {limit:,} bytes ({human_size(limit)}). Nothing was built or written; use fewer "
        "partitions, or set jute_maxbuffer in the context if every ZooKeeper server and broker was configured "
        "with a larger jute.maxbuffer"
    )
