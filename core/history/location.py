"""Where a cluster's history lives: the one rule every surface asks (``kzc record``, ``kzc history``,
``kzc diff``, the console's recording and its partition history).

The store is the command's flag (``--store DIR``, ``--out DIR`` for ``kzc record``), else the context's
``history = "DIR"`` (the console's ``--store`` fills that setting), else ``$KZC_HISTORY``. A cluster is
recorded, and found, under its context's name, else its ZooKeeper connect string.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from core.config import ConnectionSettings
from core.errors import UsageError

STORE_ENV = "KZC_HISTORY"  # the store the questions and the console read when no --store is given


@dataclass(frozen=True, slots=True)
class HistoryPlace:
    """One cluster's history: the store (``None`` when nothing names one), where that came from, and the name
    the cluster has in it."""

    cluster: str
    root: Path | None
    source: str  # "--store", "context 'prod' history", "$KZC_HISTORY", or what to give when root is None

    def require(self) -> Path:
        """The store's directory.

        Raises:
            UsageError: nothing names a store (the message says the three ways to name one).
        """
        if self.root is None:
            raise UsageError(self.source)
        return self.root


def recorded_cluster(settings: ConnectionSettings) -> str:
    """The name a cluster is recorded under: its context, else its ZooKeeper connect string."""
    return settings.context or str(settings.zookeeper)


def history_place(
    settings: ConnectionSettings,
    flag: str | None = None,
    flag_name: str = "--store",
    environ: Mapping[str, str] | None = None,
) -> HistoryPlace:
    """The store a command (or the console) uses for ``settings``' cluster: ``flag`` (the command's
    ``flag_name``), else the context's ``history``, else ``$KZC_HISTORY``."""
    env = os.environ if environ is None else environ
    cluster = recorded_cluster(settings)
    if flag:
        return HistoryPlace(cluster, Path(flag).expanduser(), flag_name)
    if settings.history:
        where = f"context '{settings.context}' history" if settings.context else "--store"
        return HistoryPlace(cluster, Path(settings.history).expanduser(), where)
    if value := env.get(STORE_ENV):
        return HistoryPlace(cluster, Path(value).expanduser(), f"${STORE_ENV}")
    context = f"context '{settings.context}'" if settings.context else "a context"
    return HistoryPlace(
        cluster,
        None,
        f'no history store: give {flag_name} DIR, set history = "DIR" in {context} of the config file '
        f"(docs/configuration.md), or set ${STORE_ENV}",
    )
