"""Output files and stopping: never destroy a user's file, refuse bad paths before any
work, stop cleanly on Ctrl-C and SIGTERM, refuse runs that would never end."""

from __future__ import annotations

import io
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fcsim.cli import main
from fcsim.output import OutputError, check_file, open_output
from tests.fabric_text import point_to_point, stream

ROOT = Path(__file__).resolve().parents[2]


def _text(duration: str, outstanding: int) -> str:
    """A stream of 21,120-byte sequences from a to b over 1GFC for *duration*,
    *outstanding* at a time: the scenario's text."""
    return ('name = "out"\n' + point_to_point(duration, name="l")
            + stream("w", "a", "b", size="21120 B", outstanding=outstanding))


def _scenario(tmp_path: Path, duration: str = "100 us", outstanding: int = 1) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(_text(duration, outstanding))
    return path


def terminal_signals() -> None:
    """In the child: SIGINT and SIGTERM as a terminal's foreground job has them, even
    when the tests themselves run in the background (where a shell ignores SIGINT,
    which fcsim then rightly leaves ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _fcsim(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "fcsim.cli", *args], cwd=kwargs.get("cwd"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            preexec_fn=terminal_signals)


def _until(ready, timeout: float = 60.0) -> None:
    """Wait until *ready()* is true (a started process, however loaded the machine)."""
    deadline = time.monotonic() + timeout
    while not ready() and time.monotonic() < deadline:
        time.sleep(0.1)


# -- 1. what is at the output path survives -------------------------------------------

def test_a_device_is_written_through_not_replaced(tmp_path: Path) -> None:
    assert main(["run", str(_scenario(tmp_path)), "--pcap", os.devnull]) == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_symlink_stays_and_its_target_is_written(tmp_path: Path) -> None:
    target = tmp_path / "real.pcap"
    link = tmp_path / "link.pcap"
    link.symlink_to(target)
    assert main(["run", str(_scenario(tmp_path)), "--pcap", str(link)]) == 0
    assert link.is_symlink() and target.stat().st_size > 24


def test_a_fifo_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    assert main(["run", str(_scenario(tmp_path)), "--trace", str(fifo)]) == 0
    reader.join(10)
    assert stat.S_ISFIFO(fifo.stat().st_mode) and b"R_RDY" in got[0]


def test_a_fifo_gets_nothing_when_the_capture_ports_are_refused(tmp_path: Path,
                                                               capsys) -> None:
    """A capture header written into a FIFO cannot be taken back, so unknown
    --pcap-ports names are refused before the FIFO is opened."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the writer's open does not block
    try:
        assert main(["run", str(_scenario(tmp_path)), "--pcap", str(fifo),
                     "--pcap-ports", "nosuch"]) == 2
        assert os.read(reader, 4096) == b""
    finally:
        os.close(reader)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'nosuch'" in err


