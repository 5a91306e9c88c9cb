"""The one owner of the kazoo client: connect (chroot, auth, TLS), retries, and the connection state.

``ZkSession.start`` either connects or raises a ``ConnectError`` whose message says what went wrong
(nobody answered, authentication failed, TLS failed, chroot missing) within the timeout. The state is a
small enum the UI can show; listeners are called on kazoo's thread and must only hand the news on.
``read``/``read_children`` are plain reads whose failures (NoAuth, expiry, no answer) come back as one
clear ``ConnectError``; ``read_error`` builds that message for other callers of the kazoo client.
"""

from __future__ import annotations

import enum
import importlib.util
import logging
import socket
import ssl
import threading
import time
import warnings
from collections.abc import Callable, MutableMapping
from typing import Any, TypeVar

from kazoo.client import KazooClient, KazooState, KeeperState
from kazoo.exceptions import (
    AuthFailedError,
    KazooException,
    NoAuthError,
    NoNodeError,
    SessionClosedRequireSaslError,
    SessionExpiredError,
)
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.protocol.states import ZnodeStat
from kazoo.retry import KazooRetry

from core.config import ConnectionSettings
from core.connect import ZkConnect
from core.errors import AuthError, ConnectError, MissingToolError, SessionLostError, UsageError
from core.interrupt import on_interrupt
from core.zookeeper.select_handler import SelectHandler

T = TypeVar("T")


