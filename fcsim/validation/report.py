"""The validation report: claim outcomes as a text table, a README table, and a
report folder with ``results.json`` and a self-contained ``index.html``.

An outcome is a JSON-ready dict per claim with the keys ``id``, ``source``,
``figure``, ``document``, ``simulated``, ``band``, ``status``, ``recorded``,
``role``, ``explanation``, ``detail`` and ``plot`` (``None`` or a ``"bars"`` or
``"curves"`` plot description, see :func:`render_plot`). A status is
``"passes"``, ``"fails"`` or ``"not modelled"``; a regression is a claim
recorded as passing that does not pass now.
"""

from __future__ import annotations

import base64
import html
import json
import textwrap
from pathlib import Path

from matplotlib.axes import Axes

from fcsim.output import write_output
from fcsim.plot_layout import make_readable
from fcsim.validation.claims import STATUSES
from fcsim.validation.plots import (
    draw_line,
    log_x_axis,
    new_figure,
    png_bytes,
    whiskers,
)
from fcsim.validation.sensitivity import load_sensitivity, section_html

README_BEGIN = "<!-- validation-table:begin -->"
"""The line after which :func:`update_readme` puts the table."""

README_END = "<!-- validation-table:end -->"
"""The line before which :func:`update_readme` ends the table."""

_COLUMNS = (("ID", "id", 16), ("document", "document", 22), ("simulated", "simulated", 38),
            ("band", "band", 40), ("status", "status", 25))
_COLOURS = {"passes": "#1a7f37", "fails": "#cf222e", "not modelled": "#6e7781"}
REPORTS = {
    "004_6884f3e44e368fd7.txt": "Ong & Farrell: Fibre Channel on a cluster of HP workstations",
    "000_24592f141a2f7fed.txt": "CERN RD11: Fibre Channel with IBM equipment, a loaded fabric",
    "001_7a0bfc567c4a67b6.txt": "Trapeze/Slice: network storage on Myrinet",
    "002_e06638be0f19e9c4.txt": "HPSS benchmarks: PDSF to PROBE over jumbo-frame GigE",
    "003_219b629cc3da6126.txt": "DAS-2: standard TCP/UDP tests through a Force10 loop-back"}
"""The title of each measurement report, by its file (a claim's ``source``)."""


def is_regression(outcome: dict) -> bool:
    """Whether *outcome* was recorded as passing and does not pass now."""
    return outcome.get("recorded") == "passes" and outcome["status"] != "passes"


def regressions(outcomes: list[dict]) -> list[str]:
    """The IDs of the claims that regressed, in the order of *outcomes*."""
    return [outcome["id"] for outcome in outcomes if is_regression(outcome)]


def status_text(outcome: dict) -> str:
    """The status as shown in tables: ``passes``, ``FAILS``, ``not modelled``, with
    `` (regression)`` appended for a regression."""
    status = outcome["status"]
    text = "FAILS" if status == "fails" else status
    return f"{text} (regression)" if is_regression(outcome) else text


def summary_line(outcomes: list[dict]) -> str:
    """The counts of a run, e.g. ``"12 pass, 3 fail, 1 not modelled; 0 regressions"``."""
    count = {status: sum(o["status"] == status for o in outcomes) for status in STATUSES}
    found = len(regressions(outcomes))
    return (f"{count['passes']} pass, {count['fails']} fail, {count['not modelled']} not "
            f"modelled; {found} regression{'' if found == 1 else 's'}")


def table_text(outcomes: list[dict]) -> str:
    """An aligned plain-text table (ID, document, simulated, band, status) with long
    cells wrapped onto continuation lines, followed by the :func:`summary_line`."""
    rows = [[_cell(outcome, key) for _title, key, _width in _COLUMNS] for outcome in outcomes]
    widths = [min(cap, max([len(title)] + [len(row[i]) for row in rows]))
              for i, (title, _key, cap) in enumerate(_COLUMNS)]
    lines = [_join([title for title, _key, _cap in _COLUMNS], widths),
             _join(["-" * width for width in widths], widths)]
    for row in rows:
        wrapped = [textwrap.wrap(text, width, break_on_hyphens=False) or [""]
                   for text, width in zip(row, widths, strict=True)]
        for depth in range(max(len(cell) for cell in wrapped)):
            lines.append(_join([cell[depth] if depth < len(cell) else "" for cell in wrapped],
                               widths))
    return "\n".join([*lines, "", summary_line(outcomes)]) + "\n"


