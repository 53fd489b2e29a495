"""Every example scenario captured on every cable, as ``--pcap`` writes it
(one file per cable), reads in tshark with default preferences with no
malformed frame and no error.

By default each example is captured for its first
:data:`SHORT_CAPTURE` (0.2 s) of simulated time, or longer when it has
faults: up to :data:`AFTER_FAULTS` (1.5 s) after its last fault, to see the
recovery (a TCP retransmission timer, a link's return); an example shorter
than that is captured whole. Every example's traffic starts well within
0.2 s, so the short capture carries the same kinds of frames through the
same code (logins, every FC-4 and its sequences, the Ethernet and Myrinet
encapsulations, every fault and its recovery); what it leaves out is more
of the same steady-state traffic, which is what makes the full-length read
take minutes. Set ``FCSIM_FULL_CAPTURES=1`` to capture every example at its
full length (about 4 minutes on two cores).

To keep tshark's start-up cost down on fabrics of thousands of cables, the
Fibre Channel cable files are merged (mergecap, in time order) into as few
files as can hold them without two cables that carry the same multi-frame
sequence, the thing Wireshark would reassemble twice
(``epan/dissectors/packet-fc.c`` keys reassembly on the addresses, OX_ID
XOR SEQ_ID and the exchange-responder bit, not on the interface): every
frame of every cable is read once, and only warnings that need the other
direction of an exchange (a reply whose request took another path) could
differ from reading each cable alone. Ethernet and Myrinet cable files are
read one by one. Of a sweep, the last point is captured (its largest
messages, the most multi-frame sequences), its first repetition, as
``--pcap`` would capture it alone.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from fcsim.fc2 import header as h
from fcsim.fc2.frame import MAX_DATA_FIELD, Frame
from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario
from fcsim.sweep import sweep_points
from fcsim.trace.capture import CableCaptures, linktypes

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "scenarios").glob("*.toml"))
ERRORS = "_ws.malformed || _ws.expert.severity >= 8388608"
"""Malformed frames and expert items of severity Error (PI_ERROR, 0x00800000)."""

needs_tshark = pytest.mark.skipif(shutil.which("tshark") is None or shutil.which("mergecap")
                                  is None, reason="tshark (and mergecap) not installed")


class SequenceKeys:
    """Trace sink: per cable file of *captures*, the reassembly keys of the
    multi-frame FC sequences it carried; *fc*: the files of FC cables."""

    def __init__(self, captures: CableCaptures) -> None:
        self.captures = captures
        self.keys: dict[Path, set[tuple[int, int, int]]] = {}
        self.fc: set[Path] = set()

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        if not isinstance(frame, Frame):
            return
        path = self.captures.path_of(port)
        if path is None:
            return
        self.fc.add(path)
        if frame.seq_cnt == 0 and frame.f_ctl & h.F_CTL_END_SEQUENCE:
            return  # a one-frame sequence: nothing to reassemble
        responder = 1 if frame.f_ctl & h.F_CTL_EXCHANGE_CONTEXT else 0
        key = (frame.s_id, frame.d_id, ((frame.ox_id << 16) ^ frame.seq_id) | responder)
        self.keys.setdefault(path, set()).add(key)

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """Not needed."""

    def state(self, time: float, port: Any, change: str) -> None:
        """Not needed."""

    def groups(self, files: list[Path]) -> list[list[Path]]:
        """*files* in groups no two of whose FC files share a key (greedy, the
        files with most keys first); a file of other frames is a group alone."""
        groups: list[tuple[list[Path], set[tuple[int, int, int]]]] = []
        for file in sorted((f for f in files if f in self.fc),
                           key=lambda f: -len(self.keys.get(f, ()))):
            mine = self.keys.get(file, set())
            for members, keys in groups:
                if keys.isdisjoint(mine):
                    members.append(file)
                    keys |= mine
                    break
            else:
                groups.append(([file], set(mine)))
        return [members for members, _ in groups] + [[f] for f in files if f not in self.fc]


SHORT_CAPTURE = 0.2
"""Simulated time each example is captured for by default, s."""
AFTER_FAULTS = 1.5
"""By default, how long after its last fault an example is captured, s."""
FULL = os.environ.get("FCSIM_FULL_CAPTURES", "") not in ("", "0")
"""Capture every example at its full length (``FCSIM_FULL_CAPTURES=1``)."""


def captured_for(scenario: Any) -> float:
    """How long *scenario* is captured, s: its duration with
    ``FCSIM_FULL_CAPTURES``, else :data:`SHORT_CAPTURE`, extended to
    :data:`AFTER_FAULTS` past its last fault (its start, or its end when it
    lasts a while or repeats until a time), never past its duration."""
    if FULL:
        return scenario.run.duration
    last = max((max(f.at + (f.duration or 0.0), f.until or 0.0) for f in scenario.faults),
               default=None)
    cut = SHORT_CAPTURE if last is None else max(SHORT_CAPTURE, last + AFTER_FAULTS)
    return min(scenario.run.duration, cut)


def _last_point(example: Path):
    scenario = load_scenario(example)
    points = sweep_points(scenario)
    scenario = points[-1][1] if points else scenario
    duration = captured_for(scenario)
    if duration == scenario.run.duration:
        return scenario
    run = dataclasses.replace(scenario.run, duration=duration,
                              warmup=min(scenario.run.warmup, duration / 2))
    return dataclasses.replace(scenario, run=run)


def _problems(path: Path, home: Path, prefs: tuple[str, ...] = ()) -> list[str]:
    options = [arg for pref in prefs for arg in ("-o", pref)]
    result = subprocess.run(
        ["tshark", "-n", *options, "-r", str(path), "-Y", ERRORS, "-T", "fields",
         "-e", "frame.number", "-e", "_ws.expert.message"], env={**os.environ, "HOME": str(home)},
        capture_output=True, text=True, check=True, timeout=600)
    return [line for line in result.stdout.splitlines() if line.strip()]


def check(example: Path, folder: Path, prefs: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """Capture *example* on every cable into *folder* and read the files with
    tshark (default preferences, or *prefs* set): per file (or merged group),
    its first malformed frames or errors."""
    scenario = _last_point(example)
    captures = CableCaptures(folder / "cable.pcapng", True, min(linktypes(scenario)), None)
    keys = SequenceKeys(captures)
    run_once(scenario, scenario.run.seed, [captures, keys])
    files = captures.close()
    problems = {}
    for i, group in enumerate(keys.groups(files) if len(files) > 1 else [files]):
        path = group[0]
        if len(group) > 1:
            path = folder / f"merged-{i}.pcapng"
            subprocess.run(["mergecap", "-w", str(path), *map(str, group)], check=True,
                           timeout=600)
        found = _problems(path, folder, prefs)
        if found:
            problems[", ".join(p.name for p in group)] = found[:5]
        for file in group if len(group) == 1 else [*group, path]:
            file.unlink()  # the disk holds one example's files at a time
    return problems


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[Path, Future]]:
    """The selected examples checked in the background, two at a time (CI's
    two cores): each test waits for its own."""
    selected = [item.callspec.params["example"] for item in request.session.items
                if item.module is request.module and hasattr(item, "callspec")]
    with ProcessPoolExecutor(max_workers=2) as pool:
        yield {example: pool.submit(check, example, tmp_path_factory.mktemp(example.stem))
               for example in selected}


@needs_tshark
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_cable_of_every_example_reads_without_errors(
        example: Path, outcomes: dict[Path, Future]) -> None:
    assert outcomes[example].result() == {}


@needs_tshark
def test_without_in_order_delivery_rerouted_frames_read_as_overlaps(tmp_path: Path) -> None:
    """fabric-fspf-flap with its switches' in-order delivery off: when FSPF
    puts the ISL back into use at 25.1 ms, exchanges move from the path whose
    switch output holds 32 frames to the empty one and their later frames
    overtake earlier ones. Wireshark places a frame of a sequence at SEQ_CNT
    x fc.max_frame_size (default 1,024 bytes; it does not read the Relative
    Offset), so with 2,112-byte frames out of order it finds a sequence whole
    before its last frame and reads that frame as new data over old
    (epan/dissectors/packet-fc.c). With the preference at the frames' size
    the same capture reads clean: the errors are the out-of-order arrival
    read through that placement. In order (the example as shipped, with
    in-order delivery) the default read is clean, so the placement alone
    causes no error."""
    example = tmp_path / "fabric-fspf-flap.toml"
    text = (ROOT / "scenarios" / "fabric-fspf-flap.toml").read_text()
    example.write_text(text.replace("in_order_delivery = true\n", "")
                       .replace('drop_latency = "1 ms"\n', ""))
    found = check(example, tmp_path)
    assert found and all("New fragment overlaps old data" in line
                         for lines in found.values() for line in lines)
    assert check(example, tmp_path, (f"fc.max_frame_size:{MAX_DATA_FIELD}",)) == {}


@pytest.mark.parametrize("example", sorted((ROOT / "scenarios").glob("*.toml")),
                         ids=lambda p: p.stem)
def test_the_capture_covers_every_fault_and_the_start_of_every_workload(example: Path) -> None:
    """The default capture's length leaves nothing an example does unseen:
    every workload has started and every fault has happened (and ended)
    before it stops."""
    scenario = load_scenario(example)
    points = sweep_points(scenario)
    scenario = points[-1][1] if points else scenario
    cut = captured_for(scenario)
    starts = [getattr(w, "start", 0.0) or 0.0 for w in scenario.workloads]
    assert all(start < cut for start in starts)
    for fault in scenario.faults:
        assert fault.at + (fault.duration or 0.0) < cut or cut == scenario.run.duration
