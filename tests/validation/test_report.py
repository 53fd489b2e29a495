"""The validation report: text and markdown tables, regressions, the report folder
(JSON, self-contained HTML, atomic replacement) and the README table update."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fcsim.validation import report
from fcsim.validation.report import (
    readme_table,
    regressions,
    render_plot,
    table_text,
    update_readme,
    write_report,
)

PNG = b"\x89PNG\r\n\x1a\n"


def _outcome(claim: str, status: str, recorded: str | None = None, plot: dict | None = None,
             **fields: str) -> dict:
    outcome = {
        "id": claim, "source": "004_6884f3e44e368fd7.txt", "figure": "figures 6-19",
        "document": "82 Mbit/s", "simulated": "79.3-84.1 Mbit/s over 11 pairs",
        "band": "[74, 90] Mbit/s, each non-735 sender pair", "status": status,
        "recorded": recorded, "role": "prediction", "explanation": "host-limited copies",
        "detail": "", "plot": plot,
    }
    outcome.update(fields)
    return outcome


BARS = {"kind": "bars", "title": "Peak throughput", "ylabel": "Mbit/s",
        "labels": ["C110->C110", "J210->C110"], "values": [82.0, 80.5],
        "low": [81.0, 79.0], "high": [83.0, 82.0], "band": [74, 90]}
CURVES = {"kind": "curves", "title": "Latency", "xlabel": "message size", "ylabel": "µs",
          "xlog": True, "band": None,
          "series": [{"label": "C110", "x": [1, 4, 16, 64], "y": [310.0, 312.0, 320.0, 350.0],
                      "low": [300.0, 305.0, 318.0, 340.0], "high": None},
                     {"label": "J210", "x": [1, 4, 16, 64], "y": [290.0, 295.0, 300.0, 330.0],
                      "low": None, "high": None}]}


@pytest.fixture
def outcomes() -> list[dict]:
    return [
        _outcome("ONG-PEAK", "passes", "passes", BARS),
        _outcome("ONG-LAT1", "fails", "passes", CURVES, detail="pair <b>735</b> & co"),
        _outcome("ONG-LINE", "fails", "fails"),
        _outcome("RD11-LOAD", "not modelled", None),
        _outcome("RD11-NEW", "passes", None),
    ]


def test_regressions_are_recorded_passes_that_no_longer_pass(outcomes: list[dict]) -> None:
    assert regressions(outcomes) == ["ONG-LAT1"]
    outcomes[3]["recorded"] = "passes"
    assert regressions(outcomes) == ["ONG-LAT1", "RD11-LOAD"]
    assert regressions([_outcome("X", "passes", "fails")]) == []


def test_table_shows_every_claim_its_status_and_flags_regressions(outcomes: list[dict]) -> None:
    text = table_text(outcomes)
    lines = text.splitlines()
    assert lines[0].split() == ["ID", "document", "simulated", "band", "status"]
    rows = {line.split()[0]: line for line in lines[2:] if line and not line.startswith(" ")}
    assert set(outcomes[i]["id"] for i in range(5)) <= set(rows)
    assert rows["ONG-PEAK"].rstrip().endswith("passes")
    assert rows["ONG-LAT1"].rstrip().endswith("FAILS (regression)")
    assert rows["ONG-LINE"].rstrip().endswith("FAILS")
    assert rows["RD11-LOAD"].rstrip().endswith("not modelled")
    assert "79.3-84.1 Mbit/s over 11 pairs" in text
    assert lines[-1] == "2 pass, 2 fail, 1 not modelled; 1 regression"
    assert max(len(line) for line in lines) <= 150


def test_table_wraps_long_cells_and_keeps_columns_aligned() -> None:
    long = "a very long simulated figure " * 8
    text = table_text([_outcome("LONG", "passes", simulated=long), _outcome("B", "fails")])
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 150
    status_column = lines[0].index("status")
    row = next(line for line in lines if line.startswith("B "))
    assert row[status_column:] == "FAILS"
    # the long cell continues on lines with an empty ID column, and nothing is lost
    start, end = lines[0].index("simulated"), lines[0].index("band")
    cell = [line[start:end].strip() for line in lines[2:lines.index(row)]]
    assert len(cell) > 2
    assert all(not line[:start].split("  ")[0].strip() for line in lines[3:lines.index(row)])
    assert " ".join(" ".join(cell).split()) == long.strip()


def test_empty_table_has_header_and_counts() -> None:
    assert table_text([]).splitlines()[-1] == "0 pass, 0 fail, 0 not modelled; 0 regressions"


def test_readme_table_is_markdown_with_escaped_pipes(outcomes: list[dict]) -> None:
    outcomes[2]["band"] = "a | b"
    lines = readme_table(outcomes).splitlines()
    assert lines[0] == "| ID | document | simulated | band | status | role |"
    assert len(lines) == 2 + len(outcomes)
    assert all(line.count(" | ") == 5 for line in lines[2:])
    assert "a \\| b" in lines[4]
    assert lines[3].startswith("| ONG-LAT1 |")
    assert lines[3].endswith(f"| FAILS (regression) | {outcomes[1]['role']} |")


def test_update_readme_replaces_between_markers(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# fcsim\n\n<!-- validation-table:begin -->\nold table\n"
                      "<!-- validation-table:end -->\n\nmore text\n")
    assert update_readme(readme, "| a |\n|---|\n")
    text = readme.read_text()
    assert "old table" not in text
    assert text.startswith("# fcsim\n\n<!-- validation-table:begin -->\n")
    assert "\n| a |\n|---|\n" in text
    assert text.endswith("<!-- validation-table:end -->\n\nmore text\n")
    assert update_readme(readme, "| a |\n|---|\n")
    assert readme.read_text() == text  # idempotent


@pytest.mark.parametrize("text", ["# fcsim\nno markers\n",
                                  "<!-- validation-table:begin -->\nonly the begin\n",
                                  "<!-- validation-table:end -->\n"
                                  "<!-- validation-table:begin -->\nreversed\n"])
def test_update_readme_without_markers_leaves_file_alone(tmp_path: Path, text: str) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(text)
    assert not update_readme(readme, "| a |\n")
    assert readme.read_text() == text


@pytest.mark.parametrize("plot", [BARS, CURVES, {**BARS, "low": None, "high": None, "band": None}])
def test_render_plot_gives_png(plot: dict) -> None:
    assert render_plot(plot).startswith(PNG)


def test_render_plot_refuses_unknown_kind() -> None:
    with pytest.raises(ValueError, match="pie"):
        render_plot({"kind": "pie", "title": "t", "ylabel": "y"})


def test_write_report_writes_json_and_self_contained_html(tmp_path: Path,
                                                          outcomes: list[dict]) -> None:
    folder = tmp_path / "deep" / "report"
    meta = {"fcsim": "0.1.0", "mode": "quick", "wall time": "12 s", "jobs": 4}
    write_report(folder, outcomes, meta)
    assert sorted(p.name for p in folder.iterdir()) == ["index.html", "results.json"]
    assert json.loads((folder / "results.json").read_text()) == {"meta": meta,
                                                                 "outcomes": outcomes}
    page = (folder / "index.html").read_text()
    for outcome in outcomes:
        assert f'id="claim-{outcome["id"]}"' in page
    assert page.count("data:image/png;base64,") == 2
    assert "pair &lt;b&gt;735&lt;/b&gt; &amp; co" in page
    assert "<b>735" not in page
    assert "FAILS (regression)" in page and "not modelled" in page
    assert "<dt>mode</dt><dd>quick</dd>" in page
    assert "2 pass, 2 fail, 1 not modelled; 1 regression" in page
    assert "<script" not in page and '="http' not in page and "<link" not in page
    assert list(tmp_path.joinpath("deep").iterdir()) == [folder]  # no temporary left


def test_the_page_has_a_section_per_report_with_its_counts(tmp_path: Path,
                                                          outcomes: list[dict]) -> None:
    for outcome in outcomes[3:]:
        outcome["source"] = "000_24592f141a2f7fed.txt"
    write_report(tmp_path / "r", outcomes, {})
    page = (tmp_path / "r" / "index.html").read_text()
    ong = page.index('id="report-004_6884f3e44e368fd7.txt"')
    rd11 = page.index('id="report-000_24592f141a2f7fed.txt"')
    assert "Ong &amp; Farrell" in page[ong:rd11] and "CERN RD11" in page[rd11:]
    assert "2 fail, 0 not modelled" in page[ong:rd11]  # the three Ong claims
    assert "1 pass, 0 fail, 1 not modelled" in page[rd11:]
    assert ong < page.index('id="claim-ONG-LINE"') < rd11 < page.index('id="claim-RD11-NEW"')


def test_write_report_without_plots(tmp_path: Path, outcomes: list[dict]) -> None:
    for outcome in outcomes:
        outcome["plot"] = None
    write_report(tmp_path / "r", outcomes, {})
    page = (tmp_path / "r" / "index.html").read_text()
    assert "data:image/png" not in page and "ONG-LINE" in page


def test_write_report_replaces_only_its_files(tmp_path: Path, outcomes: list[dict]) -> None:
    folder = tmp_path / "report"
    folder.mkdir()
    (folder / "notes.txt").write_text("kept")
    (folder / "results.json").write_text("old")
    write_report(folder, outcomes[:1], {"mode": "full"})
    assert (folder / "notes.txt").read_text() == "kept"
    assert json.loads((folder / "results.json").read_text())["meta"] == {"mode": "full"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_failed_report_leaves_previous_one_untouched(tmp_path: Path, outcomes: list[dict],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "report"
    write_report(folder, outcomes, {"run": 1})
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    calls = []

    def broken(plot: dict) -> bytes:
        calls.append(plot)
        if len(calls) > 1:
            raise RuntimeError("rendering failed")
        return b"png"

    monkeypatch.setattr(report, "render_plot", broken)
    with pytest.raises(RuntimeError, match="rendering failed"):
        write_report(folder, outcomes, {"run": 2})
    assert len(calls) == 2
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_failed_first_report_leaves_no_folder(tmp_path: Path, outcomes: list[dict]) -> None:
    outcomes[0]["meta"] = object()  # not JSON-ready
    with pytest.raises(TypeError):
        write_report(tmp_path / "report", outcomes, {})
    assert list(tmp_path.iterdir()) == []
