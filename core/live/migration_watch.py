"""The live watcher's migration watch: the ZooKeeper-to-KRaft migration phase, derived again as ``/migration``,
``/controller`` and the brokers change, and whether ``/migration`` still advances.

During dual write ``/migration`` is rewritten about twice a second, so once it records an offset its watch is
set again at most every re-arm period (one read), and a watch that stayed silent a whole period means it
stopped advancing. ``MigrationWatch`` keeps that bookkeeping; the ``ClusterWatcher`` owns the reads and the
queue, on whose dispatch thread every method runs (``advancing``: any thread). Timers put ``REARM`` and
``CHECK`` on that queue.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from core.kafka.migration import Phase, PhaseView, derive_phase
from core.kafka.znodes import ControllerInfo, MigrationState
from core.live.events import MigrationPhaseChanged
from core.live.live_event import LiveEvent
from core.live.state import LiveState

# During dual write /migration is rewritten about twice a second. Once it records an offset, its watch is set
# again at most this often (one read), and a watch that stayed silent this long means it stopped advancing.
MIGRATION_REARM_S = 30.0

REARM = object()  # read /migration again (setting its watch), after the re-arm period
CHECK = object()  # re-derive the migration phase: has /migration stopped advancing?


class MigrationWatch:
    """The migration phase last reported and the timing of ``/migration``'s watch."""

    def __init__(self, rearm_s: float, await_kraft_brokers: bool, later: Callable[[float, object], None]) -> None:
        """``later(delay, item)`` puts ``item`` on the watcher's queue after ``delay`` seconds.
        ``await_kraft_brokers``: see ``ClusterWatcher``."""
        self._rearm_s = rearm_s
        self._later = later
        self._phase: Phase | None = None
        self._await_kraft = await_kraft_brokers
        # The brokers running KRaft as the owner last told them (None: not told yet), and when /migration was
        # armed or fired.
        self._kraft: frozenset[int] | None = None
        self._armed_at = 0.0
        self._fired_at: float | None = None
        self._rearm_scheduled = False

    def start(self, base: LiveState) -> None:
        """The first read is done (``/migration`` armed): take its phase as the one known, unreported."""
        self.armed()
        if not self._awaiting_kraft(base):
            self._phase = self._derive(base).phase

    def armed(self) -> None:
        """``/migration`` was just read with a watch: if that watch stays silent a whole period, it stopped."""
        self._armed_at = time.monotonic()
        self._later(self._rearm_s + 1.0, CHECK)

    def fired(self, base: LiveState) -> bool:
        """``/migration`` changed: whether to read it now. Before it records an offset (waiting for brokers, the
        initial copy) every change may be a phase change: read it now. After, its offset advances with every
        KRaft batch: note that it moved and read it again (re-arming the watch) only after the re-arm period."""
        self._fired_at = time.monotonic()
        m = base.migration
        if isinstance(m, MigrationState) and m.kraft_metadata_offset >= 0:
            if not self._rearm_scheduled:
                self._rearm_scheduled = True
                self._later(self._rearm_s, REARM)
            return False
        return True

    def rearm_due(self) -> None:
        """The re-arm period is over (``REARM``): the caller reads ``/migration`` again."""
        self._rearm_scheduled = False

    def set_kraft_brokers(self, brokers: frozenset[int]) -> None:
        """The owner's word on which brokers run KRaft."""
        self._kraft = brokers

    def advancing(self) -> bool | None:
        """Whether ``/migration`` moves: it fired since its watch was last set, or in the period before; False
        once the watch stayed silent for a whole period; None before anything was observed."""
        fired, armed = self._fired_at, self._armed_at
        if fired is not None and fired >= armed:
            return True
        if armed and time.monotonic() - armed >= self._rearm_s:
            return False
        return None if fired is None else True

    def events(self, base: LiveState) -> list[LiveEvent]:
        """``MigrationPhaseChanged`` when the phase derived from ``base`` differs from the last one."""
        if self._awaiting_kraft(base):
            return []
        view = self._derive(base)
        if view.phase is self._phase:
            return []
        old, self._phase = self._phase, view.phase
        return [MigrationPhaseChanged(old.value if old else None, view.phase.value, view.phase.label, view.reason)]

    def _derive(self, base: LiveState) -> PhaseView:
        registered = set(base.brokers)
        kraft = (self._kraft or frozenset()) - registered  # told before a broker registered again (a rollback)
        return derive_phase(base.controller, base.migration, registered, kraft, self.advancing())

    def _awaiting_kraft(self, base: LiveState) -> bool:
        """Whether the phase waits for the owner to tell which brokers run KRaft: a KRaft controller holds
        /controller and the owner did not tell yet."""
        c = base.controller
        return self._await_kraft and self._kraft is None and isinstance(c, ControllerInfo) and c.is_kraft