def readme_table(outcomes: list[dict]) -> str:
    """A markdown table (ID | document | simulated | band | status | role) of *outcomes*."""
    lines = ["| ID | document | simulated | band | status | role |", "|---|---|---|---|---|---|"]
    for outcome in outcomes:
        cells = [_cell(outcome, key) for _title, key, _width in _COLUMNS]
        cells.append(str(outcome.get("role", "")))
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def update_readme(readme: Path, table_md: str, begin_mark: str = README_BEGIN,
                  end_mark: str = README_END) -> bool:
    """Replace the text between the *begin_mark* and *end_mark* lines (by default
    :data:`README_BEGIN` and :data:`README_END`) of the Markdown file *readme* by
    *table_md*; False (file untouched) when the markers are missing."""
    text = readme.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    marks = [line.strip() for line in lines]
    if begin_mark not in marks or end_mark not in marks[marks.index(begin_mark):]:
        return False
    begin = marks.index(begin_mark)
    end = marks.index(end_mark, begin)
    new = "".join([*lines[:begin + 1], "\n", table_md.strip("\n"), "\n\n", *lines[end:]])
    if new != text:
        write_output(readme, new, "--readme")
    return True


def render_plot(plot: dict) -> bytes:
    """A ``"bars"`` or ``"curves"`` plot description rendered as PNG.

    Bars: one bar per label, min/max whiskers from ``low``/``high`` when given;
    more than :data:`UPRIGHT_BARS` bars, or labels longer than
    :data:`UPRIGHT_LABEL` characters, are drawn across (one row per label, the
    value on the x axis) so every label reads level. Curves: one line with
    markers per series, error bars from ``low``/``high``, log x when ``xlog``.
    Both shade the acceptance ``band`` when given; the legend sits below the axes.
    """
    if plot["kind"] not in ("bars", "curves"):
        raise ValueError(f"unknown plot kind {plot['kind']!r}")
    across = plot["kind"] == "bars" and _across(plot["labels"])
    fig, ax = new_figure(7, max(4.0, 1.4 + 0.26 * len(plot["labels"])) if across else 4, 100)
    ax.set_title(plot["title"])
    if plot["kind"] == "bars":
        _bars(ax, plot, across)
    else:
        ax.set_xlabel(plot["xlabel"])
        ax.set_ylabel(plot["ylabel"])
        xs = []
        for series in plot["series"]:
            draw_line(ax, series["x"], series["y"], series.get("low"), series.get("high"),
                      series["label"])
            xs += series["x"]
        if plot.get("xlog") and xs:
            log_x_axis(ax, xs)
    if plot.get("band"):
        low, high = plot["band"]
        span = ax.axvspan if across else ax.axhspan
        span(low, high, color="tab:green", alpha=0.15, label="acceptance band", zorder=0)
    ax.grid(True, axis="x" if across else "y", alpha=0.3)
    make_readable(fig, ax)
    return png_bytes(fig)


UPRIGHT_BARS = 6
"""Bars drawn upright at most; more are drawn across."""
UPRIGHT_LABEL = 12
"""Characters of the longest label of upright bars; longer ones are drawn across."""


def _across(labels: list[str]) -> bool:
    """Whether bars of *labels* are drawn across (labels level, one per row)."""
    return len(labels) > UPRIGHT_BARS or any(len(label) > UPRIGHT_LABEL for label in labels)


def write_report(folder: Path, outcomes: list[dict], meta: dict) -> None:
    """Write ``results.json`` (``{"meta", "outcomes"}``) and a self-contained
    ``index.html`` (summary table, one section per claim with its plot inline, and
    the sensitivity table of :mod:`fcsim.validation.sensitivity`) into
    *folder* (made if needed), each as :func:`fcsim.output.write_output` writes
    files. Both are built before anything is written, so a failure leaves any
    earlier report as it was."""
    data = json.dumps({"meta": meta, "outcomes": outcomes}, indent=2, ensure_ascii=False)
    page = _page(outcomes, meta)
    folder.mkdir(parents=True, exist_ok=True)
    write_output(folder / "results.json", data + "\n", "--report")
    write_output(folder / "index.html", page, "--report")


def _cell(outcome: dict, key: str) -> str:
    """The text of one table cell: the status text, or the field on one line."""
    if key == "status":
        return status_text(outcome)
    return " ".join(str(outcome.get(key) or "").split())


def _join(cells: list[str], widths: list[int]) -> str:
    """One table line: *cells* padded to *widths*, two blanks apart."""
    return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()


def _bars(ax: Axes, plot: dict, across: bool) -> None:
    """One bar per label with min/max whiskers where ``low``/``high`` are given:
    upright, or *across* from the top, the first label at the top."""
    values = [float("nan") if v is None else v for v in plot["values"]]
    positions = list(range(len(values)))
    error = whiskers(values, plot.get("low"), plot.get("high"))
    if across:
        ax.barh(positions, values, xerr=error, capsize=3, color="tab:blue", alpha=0.8)
        ax.set_yticks(positions, plot["labels"], fontsize="small")
        ax.invert_yaxis()
        ax.set_xlabel(plot["ylabel"])
    else:
        ax.bar(positions, values, yerr=error, capsize=4, color="tab:blue", alpha=0.8)
        ax.set_xticks(positions, plot["labels"], fontsize="small")
        ax.set_ylabel(plot["ylabel"])


