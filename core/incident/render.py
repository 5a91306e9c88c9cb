"""The incident report as a document: Markdown, or one self-contained HTML file (inline CSS, no script, nothing
fetched: it opens offline). Both are written from the same sections, so they say the same thing."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field

from core.human_time import age_text, utc_text
from core.incident.report import LAG_NOT_RECORDED, IncidentReport

FORMATS = ("md", "html", "json")


@dataclass(frozen=True)
class Section:
    """A titled part of the report: sentences, then a table (its header row first) when it has rows."""

    title: str
    text: tuple[str, ...] = ()
    table: tuple[tuple[str, ...], ...] = field(default=())


def render(report: IncidentReport, fmt: str) -> str:
    """The report in ``fmt`` (``md``, ``html`` or ``json``)."""
    if fmt == "json":
        return json.dumps(report.to_json(), indent=2) + "\n"
    title = f"Incident report: cluster {report.window.cluster}"
    sections = sections_of(report)
    return _html(title, sections) if fmt == "html" else _markdown(title, sections)


def _duration(ms: int) -> str:
    return age_text(ms / 1000)


def sections_of(report: IncidentReport) -> list[Section]:
    """The report's sections, in reading order."""
    w = report.window
    window = [
        f"Window {utc_text(w.since_ms)} to {utc_text(w.until_ms)}; data from {utc_text(w.start_ms)} to "
        f"{utc_text(w.data_end_ms)}."
    ]
    window += [
        f"Recorded gap {utc_text(g.from_ms)} to {utc_text(g.to_ms)} ({g.reason}): nothing is known in it."
        for g in w.gaps
    ]
    out = [Section("The window", tuple(window))]
    out.append(Section(
        "Timeline (bursts of changes, oldest first)",
        () if report.bursts else ("No recorded change in the window.",),
        (("when (UTC)", "changes", "what"),
         *((_span(b.start_ms, b.end_ms), str(len(b.changes)), b.text) for b in reversed(report.bursts))),
    ))  # fmt: skip
    worst = report.worst
    if worst is None:
        out.append(Section("Worst moment", ("No partition was out of sync in the window.",)))
    else:
        out.append(Section("Worst moment", (
            f"{utc_text(worst.at_ms)}: {worst.under_replicated} partition(s) under-replicated, {worst.offline} "
            "offline.", f"Likely cause: {worst.cause or 'none found'}.",
        )))  # fmt: skip
    end = w.data_end_ms
    out.append(Section(
        "Brokers down",
        () if report.brokers_down else ("No broker was down in the window.",),
        (("broker", "left", "back", "down for"),
         *((str(d.broker), utc_text(d.left_ms) if d.left_ms is not None else "before the data",
            utc_text(d.back_ms) if d.back_ms is not None else "still down at the end", _duration(d.down_ms))
           for d in report.brokers_down)),
    ))  # fmt: skip
    outages = report.isr.outages
    out.append(Section(
        "Out of the ISR",
        (f"{report.under_replicated_minutes:.1f} under-replicated and {report.offline_minutes:.1f} offline "
         "partition-minutes (as kzc history urp --by topic).",) + (() if outages else ("No replica left an ISR.",)),
        (("partition", "replica", "left", "back", "out for"),
         *((f"{o.topic}-{o.partition}", str(o.replica), utc_text(o.left_ms) if o.left_known else "before the data",
            utc_text(o.back_ms) if o.back_ms is not None else "still out", _duration(o.out_ms(end)))
           for o in outages)),
    ))  # fmt: skip
    rows = report.urp_by_broker.rows
    out.append(Section(
        "Under-replicated time by broker", () if rows else ("None.",),
        (("broker", "out of ISR (replica-minutes)", "offline partition-minutes", "outages"),
         *((r.key, f"{r.under_replicated_ms / 60000:.1f}", f"{r.offline_ms / 60000:.1f}", str(r.outages))
           for r in rows)),
    ))  # fmt: skip
    out.append(Section(
        "Actions taken with kzc (audit log)",
        report.audit_notes + (() if report.actions or report.audit_notes else ("No kzc action in the window.",)),
        (("when (UTC)", "who", "what", "outcome", "applied"),
         *((utc_text(a.at_ms), f"{a.user}@{a.host}", a.operation, f"{a.outcome}: {a.message}",
            json.dumps(a.details, sort_keys=True, default=str)) for a in report.actions)),
    ))  # fmt: skip
    if report.lagging is None:
        out.append(Section("Consumer groups", (LAG_NOT_RECORDED + ".",)))
    else:
        out.append(Section(
            "Consumer groups that fell behind (lag as recorded at the traffic ticks)",
            () if report.lagging else ("No group's lag grew in the window.",),
            (("group", "lag at first", "max lag", "max at (UTC)", "lag at last"),
             *((g.group, f"{g.first_lag:,} ({utc_text(g.first_ms)})", f"{g.max_lag:,}", utc_text(g.max_ms),
                f"{g.last_lag:,} ({utc_text(g.last_ms)})") for g in report.lagging)),
        ))  # fmt: skip
    e = report.at_end
    still: tuple[str, ...]
    if e.healthy:
        still = ("Every partition in sync and every broker holding replicas registered.",)
    else:
        still = tuple(
            text for text in (
                f"Offline: {_listed(e.offline)}." if e.offline else "",
                f"Under-replicated: {_listed(e.under_replicated)}." if e.under_replicated else "",
                f"Not registered, holding replicas: broker(s) {', '.join(map(str, e.brokers_down))}."
                if e.brokers_down else "",
            ) if text
        )  # fmt: skip
    out.append(Section(f"Still not healthy at the end ({utc_text(e.at_ms)})", still))
    return out


def _span(start: int, end: int) -> str:
    first, last = utc_text(start), utc_text(end)
    return first + (f" to {last[11:]}" if last != first else "")


def _listed(names: tuple[str, ...], shown: int = 20) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f"{len(names)} ({', '.join(names[:shown])}{more})"


def _markdown(title: str, sections: list[Section]) -> str:
    lines = [f"# {title}", ""]
    for section in sections:
        lines += [f"## {section.title}", ""]
        lines += [*section.text, ""] if section.text else []
        if len(section.table) > 1:
            header, *rows = section.table
            lines.append("| " + " | ".join(header) + " |")
            lines.append("|" + "---|" * len(header))
            lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
            lines.append("")
    return "\n".join(lines)


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:80em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.5em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #ddd;padding:.3em .5em;text-align:left;
vertical-align:top;font-size:.9em}th{background:#f4f4f4}td:first-child{white-space:nowrap}"""


def _html(title: str, sections: list[Section]) -> str:
    e = html.escape
    parts = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">', f"<title>{e(title)}</title>",
             f"<style>{_CSS}</style></head><body>", f"<h1>{e(title)}</h1>"]  # fmt: skip
    for section in sections:
        parts.append(f"<section><h2>{e(section.title)}</h2>")
        parts += [f"<p>{e(t)}</p>" for t in section.text]
        if len(section.table) > 1:
            header, *rows = section.table
            parts.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr>")
            parts += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows]
            parts.append("</table>")
        parts.append("</section>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