def test_pcap_and_trace_on_one_file_are_refused(tmp_path: Path, capsys) -> None:
    (tmp_path / "alias").symlink_to(tmp_path / "x")
    for trace in ("x", "alias"):
        assert main(["run", str(_scenario(tmp_path)), "--pcap", str(tmp_path / "x"),
                     "--trace", str(tmp_path / trace)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--pcap writes the same file" in err
    assert not (tmp_path / "x").exists()


def test_a_failed_write_keeps_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "keep.txt"
    out.write_text("old")
    with pytest.raises(RuntimeError), open_output(out, "w") as handle:
        handle.write("new")
        raise RuntimeError("stop")
    assert out.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


# -- 2. bad output paths: one line, exit 2, before any work ----------------------------

@pytest.mark.parametrize("bad", ["folder", "/proc/x.pcap", "file/x.pcap", "missing/x.pcap"])
def test_bad_output_paths_are_refused_in_one_line(tmp_path: Path, bad: str, capsys) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder.svg").mkdir()
    (tmp_path / "file").write_text("")
    path = bad if bad.startswith("/") else str(tmp_path / bad)
    scenario = _scenario(tmp_path, duration="1 s")  # would take long: the check comes first
    started = time.monotonic()
    for argv in (["run", str(scenario), "--pcap", path], ["run", str(scenario), "--trace", path],
                 ["topology", str(scenario), "-o", path + ".svg"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("fcsim: error: ") and "cannot write" in err
    assert time.monotonic() - started < 5


def test_unwritable_report_and_figure_folders_are_refused(tmp_path: Path, capsys) -> None:
    (tmp_path / "file").write_text("")
    assert main(["validate", "--claims", "ONG-LINE", "--report", "/proc/report"]) == 2
    assert "--report: cannot write" in capsys.readouterr().err
    assert main(["figures", "rd11", "-o", str(tmp_path / "file")]) == 2
    assert "--output: cannot write" in capsys.readouterr().err


def test_check_file_names_the_option_and_the_reason(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match=r"^--pcap: cannot write '.*': it is a folder"):
        check_file("--pcap", tmp_path)


# -- 3. interruption --------------------------------------------------------------------

@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupting_a_run_exits_130_and_leaves_nothing(tmp_path: Path, signum: int) -> None:
    process = _fcsim("run", str(_scenario(tmp_path, duration="20 s")), "--pcap",
                     str(tmp_path / "run.pcap"), cwd=tmp_path)
    _until(lambda: any(tmp_path.glob(".run.pcap.*.tmp")))  # the run has begun
    time.sleep(0.5)
    process.send_signal(signum)
    _out, err = process.communicate(timeout=10)
    assert process.returncode == 130
    assert err == "fcsim: interrupted; nothing more written\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_interrupting_validate_stops_its_workers(tmp_path: Path) -> None:
    process = _fcsim("validate", "--claims", "ONG-LAT1", "--jobs", "2", "--report",
                     str(tmp_path / "report"))
    children: list[str] = []

    def started() -> bool:
        children[:] = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True,
                                     text=True).stdout.split()
        return bool(children)
    _until(started)
    time.sleep(0.5)
    assert children, "validate started no worker"
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=10)
    assert process.returncode == 130
    assert err.strip().splitlines()[-1] == "fcsim: interrupted; nothing more written"
    assert "Traceback" not in err
    time.sleep(0.5)
    assert not any(Path(f"/proc/{pid}").exists() for pid in children)
    # no report; only the result store, which keeps the points finished before
    assert [p.name for p in (tmp_path / "report").iterdir()] == ["results.sqlite"]


# -- 3b. an output that fails while it is written -------------------------------------

def _fcsim_run(args: list[str], stdout: object = subprocess.DEVNULL,
               preexec=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fcsim.cli", *args], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=preexec)


def _one_error_line(err: str, *words: str) -> None:
    assert err.count("\n") == 1 and err.startswith("fcsim: error: "), err
    assert "Traceback" not in err and all(word in err for word in words), err


@pytest.mark.parametrize("args, to_full", [
    (["--pcap", "/dev/full"], False), (["--pcap", "/dev/full.pcapng"], False),
    (["--trace", "/dev/full"], False), ([], True), (["--json"], True),
    (["--trace"], True)])
def test_a_full_device_is_one_line_and_a_non_zero_status(tmp_path: Path, args: list[str],
                                                         to_full: bool, capsys) -> None:
    """Standard output on /dev/full in a new process (its file descriptor 1);
    an output file on /dev/full in this process."""
    if args[-1:] == ["/dev/full.pcapng"]:  # a pcapng capture written into /dev/full
        (tmp_path / "full.pcapng").symlink_to("/dev/full")
        args = ["--pcap", str(tmp_path / "full.pcapng")]
    argv = ["run", str(_scenario(tmp_path)), *args]
    if to_full:
        with open("/dev/full", "w") as full:
            done = _fcsim_run(argv, stdout=full)
        status, err = done.returncode, done.stderr
    else:
        status, err = main(argv), capsys.readouterr().err
    assert status == 1
    _one_error_line(err, "cannot write", "No space left on device",
                    "standard output" if to_full else f"{args[0]}: cannot write ")


def test_explain_and_schema_into_a_full_device_are_one_line(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        for args in (["explain", str(_scenario(tmp_path))], ["schema"]):
            done = _fcsim_run(args, stdout=full)
            assert done.returncode == 1
            _one_error_line(done.stderr, "standard output", "No space left on device")


def _small_files() -> None:
    """In the child: files may grow to 4 KiB only (as a full disk stops them), and
    passing it is an error (EFBIG) rather than the signal that would end the process."""
    import resource  # noqa: PLC0415 (POSIX only)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


@pytest.mark.parametrize("option", ["--pcap", "--trace", "--report"])
def test_a_file_that_cannot_grow_is_not_left_behind(tmp_path: Path, option: str) -> None:
    scenario = _scenario(tmp_path, duration="1 ms")
    out = tmp_path / ("out" if option == "--report" else "out.pcap")
    done = _fcsim_run(["run", str(scenario), option, str(out)], preexec=_small_files)
    assert done.returncode == 1
    _one_error_line(done.stderr, "cannot write", "too large")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["s.toml"]


@pytest.mark.parametrize("command", [["run", "S"], ["run", "S", "--json"], ["explain", "S"],
                                     ["schema"], ["topology", "S", "-o", "T"]])
def test_a_closed_standard_output_is_one_line_before_any_work(tmp_path: Path,
                                                              command: list[str]) -> None:
    scenario = _scenario(tmp_path, duration="1 s")  # would take long: the check comes first
    args = [{"S": str(scenario), "T": str(tmp_path / "t.png")}.get(a, a) for a in command]
    done = _fcsim_run(args, preexec=lambda: os.close(1))
    assert done.returncode == 2
    _one_error_line(done.stderr, "standard output is closed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


# -- 4. runs that would never end ------------------------------------------------------

def test_an_endless_run_is_refused_with_the_option_to_allow_it(tmp_path: Path, capsys) -> None:
    assert main(["run", str(_scenario(tmp_path, duration="1e12 s"))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "years" in err and "--max-frames" in err


def test_too_many_open_sequences_are_refused(tmp_path: Path, capsys) -> None:
    assert main(["run", str(_scenario(tmp_path, outstanding=100_000_000))]) == 2
    assert "--max-open-sequences" in capsys.readouterr().err
    assert main(["run", str(_scenario(tmp_path, outstanding=100)),
                 "--max-open-sequences", "10"]) == 2


def test_a_generator_with_no_count_and_a_picosecond_gap_is_refused(tmp_path: Path,
                                                                    capsys) -> None:
    text = _text("1 s", 1).replace(
        'type = "stream"', 'type = "generator"\ninterarrival = "1 ps"').replace(
        "outstanding = 1\n", "")
    path = tmp_path / "g.toml"
    path.write_text(text)
    assert main(["run", str(path)]) == 2
    assert "would simulate up to 1e+12 frames and arrivals" in capsys.readouterr().err


def test_the_pcap_stops_at_its_limit(tmp_path: Path, capsys) -> None:
    pcap = tmp_path / "capped.pcap"
    assert main(["run", str(_scenario(tmp_path, duration="1 ms")), "--pcap", str(pcap),
                 "--pcap-limit", "20 KiB"]) == 0
    assert 10_000 < pcap.stat().st_size <= 20 * 1024
    assert "frames not written" in capsys.readouterr().err


# -- 7. smaller things ------------------------------------------------------------------

def test_topology_writes_into_the_current_folder(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    scenario = _scenario(tmp_path)
    assert main(["topology", str(scenario)]) == 0
    assert (tmp_path / "here" / "s.png").is_file() and not (tmp_path / "s.png").exists()


def test_figures_errors_are_one_line_naming_the_command(capsys) -> None:
    assert main(["figures", "rd11", "--pairs", "nobody"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fcsim: error: pairs select")
    assert err.endswith("(see 'fcsim figures --help')\n")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_sweep_shows_progress_on_a_terminal_only(tmp_path: Path, monkeypatch,
                                                   capsys) -> None:
    text = (ROOT / "scenarios" / "netperf-tcp-stream-sweep.toml").read_text()
    text = text.replace('duration = "1.2 s"', 'duration = "40 ms"').replace(
        'length = "1 s"', 'length = "20 ms"').replace("repetitions = 2", "repetitions = 1")
    text = text.replace('"32 KiB", "64 KiB", "256 KiB"]', '"32 KiB"]')
    path = tmp_path / "sweep.toml"
    path.write_text(text)
    assert main(["run", str(path), "--json"]) == 0
    assert capsys.readouterr().err == ""
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["run", str(path), "--json"]) == 0
    shown = terminal.getvalue()
    assert "[8/8] 100%" in shown and "socket 262144 send size 32768" in shown


def test_a_long_run_shows_its_simulated_time_on_a_terminal(tmp_path: Path, monkeypatch,
                                                           capsys) -> None:
    path = _scenario(tmp_path, duration="2 ms")
    assert main(["run", str(path), "--json"]) == 0
    piped = capsys.readouterr()
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["run", str(path), "--json"]) == 0
    assert capsys.readouterr().out == piped.out  # the results do not depend on it
    shown = terminal.getvalue()
    assert "repetition 1, 2.000 ms of 2.000 ms simulated" in shown and "100%" in shown


def test_a_short_run_past_a_low_limit_says_its_time_in_seconds(capsys) -> None:
    from fcsim.scenario.work import FRAMES_PER_SECOND, wall_time

    assert main(["run", str(ROOT / "scenarios" / "p2p-1gfc-class3.toml"),
                 "--max-frames", "10"]) == 2
    err = capsys.readouterr().err
    assert "0 minutes" not in err and "(under a second at" in err
    assert wall_time(FRAMES_PER_SECOND * 12.4) == "about 12 seconds"
    assert wall_time(FRAMES_PER_SECOND * 600) == "about 10 minutes"
    assert wall_time(FRAMES_PER_SECOND * 60) == "about 1 minute"
    assert wall_time(FRAMES_PER_SECOND * 7200) == "about 2 hours"


@pytest.mark.parametrize("name, header", [("x.pcap", 24), ("x.pcapng", 32)])
def test_a_pcap_limit_below_the_files_header_is_refused(tmp_path: Path, capsys, name: str,
                                                        header: int) -> None:
    scenario = str(_scenario(tmp_path))
    for limit in ("0", str(header - 1)):
        assert main(["run", scenario, "--pcap", str(tmp_path / name), "--pcap-limit",
                     limit]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"--pcap-limit: given {limit} B" in err
        assert f"at least {header} B" in err
        assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]
    assert main(["run", scenario, "--pcap", str(tmp_path / name), "--pcap-limit",
                 str(header)]) == 0
    assert (tmp_path / name).stat().st_size == header  # the header of a capture of nothing


def test_a_pcapng_file_keeps_to_its_limit_with_its_interface_blocks(tmp_path: Path) -> None:
    """The limit counts every block: an interface's description written before its first
    frame too. The frames of a run are written again with each limit that ends just
    short of a block boundary of the whole capture."""
    from fcsim.runner import run_once
    from fcsim.scenario.loader import load_scenario
    from fcsim.trace.pcapng import PcapngWriter

    class Recorded(PcapngWriter):
        def __init__(self) -> None:
            super().__init__(io.BytesIO())
            self.calls: list[tuple] = []

        def write(self, *call) -> None:
            self.calls.append(call)
            super().write(*call)

    from fcsim.trace.capture import PcapSink

    recorded = Recorded()
    run_once(load_scenario(_scenario(tmp_path)), 1, [PcapSink(recorded, frozenset())])
    whole = recorded._file.getvalue()
    ends, at = [], 0
    while at < len(whole):
        at += int.from_bytes(whole[at + 4:at + 8], "little")
        ends.append(at)
    assert len(ends) > 4
    for limit in [end - 1 for end in ends[1:]]:
        writer = PcapngWriter(io.BytesIO(), limit)
        for call in recorded.calls:
            writer.write(*call)
        assert writer.size == len(writer._file.getvalue()) <= limit and writer.left_out