def _page(outcomes: list[dict], meta: dict) -> str:
    """The HTML page of the report; every plot is rendered here, before any writing."""
    e = html.escape
    rows = "".join(
        f'<tr><td><a href="#{e(_anchor(o))}">{e(o["id"])}</a></td><td>{e(_cell(o, "document"))}'
        f'</td><td>{e(_cell(o, "simulated"))}</td><td>{e(_cell(o, "band"))}</td>'
        f"<td>{_badge(o)}</td></tr>\n" for o in outcomes)
    facts = "".join(f"<dt>{e(str(key))}</dt><dd>{e(str(value))}</dd>"
                    for key, value in meta.items())
    sections = "".join(_report_section(source, [o for o in outcomes if o.get("source") == source])
                       for source in dict.fromkeys(o.get("source") for o in outcomes))
    sensitivity = section_html(load_sensitivity())
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>fcsim validation report</title>
<style>
body {{ font-family: sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em;
       color: #1f2328; line-height: 1.4; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
th, td {{ border: 1px solid #d0d7de; padding: 0.3em 0.6em; text-align: left;
         vertical-align: top; }}
th {{ background: #f6f8fa; }}
dl.meta {{ display: grid; grid-template-columns: max-content auto; gap: 0.1em 1em; }}
dl.meta dt {{ font-weight: bold; }}
dl.meta dd {{ margin: 0; }}
.status {{ font-weight: bold; white-space: nowrap; }}
.regression {{ background: #ffebe9; padding: 0 0.3em; }}
section {{ border-top: 1px solid #d0d7de; margin-top: 2em; }}
.where {{ color: #6e7781; }}
.text {{ white-space: pre-wrap; }}
img {{ max-width: 100%; }}
</style>
</head>
<body>
<h1>fcsim validation report</h1>
<dl class="meta">{facts}</dl>
<h2>Summary</h2>
<p>{e(summary_line(outcomes))}</p>
<p><a href="#sensitivity">Sensitivity: which verdicts rest on which assumptions</a></p>
<table>
<tr><th>ID</th><th>document</th><th>simulated</th><th>band</th><th>status</th></tr>
{rows}</table>
{sections}{sensitivity}</body>
</html>
"""


def _report_section(source: str | None, outcomes: list[dict]) -> str:
    """The HTML section of one measurement report: its title, its claims' counts
    and a section per claim."""
    e = html.escape
    title = REPORTS.get(str(source), str(source or "other claims"))
    return (f'<h2 id="report-{e(str(source))}">{e(title)}</h2>\n<p class="where">{e(str(source))}'
            f": {e(summary_line(outcomes))}</p>\n" + "".join(map(_section, outcomes)))


def _section(outcome: dict) -> str:
    """The HTML section of one claim, with its plot as an inline PNG."""
    e = html.escape
    where = ", ".join(str(outcome[key]) for key in ("source", "figure") if outcome.get(key))
    facts = [("document", outcome.get("document")), ("simulated", outcome.get("simulated")),
             ("band", outcome.get("band"))]
    rows = "".join(f"<tr><th>{name}</th><td>{e(str(value or ''))}</td></tr>"
                   for name, value in facts)
    rows += f"<tr><th>status</th><td>{_badge(outcome)}</td></tr>"
    rows += f"<tr><th>recorded status</th><td>{e(str(outcome.get('recorded') or '-'))}</td></tr>"
    rows += f"<tr><th>role</th><td>{e(str(outcome.get('role') or ''))}</td></tr>"
    texts = "".join(f'<h4>{name}</h4>\n<p class="text">{e(str(outcome[key]))}</p>\n'
                    for name, key in (("Explanation", "explanation"), ("Detail", "detail"))
                    if outcome.get(key))
    image = ""
    if outcome.get("plot"):
        png = base64.b64encode(render_plot(outcome["plot"])).decode("ascii")
        image = (f'<p><img alt="{e(str(outcome["plot"].get("title", "")))}" '
                 f'src="data:image/png;base64,{png}"></p>\n')
    return (f'<section id="{e(_anchor(outcome))}">\n<h3>{e(outcome["id"])} {_badge(outcome)}'
            f'</h3>\n<p class="where">{e(where)}</p>\n<table>{rows}</table>\n{texts}{image}'
            "</section>\n")


def _anchor(outcome: dict) -> str:
    """The HTML id of a claim's section."""
    return "claim-" + "-".join(str(outcome["id"]).split())


def _badge(outcome: dict) -> str:
    """The claim's status as coloured HTML."""
    colour = _COLOURS.get(outcome["status"], "#1f2328")
    kind = "status regression" if is_regression(outcome) else "status"
    text = html.escape(status_text(outcome))
    return f'<span class="{kind}" style="color: {colour}">{text}</span>'
