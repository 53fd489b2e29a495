"""More guards on what fcsim writes and runs: an output never replaces the scenario it
reads, port names are checked before a capture or a ladder, a trace file is capped,
``explain`` is held to the work limits, and a second Ctrl-C cannot cut the clean-up
of the first short."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fcsim.build import BUILDERS
from fcsim.cli import main
from fcsim.output import Capped, OutputError, check_folder
from fcsim.preflight import port_names
from fcsim.progress import Progress, end_progress_line
from fcsim.runner import build_network
from fcsim.scenario.loader import load_scenario
from tests.unit.test_outputs import ROOT, _scenario, _Terminal, terminal_signals


def _one_error_line(err: str, *parts: str) -> None:
    line = err.strip().splitlines()[-1]
    assert "Traceback" not in err and all(part in line for part in parts), err


def _only_line(err: str, *parts: str) -> None:
    """*err* is the documented refusal: one line, no usage block, naming *parts*."""
    assert err.count("\n") == 1 and err.startswith("fcsim: error: "), err
    assert all(part in err for part in parts), err


def test_an_output_naming_the_scenario_file_is_refused(tmp_path: Path, capsys) -> None:
    scenario = _scenario(tmp_path)
    text = scenario.read_text()
    (tmp_path / "alias.toml").symlink_to(scenario)
    for argv in (["run", "S", "--pcap", "A"], ["run", "S", "--trace", "A"],
                 ["topology", "S", "-o", "A"], ["explain", "S", "-o", "A"]):
        given = {"S": str(scenario), "A": str(tmp_path / "alias.toml")}
        assert main([given.get(a, a) for a in argv]) == 2
        option = {"-o": "--output"}.get(argv[2], argv[2])
        _only_line(capsys.readouterr().err, f"{option}: ", repr(given["A"]),
                   "scenario file")
    assert scenario.read_text() == text


@pytest.mark.parametrize("argv, parts", [
    (["run", "S", "--pcap", "T/x", "--trace", "T/x"], ["--trace", "'T/x'", "--pcap"]),
    (["run", "S", "--json", "--trace"], ["--trace", "--json", "give --trace FILE"]),
    (["run", "S", "--pcap-ports", "a"], ["--pcap-ports", "--pcap FILE"]),
    (["topology", "S", "-o", "T/x.toml"], ["--output", "'T/x.toml'", ".png or .svg"]),
    (["topology", "S", "-o", "T/x.gif"], ["--output", "'T/x.gif'", ".png or .svg"]),
    (["explain", "S", "-o", "T/x.txt"], ["--output", "'T/x.txt'", ".png or .svg"]),
    (["run", "R", "--pcap", "T/x.pcap"], ["--pcap", "'T/x.pcap'", ".pcapng"]),
])
def test_refusals_are_one_line_naming_what_was_given_and_what_is_allowed(
        tmp_path: Path, capsys, argv: list[str], parts: list[str]) -> None:
    names = {"S": str(_scenario(tmp_path, duration="10 s")),
             "R": str(ROOT / "scenarios" / "relay-gige-to-fc.toml")}
    argv = [names.get(a, a.replace("T/", f"{tmp_path}/")) for a in argv]
    assert main(argv) == 2
    _only_line(capsys.readouterr().err, *(p.replace("T/", f"{tmp_path}/") for p in parts))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_a_capture_piped_through_dev_stdout_leaves_the_results_on_stderr(
        tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "fcsim.cli", "run", str(_scenario(tmp_path)),
                           "--pcap", "/dev/stdout"], capture_output=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0
    assert done.stdout[:4] == bytes.fromhex("4d3cb2a1")  # nanosecond libpcap, little-endian
    assert b"simulated 100.0 us" in done.stderr and b"simulated" not in done.stdout
    both = subprocess.run([sys.executable, "-m", "fcsim.cli", "run", str(_scenario(tmp_path)),
                           "--pcap", "/dev/stdout", "--trace"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert both.returncode == 2 and both.stdout == ""
    _only_line(both.stderr, "--pcap and --trace both go to standard output", "--trace FILE")


def test_port_names_are_those_trace_sinks_see() -> None:
    fabric = port_names(build_network(load_scenario(ROOT / "scenarios" / "netperf-tcp-rr.toml")))
    assert fabric == {"client", "server", "ancor:0", "ancor:1"}


@pytest.mark.parametrize("command", [["run", "--pcap", "x.pcap", "--pcap-ports"],
                                     ["explain", "--ports"]])
def test_an_unknown_port_is_refused_before_any_work(tmp_path: Path, command: list[str],
                                                    capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    scenario = str(_scenario(tmp_path, duration="10 s"))  # would take long: refused first
    started = time.monotonic()
    assert main([command[0], scenario, *command[1:], "a", "nobody"]) == 2
    assert time.monotonic() - started < 5
    _only_line(capsys.readouterr().err, command[-1], "no port named 'nobody'",
               "its ports: a, b")
    assert not (tmp_path / "x.pcap").exists()


@pytest.mark.parametrize("command", [["run", "--pcap", "x.pcap", "--pcap-ports"],
                                     ["explain", "--ports"]])
def test_port_names_are_checked_on_the_network_the_run_builds(
        tmp_path: Path, command: list[str], capsys, monkeypatch) -> None:
    """The names are checked against the network the run builds: it is built
    once, not once more to name its ports."""
    monkeypatch.chdir(tmp_path)
    scenario = str(_scenario(tmp_path))
    topology = load_scenario(scenario).topology
    builder, builds = BUILDERS[topology], []

    def counted(sim, scenario):
        builds.append(scenario.name)
        return builder(sim, scenario)

    monkeypatch.setitem(BUILDERS, topology, counted)
    assert main([command[0], scenario, *command[1:], "a"]) == 0
    assert builds == ["out"]


def test_a_ladder_full_before_the_run_still_has_its_port_names_checked(capsys) -> None:
    """``explain --events 1``: the ladder fills with the first login frame
    the fabric sends as it is built, before the names could be checked on it;
    they are checked all the same."""
    scenario = str(ROOT / "scenarios" / "netperf-tcp-rr.toml")
    assert main(["explain", scenario, "--events", "1", "--ports", "client"]) == 0
    assert "client" in capsys.readouterr().out
    assert main(["explain", scenario, "--events", "1", "--ports", "client", "nobody"]) == 2
    _only_line(capsys.readouterr().err, "--ports", "no port named 'nobody'",
               "its ports: ancor:0, ancor:1, client, server")


def test_explain_is_held_to_the_work_limits(tmp_path: Path, capsys) -> None:
    assert main(["explain", str(_scenario(tmp_path, outstanding=100_000_000))]) == 2
    _one_error_line(capsys.readouterr().err, "100,000,000 sequences", "--max-open-sequences")
    endless = str(_scenario(tmp_path, duration="1e12 s"))
    assert main(["explain", endless, "--ports", "b"]) == 2  # b might never send
    _one_error_line(capsys.readouterr().err, "frames and arrivals", "--max-frames")
    # with no port named the ladder ends at its N-th event, and --until ends it too
    assert main(["explain", endless, "--events", "3"]) == 0
    assert main(["explain", endless, "--ports", "b", "--until", "50 us"]) == 0


def test_a_billion_repetitions_of_a_nanosecond_are_refused(tmp_path: Path, capsys) -> None:
    path = _scenario(tmp_path, duration="1 ns")
    path.write_text(path.read_text().replace("[run]\n", "[run]\nrepetitions = 1000000000\n"))
    assert main(["run", str(path)]) == 2  # each repetition builds and logs in its network
    _one_error_line(capsys.readouterr().err, "up to 8e+10 frames", "repeat it less",
                    "--max-frames")


def test_a_trace_file_stops_at_its_limit(tmp_path: Path, capsys) -> None:
    trace = tmp_path / "t.txt"
    assert main(["run", str(_scenario(tmp_path, duration="1 ms")), "--trace", str(trace),
                 "--trace-limit", "4 KiB"]) == 0
    assert 3000 < trace.stat().st_size <= 4096
    assert trace.read_text().endswith("\n")  # whole lines only
    _one_error_line(capsys.readouterr().err, "--trace: stopped at", "later lines not written")


def test_capped_leaves_out_whole_writes_past_the_limit() -> None:
    out = io.StringIO()
    capped = Capped(out, 10)
    for text in ("µs\n", "abcde\n", "x\n", "y\n"):
        capped.write(text)
    assert out.getvalue() == "µs\nabcde\n" and capped.size == 10 and capped.left_out == 2


def test_a_file_the_report_folder_holds_is_checked_before_the_run(tmp_path: Path,
                                                                   capsys) -> None:
    (tmp_path / "report" / "index.html").mkdir(parents=True)
    started = time.monotonic()
    assert main(["run", str(_scenario(tmp_path, duration="10 s")), "--report",
                 str(tmp_path / "report")]) == 2
    assert time.monotonic() - started < 5
    _one_error_line(capsys.readouterr().err, "--report: cannot write", "index.html")
    with pytest.raises(OutputError, match="results.sqlite"):
        (tmp_path / "report" / "index.html").rmdir()
        (tmp_path / "report" / "results.sqlite").mkdir()
        check_folder("--report", tmp_path / "report", ("index.html", "results.sqlite"))


def test_an_interrupted_progress_line_is_ended() -> None:
    terminal = _Terminal()
    Progress(4, terminal)(1, "first")
    end_progress_line()
    end_progress_line()  # once only
    shown = terminal.getvalue()
    assert shown.rstrip().endswith("first") and shown.endswith(" \n") and shown.count("\n") == 1


def _stopped(tmp_path: Path, args: list[str], signum: int, times: int) -> None:
    """Start fcsim with *args*, send *signum* to its process group *times*, 20 ms
    apart, once its two workers run, as a terminal sends Ctrl-C; check it stops."""
    process = subprocess.Popen(
        [sys.executable, "-m", "fcsim.cli", *args, "--jobs", "2"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=terminal_signals)
    workers: list[str] = []
    deadline = time.monotonic() + 30
    while len(workers) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
        workers = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True,
                                 text=True).stdout.split()
    assert len(workers) >= 2, "no workers started"
    time.sleep(0.5)
    for _ in range(times):
        os.killpg(process.pid, signum)
        time.sleep(0.02)
    started = time.monotonic()
    _out, err = process.communicate(timeout=10)
    took = time.monotonic() - started
    assert process.returncode == 130 and took < 2, (process.returncode, took, err)
    assert err.strip().splitlines()[-1] == "fcsim: interrupted; nothing more written"
    assert "Traceback" not in err and err.count("interrupted") == 1
    time.sleep(0.5)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


def test_two_quick_ctrl_cs_stop_the_workers_and_exit_130(tmp_path: Path) -> None:
    _stopped(tmp_path, ["figures", "rd11", "-o", str(tmp_path / "figures")], signal.SIGINT, 2)
    # what finished is kept in the result store; nothing else is left
    assert [p.name for p in (tmp_path / "figures").iterdir()] == ["results.sqlite"]


def test_sigterm_stops_validate_and_leaves_no_folder_without_a_store(tmp_path: Path) -> None:
    _stopped(tmp_path, ["validate", "--quick", "--no-store", "--report",
                        str(tmp_path / "report")], signal.SIGTERM, 1)
    assert list(tmp_path.iterdir()) == []
