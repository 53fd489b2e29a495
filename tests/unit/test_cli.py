"""The fcsim command line: summary, JSON, pcap, trace and refusal of bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from fcsim.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "scenarios" / "p2p-class2-bidirectional.toml"


def _short(tmp_path: Path, source: Path = EXAMPLE, duration: str = "200 us") -> Path:
    text = source.read_text()
    lines = [f'duration = "{duration}"' if line.startswith("duration") else
             'warmup = "0 s"' if line.startswith("warmup") else line
             for line in text.splitlines()]
    path = tmp_path / source.name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_summary_names_workloads_links_and_ports(tmp_path, capsys) -> None:
    assert main(["run", str(_short(tmp_path))]) == 0
    out = capsys.readouterr().out
    for word in ("a-to-b", "class 2", "utilisation", "ACK", "B/s"):
        assert word in out


def test_json_is_identical_for_the_same_seed(tmp_path, capsys) -> None:
    path = _short(tmp_path)
    assert main(["run", str(path), "--json"]) == 0
    first = capsys.readouterr().out
    assert main(["run", str(path), "--json"]) == 0
    assert capsys.readouterr().out == first
    results = json.loads(first)
    assert results["repetitions"][0]["workloads"]["a-to-b"]["class"] == 2


def test_trace_lists_frames_and_r_rdy(tmp_path, capsys) -> None:
    assert main(["run", str(_short(tmp_path, duration="50 us")), "--trace"]) == 0
    out = capsys.readouterr().out
    assert "SOFi2" in out and "R_RDY" in out and "ACK_1" in out


def test_bad_scenario_exits_2_and_writes_nothing(tmp_path, capsys) -> None:
    bad = _short(tmp_path, duration="-1 ms").rename(tmp_path / "bad.toml")
    pcap = tmp_path / "out.pcap"
    assert main(["run", str(bad), "--pcap", str(pcap)]) == 2
    err = capsys.readouterr().err
    assert "bad.toml" in err and "run.duration" in err and "-1 ms" in err
    assert not pcap.exists()
    assert list(tmp_path.iterdir()) == [bad]


@pytest.mark.parametrize(("argv", "line"), [
    (["run"], "fcsim: error: the following arguments are required: FILE "
              "(see 'fcsim run --help')"),
    (["run", str(EXAMPLE), "--bogus"], "fcsim: error: unrecognized arguments: --bogus "
                                       "(see 'fcsim run --help')"),
    (["run", str(EXAMPLE), "--jobs", "0"], "fcsim: error: --jobs: expected an integer >= 1, "
                                           "got '0' (see 'fcsim run --help')"),
    (["run", str(EXAMPLE), "--pcap-limit"], "fcsim: error: --pcap-limit: expected one "
                                            "argument (see 'fcsim run --help')"),
    (["frob"], "fcsim: error: COMMAND: invalid choice: 'frob' (choose from 'run', 'topology', "
               "'validate', 'figures', 'explain', 'schema', 'credits') (see 'fcsim --help')"),
    ([], "fcsim: error: the following arguments are required: COMMAND (see 'fcsim --help')"),
    (["topology", str(EXAMPLE), "--nope", "1"], "fcsim: error: unrecognized arguments: "
                                                "--nope 1 (see 'fcsim topology --help')"),
    (["run", str(EXAMPLE), "--json", "--trace"], None),
], ids=["missing-file", "unknown-option", "bad-value", "missing-value", "unknown-command",
        "no-command", "unknown-option-of-topology", "options-together"])
def test_bad_arguments_are_one_line_and_exit_2(argv: list[str], line: str | None,
                                               capsys) -> None:
    """Every refusal of the arguments, argparse's own included, is one line in
    the form of the others (no usage block) with exit status 2."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fcsim: error: "), err
    if line is not None:
        assert err == line + "\n"


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_decodes_the_pcap(tmp_path) -> None:
    pcap = tmp_path / "run.pcap"
    assert main(["run", str(_short(tmp_path, duration="30 us")), "--pcap", str(pcap)]) == 0
    fields = subprocess.run(
        ["tshark", "-r", str(pcap), "-T", "fields", "-e", "fc.s_id", "-e", "fc.d_id",
         "-e", "fc.seq_cnt", "-e", "fc.ox_id", "-e", "fc.crc.status"],
        capture_output=True, text=True, check=True, env={"HOME": str(tmp_path)},
    ).stdout.split("\n")
    rows = [line.split("\t") for line in fields if line]
    assert rows, "tshark decoded no frame"
    assert {tuple(row[:2]) for row in rows} == {("00.00.01", "00.00.02"),
                                                ("00.00.02", "00.00.01")}
    assert all(row[4] == "1" for row in rows)


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_topology_drawing(tmp_path, suffix: str) -> None:
    image = tmp_path / f"fabric{suffix}"
    scenario = ROOT / "scenarios" / "fabric-core-edge-isls.toml"
    assert main(["topology", str(scenario), "-o", str(image)]) == 0
    data = image.read_bytes()
    assert data.startswith(b"\x89PNG") if suffix == ".png" else b"<svg" in data[:2000]
    if suffix == ".svg":
        text = data.decode()
        for word in ("edge1", "core", "2GFC", "p30"):
            assert word in text


def test_topology_draws_a_loop_as_its_ring(tmp_path) -> None:
    image = tmp_path / "loop.svg"
    assert main(["topology", str(ROOT / "scenarios" / "loop-32-ports.toml"), "-o",
                 str(image)]) == 0
    assert b"<svg" in image.read_bytes()[:2000]


def test_topology_refuses_other_image_types(tmp_path) -> None:
    assert main(["topology", str(EXAMPLE), "-o", str(tmp_path / "x.jpg")]) == 2
    assert not (tmp_path / "x.jpg").exists()
