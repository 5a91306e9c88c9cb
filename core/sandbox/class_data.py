"""Class data sharing for the sandbox's JVMs (JDK's dynamic AppCDS): about half of a broker's start-up CPU is
loading and verifying classes, which an archive of them, mapped at start, saves.

One archive per exact JVM (the ``java`` binary and its modification time), class path (each directory and its
modification time) and main class, in ``<cache>/cds/`` beside the cached jars. A JVM started while its archive is
missing writes one at exit (``-XX:ArchiveClassesAtExit``, to a name of its own); once it has exited by itself,
``promote`` checks that archive with a JVM that must map it (``-Xshare:on``) and renames it into place, so two
sandboxes (two test workers) starting at once each write their own and the last rename wins. An archive is only
ever used with ``-Xshare:auto``: one the JVM cannot use (another JDK, changed jars) is ignored with a warning, never
a failed start. A half-written archive (its JVM killed while writing) is deleted, never promoted: mapping one
crashes the JVM. ``KZC_CLASS_DATA=off`` starts the JVMs without (what the archives save is measured by
``benchmarks/sandbox_start_bench.py``).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import subprocess
import time
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path

from core.sandbox.jars import cache_dir

_WRITE = "-XX:ArchiveClassesAtExit="
_SUFFIX = ".jsa"
_STALE_S = 24 * 3600.0


def archive_dir() -> Path:
    return cache_dir() / "cds"


def archive_path(java: str, classpath: str, main: str) -> Path:
    """Where the archive of this JVM, class path and main class is."""
    stamps = [_stamp(java)] + [_stamp(entry.removesuffix("/*")) for entry in classpath.split(":")]
    digest = hashlib.sha256("\n".join([*stamps, classpath, main]).encode()).hexdigest()[:16]
    return archive_dir() / f"{main.rsplit('.', 1)[-1]}-{digest}{_SUFFIX}"


def options(java: str, classpath: str, main: str, jvm_options: Sequence[str]) -> list[str]:
    """The JVM options that use this JVM's archive, or write it at exit when it does not exist yet; none for a JVM
    with a ``-javaagent`` (JDK 17 refuses to write an archive under an agent: "Must enable
    AllowArchivingWithJavaAgent", and the JVM exits) or with ``KZC_CLASS_DATA=off``."""
    if os.environ.get("KZC_CLASS_DATA") == "off" or any(o.startswith("-javaagent:") for o in jvm_options):
        return []
    archive = archive_path(java, classpath, main)
    if archive.exists():
        return [f"-XX:SharedArchiveFile={archive}", "-Xshare:auto"]
    archive.parent.mkdir(parents=True, exist_ok=True)
    for stale in archive.parent.glob(f"{archive.name}.*.tmp"):  # a JVM that was never stopped by a sandbox
        with suppress(OSError):
            if time.time() - stale.stat().st_mtime > _STALE_S:
                stale.unlink()
    return [f"{_WRITE}{archive}.{secrets.token_hex(4)}.tmp"]


def promote(cmdline: list[str]) -> None:
    """After a JVM with ``cmdline`` exited by itself: put the archive it wrote in its place if a JVM can map it,
    else delete it. (A JVM killed while writing leaves a part of one: ``discard`` it.)"""
    written = _written_by(cmdline)
    if written is None or not written.exists():
        return
    java, classpath = cmdline[0], cmdline[cmdline.index("-cp") + 1]
    check = [java, f"-XX:SharedArchiveFile={written}", "-Xshare:on", f"-XX:ErrorFile={os.devnull}"]
    try:
        if subprocess.run([*check, "-cp", classpath, "-version"], capture_output=True, timeout=60).returncode == 0:
            os.replace(written, written.with_name(written.name.split(_SUFFIX)[0] + _SUFFIX))
    except (OSError, subprocess.SubprocessError):
        pass
    discard(cmdline)


def discard(cmdline: list[str]) -> None:
    """Delete what a JVM with ``cmdline`` wrote of an archive, if anything (it was killed)."""
    if (written := _written_by(cmdline)) is not None:
        with suppress(OSError):
            written.unlink()


def writes_archive(cmdline: list[str]) -> bool:
    """Whether a JVM with ``cmdline`` writes its archive as it exits (it must not be killed)."""
    return _written_by(cmdline) is not None


def _written_by(cmdline: list[str]) -> Path | None:
    """The archive a JVM with this command line writes at exit (its own temporary name), if any."""
    return next((Path(arg.removeprefix(_WRITE)) for arg in cmdline if arg.startswith(_WRITE)), None)


def _stamp(path: str) -> str:
    try:
        return f"{path}:{os.stat(path).st_mtime_ns}"
    except OSError:
        return path
