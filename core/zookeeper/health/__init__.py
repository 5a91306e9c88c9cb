"""ZooKeeper's own health: every server of the connect string, as its four-letter words and AdminServer say.

Sources, per server: the four-letter words ``srvr``, ``mntr`` and ``conf`` over the plain client port (one
TCP connection each; the server answers and closes), and, where a word is refused or unanswered, the
AdminServer's ``GET http://HOST:ADMIN_PORT/commands/<name>`` JSON (``server_stats``, ``monitor``,
``configuration``). Since ZooKeeper 3.5.3 only ``srvr`` is whitelisted by default; a refused word answers
``<word> is not executed because it is not in the whitelist.`` and the health says exactly which words are
missing and how to allow them (``4lw.commands.whitelist``). ``wchc``/``wchp`` (per-watch dumps, expensive on
a large tree) are never sent. The fsync-threshold counter is served only by the AdminServer's
``server_stats`` on 3.6+ (``mntr`` had it on 3.5), so it is asked there when the words did not give it.

The package, by concept: ``words`` (what is asked, and the parsers ``parse_srvr``, ``parse_mntr``,
``parse_conf``, ``parse_admin`` that turn one reply into *facts*, a flat dict with the keys of ``FACT_KEYS``);
``model`` (``server_health`` builds one ``ServerHealth`` from the facts of one probe; ``assess`` derives the
lag behind the leader, the quorum and every alarm from the servers: pure, the one place these rules live);
``probe`` (the network part, ``probe_ensemble``: every server in parallel, carrying each unreachable server's
last good reading, ``last_seen``, from the previous probe); ``texts`` (what every surface shows). The names
the console, the fleet and the snapshot use are exported here.
Kafka's ``zookeeper.session.timeout.ms`` is read by the caller from the brokers (``KafkaSessionTimeouts``).
"""

from core.zookeeper.health.model import EnsembleHealth, KafkaSessionTimeouts, ServerHealth, assess
from core.zookeeper.health.probe import PROBE_TIMEOUT_S, probe_ensemble, tls_context
from core.zookeeper.health.texts import COLUMNS, headline, server_cells, session_line, summary_line

__all__ = [
    "COLUMNS",
    "PROBE_TIMEOUT_S",
    "EnsembleHealth",
    "KafkaSessionTimeouts",
    "ServerHealth",
    "assess",
    "headline",
    "probe_ensemble",
    "server_cells",
    "session_line",
    "summary_line",
    "tls_context",
]