class ConnectionState(enum.Enum):
    """What the console shows about the ZooKeeper connection."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    SUSPENDED = "suspended"  # connection dropped; the session may survive; kazoo is reconnecting
    LOST = "lost"  # the session expired: ephemeral znodes and watches of the old session are gone
    RECONNECTING = "reconnecting"  # after LOST: kazoo is establishing a new session by itself
    CLOSED = "closed"


StateListener = Callable[[ConnectionState], None]


class _ProblemLog(logging.LoggerAdapter[logging.Logger]):
    """kazoo's logger for one client, remembering its last warning (e.g. why a connection attempt failed),
    so a failed ``start`` can say *why* no server answered (TLS handshake, refused, ...)."""

    def __init__(self) -> None:
        super().__init__(logging.getLogger("kazoo.client"), {})
        self.last_problem: str | None = None

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        # Only the reasons of failed attempts ("Connection dropped: socket connection error: [SSL: ...]"),
        # not kazoo's summary "Failed connecting to Zookeeper within the connection retry policy".
        if level >= logging.WARNING and str(msg).startswith("Connection"):
            try:
                self.last_problem = str(msg) % args if args else str(msg)
            except (TypeError, ValueError):
                self.last_problem = str(msg)
        super().log(level, msg, *args, **kwargs)

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, MutableMapping[str, Any]]:
        return msg, kwargs


def kazoo_options(settings: ConnectionSettings) -> dict[str, Any]:
    """The keyword arguments for ``KazooClient`` that carry auth and TLS from ``settings``.

    Raises:
        UsageError: an incomplete setting (e.g. digest auth without ``:``).
    """
    options: dict[str, Any] = {}
    if settings.zk_auth is not None:
        if ":" not in settings.zk_auth:
            raise UsageError("ZooKeeper digest auth must be USER:PASSWORD")
        options["auth_data"] = [("digest", settings.zk_auth)]
    if settings.zk_sasl_mechanism:
        mechanism = settings.zk_sasl_mechanism.upper()
        sasl: dict[str, str] = {"mechanism": mechanism}
        if mechanism == "DIGEST-MD5":
            if not settings.zk_sasl_username or settings.zk_sasl_password is None:
                raise UsageError("ZooKeeper SASL DIGEST-MD5 needs a username and a password")
            sasl.update(username=settings.zk_sasl_username, password=settings.zk_sasl_password)
        if settings.zk_sasl_service:
            sasl["service"] = settings.zk_sasl_service
        if settings.zk_sasl_principal:
            sasl["principal"] = settings.zk_sasl_principal
        if importlib.util.find_spec("puresasl") is None:
            # kazoo needs pure-sasl for SASL; without it the connection thread fails with no clear reason.
            raise MissingToolError(
                "ZooKeeper SASL needs the Python package pure-sasl, which is not installed "
                "(pip install pure-sasl, in kzc's environment)"
            )
        options["sasl_options"] = sasl
    if settings.zk_tls:
        if (settings.zk_tls_cert is None) != (settings.zk_tls_key is None):
            # kazoo loads a client certificate only with both files and silently ignores one alone.
            raise UsageError("ZooKeeper TLS client authentication needs both a certificate and a key file")
        # The server's certificate is always verified against the CA (kazoo's verify_certs=False would turn
        # off all verification); zk_tls_verify_hostname only adds the check that it names the host connected to.
        options.update(
            use_ssl=True,
            ca=settings.zk_tls_ca,
            certfile=settings.zk_tls_cert,
            keyfile=settings.zk_tls_key,
            verify_certs=True,
            check_hostname=settings.zk_tls_verify_hostname,
        )
    return options


def unresolvable_hosts(target: ZkConnect) -> list[tuple[str, str]]:
    """The hosts of ``target`` whose name does not resolve, each with the resolver's reason.

    Checked before connecting, so a mistyped host name is reported as such at once instead of as "no
    server answered" after the whole timeout.
    """
    problems = []
    for host in target.hosts:
        try:
            socket.getaddrinfo(host.host, host.port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            problems.append((host.host, exc.strerror or str(exc)))
        except (OSError, UnicodeError):
            continue  # not a name problem: the connection attempt reports it
    return problems


class ZkSession:
    """A connected kazoo client for one cluster, with its state and retrying reads."""

    def __init__(self, settings: ConnectionSettings) -> None:
        if settings.zookeeper is None:
            raise UsageError("no ZooKeeper connect string: give --zookeeper HOST:PORT[/chroot] or --context NAME")
        self.settings = settings
        self.target: ZkConnect = settings.zookeeper
        self._listeners: list[StateListener] = []
        self._lock = threading.Lock()
        self._state = ConnectionState.CLOSED
        self._log = _ProblemLog()
        self.client = KazooClient(
            hosts=str(self.target),
            timeout=settings.session_timeout,
            connection_retry=KazooRetry(max_tries=-1, delay=0.2, backoff=2, max_delay=5),
            command_retry=KazooRetry(max_tries=3, delay=0.1, backoff=2, max_delay=2, ignore_expire=False),
            logger=self._log,
            handler=SelectHandler(),
            **kazoo_options(settings),
        )
        self.client.add_listener(self._on_kazoo_state)
        self._unregister: Callable[[], None] | None = None

    @property
    def state(self) -> ConnectionState:
        """The current connection state."""
        return self._state

    def add_state_listener(self, listener: StateListener) -> None:
        """Call ``listener(state)`` on every change (on kazoo's thread: hand the news on and return)."""
        with self._lock:
            self._listeners.append(listener)

    def remove_state_listener(self, listener: StateListener) -> None:
        """Stop calling ``listener``; removing one that is not registered is harmless."""
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def start(self, timeout: float | None = None) -> None:
        """Connect, or raise a clear ``ConnectError`` within ``timeout`` (default: the session timeout).

        Raises:
            ConnectError: no server answered, authentication or TLS failed, or the chroot is missing.
        """
        timeout = timeout or self.settings.session_timeout
        unresolved = unresolvable_hosts(self.target)
        if len(unresolved) == len(self.target.hosts):
            raise ConnectError(
                f"cannot connect to ZooKeeper {self.target.hosts_string}: "
                + "; ".join(f"the host name '{host}' cannot be resolved ({why})" for host, why in unresolved)
            )
        self._set_state(ConnectionState.CONNECTING)
        # Ctrl-C closes the session from the main thread (core.interrupt): kazoo's blocking calls in the
        # worker then fail at once, and no session is left for ZooKeeper to expire.
        self._unregister = on_interrupt(self._abort)
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="No chroot path exists")  # checked below, clearly
                event = self.client.start_async()
        except (ssl.SSLError, OSError) as exc:
            raise ConnectError(f"cannot set up TLS for ZooKeeper {self.target.hosts_string}: {exc}") from exc
        deadline = time.monotonic() + timeout
        while not event.wait(0.05):
            if self.client.client_state == KeeperState.AUTH_FAILED:
                self._abort()
                raise AuthError(self._auth_failed_message())
            if time.monotonic() > deadline:
                self._abort()
                raise ConnectError(self._unreachable_message(timeout))
        if not self.client.connected:
            self._abort()
            raise AuthError(self._auth_failed_message())
        # Always probe with one read: SASL completes after the session is established, so a wrong
        # password only shows here (AuthFailed / SessionClosedRequireSasl), not in the connect event.
        try:
            exists = self.client.exists("/")
        except NoAuthError:
            exists = True  # present but unreadable: reads below will say NoAuth
        except (AuthFailedError, SessionClosedRequireSaslError) as exc:
            self._abort()
            raise AuthError(self._auth_failed_message()) from exc
        except KazooException as exc:
            self._abort()
            if self.settings.zk_sasl_mechanism:
                # kazoo's connection thread dies on a SASL rejection, so it surfaces as a dropped connection.
                raise AuthError(self._auth_failed_message()) from exc
            raise ConnectError(f"ZooKeeper {self.target} answered but failed: {exc!r}") from exc
        if self.target.chroot and not exists:
            self._abort()
            raise ConnectError(
                f"ZooKeeper {self.target.hosts_string} is reachable but the chroot {self.target.chroot} does "
                "not exist: check the /chroot part of the connect string"
            )
        self._set_state(ConnectionState.CONNECTED)

    def stop(self) -> None:
        """Close the session (ephemeral znodes and watches of this client go away)."""
        self._set_state(ConnectionState.CLOSED)  # first, so kazoo's LOST on stop is not taken for expiry
        if self._unregister is not None:
            self._unregister()
        self.client.stop()
        self.client.close()

    def retry(self, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a read with kazoo's command retry (connection loss is retried, expiry is not)."""
        result: T = self.client.retry(func, *args, **kwargs)
        return result

    def read(self, path: str) -> tuple[bytes, ZnodeStat] | None:
        """The data and stat of ``path`` (relative to the chroot), or ``None`` when it does not exist.

        Raises:
            ConnectError: ZooKeeper denied the read (NoAuth) or did not answer.
            SessionLostError: the session expired during the read.
        """
        try:
            data, stat = self.retry(self.client.get, path)
        except NoNodeError:
            return None
        except (KazooException, KazooTimeoutError) as exc:
            raise self.read_error(exc, f"read {path}") from exc
        return (data or b""), stat

    def read_children(self, path: str) -> list[str] | None:
        """The children names of ``path``, or ``None`` when it does not exist.

        Raises:
            ConnectError: ZooKeeper denied the read (NoAuth) or did not answer.
            SessionLostError: the session expired during the read.
        """
        try:
            children: list[str] = self.retry(self.client.get_children, path)
        except NoNodeError:
            return None
        except (KazooException, KazooTimeoutError) as exc:
            raise self.read_error(exc, f"list the children of {path}") from exc
        return children

    def read_error(self, exc: BaseException, what: str) -> ConnectError:
        """The user-facing error for a failed ZooKeeper call; ``what`` says what kzc tried (``read /x``)."""
        if isinstance(exc, NoAuthError):
            return AuthError(
                f"ZooKeeper {self.target} denied the request to {what} (NoAuth): the znode's ACL does not grant "
                "these credentials access; check --zk-auth or the SASL settings of this context"
            )
        if isinstance(exc, SessionExpiredError):
            return SessionLostError(f"the ZooKeeper session to {self.target} expired while trying to {what}")
        if isinstance(exc, KazooTimeoutError):
            return ConnectError(f"ZooKeeper {self.target} did not answer in time while trying to {what}")
        return ConnectError(f"ZooKeeper {self.target} failed to {what}: {type(exc).__name__} {exc}".rstrip())

    @property
    def session_id(self) -> int | None:
        """The ZooKeeper session id while connected."""
        cid = self.client.client_id
        return int(cid[0]) if cid else None

    def _abort(self) -> None:
        self._set_state(ConnectionState.CLOSED)
        if self._unregister is not None:
            self._unregister()
        try:
            self.client.stop()
            self.client.close()
        except (KazooException, KazooTimeoutError, OSError):
            pass  # already failing: the caller raises the real reason

    def _on_kazoo_state(self, state: str) -> None:
        # kazoo's thread: map and forward, nothing slow here.
        if state == KazooState.CONNECTED:
            self._set_state(ConnectionState.CONNECTED)
        elif state == KazooState.SUSPENDED:
            self._set_state(ConnectionState.SUSPENDED)
        elif state == KazooState.LOST and self._state != ConnectionState.CLOSED:
            self._set_state(ConnectionState.LOST)
            self._set_state(ConnectionState.RECONNECTING)

    def _set_state(self, state: ConnectionState) -> None:
        with self._lock:
            if state == self._state:
                return
            self._state = state
            listeners = list(self._listeners)
        for listener in listeners:
            listener(state)

    def _unreachable_message(self, timeout: float) -> str:
        problem = self._log.last_problem or ""
        if self.settings.zk_tls:
            head = f"cannot connect to ZooKeeper {self.target.hosts_string} over TLS within {timeout:g} s"
            if "SSL" in problem or "certificate" in problem.lower():
                detail = problem.split("error: ", 1)[-1]
                if "mismatch, certificate is not valid for" in detail:
                    advice = (
                        "the server's certificate does not name the host in the connect string: connect by a name "
                        "it lists, or turn hostname verification off (zk_tls_verify_hostname = false, "
                        "--no-zk-tls-verify-hostname; the CA is still checked)"
                    )
                elif "CERTIFICATE_VERIFY_FAILED" in detail:
                    advice = "the server's certificate is not trusted: check that the CA file (zk_tls_ca) signed it"
                else:
                    advice = "check that the server speaks TLS on this port and the CA, certificate and key"
                return f"{head}: the TLS handshake failed ({detail}); {advice}"
            return (
                f"{head}: no server answered (check host, port, that the server speaks TLS, and the CA, "
                "certificate and key)"
            )
        return (
            f"cannot connect to ZooKeeper {self.target.hosts_string} within {timeout:g} s: no server answered "
            "(check host, port and that this machine can reach it)"
        )

    def _auth_failed_message(self) -> str:
        how = f"SASL {self.settings.zk_sasl_mechanism}" if self.settings.zk_sasl_mechanism else "authentication"
        return f"ZooKeeper {self.target.hosts_string} rejected {how}: check the credentials (AUTH_FAILED)"
