"""A LIP fault on a busy loop: the open tenancy is aborted, frames in flight
are lost and counted, the loop initialises from the port that sent LIP, and
traffic resumes."""

from __future__ import annotations

import dataclasses
import io

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.faults.config import FaultConfig
from fcsim.fc1 import ordered_sets as osets
from fcsim.fc2 import header as h
from fcsim.fc2.frame import Frame
from fcsim.loop.lport import LPort
from fcsim.runner import run_once
from fcsim.scenario.workload_model import StreamConfig
from fcsim.trace.timeline import Timeline
from tests.builders import loop

STREAMS = tuple(StreamConfig(f"to-p{i}", "p0", f"p{i}", 65536, outstanding=2)
                for i in (1, 2, 3))


def lip_run(faults: tuple[FaultConfig, ...], lip_at: tuple[float, ...] = ()):
    scenario = dataclasses.replace(loop(4, STREAMS, 0.02, warmup=0.001, lip_at=lip_at),
                                   faults=faults)
    out = io.StringIO()
    return run_once(scenario, 1, [Timeline(out)]), out.getvalue()


def test_a_lip_aborts_the_tenancy_and_traffic_resumes() -> None:
    result, trace = lip_run((FaultConfig(0.008, "lip", port="p3"),))
    init = result["loop"]["initialisations"][1]
    assert init["start_s"] == 0.008 and init["completed"]
    record = result["faults"]["schedule"][0]
    assert record["recovered_s"] == pytest.approx(0.008 + init["duration_s"])
    assert record["recovery"] == "loop initialised"
    assert record["frames_lost"] == sum(n["lost_frames"] for n in result["nodes"].values()) >= 1
    assert record["payload_lost_bytes"] > 0
    rates = record["throughput_bytes_per_s"]
    assert rates["during"] == 0.0 and rates["after"] > 0.95 * rates["before"]
    lip_lines = [line for line in trace.splitlines() if "LIP(F7,F7)" in line]
    assert len(lip_lines) == 2 and " p3->" in lip_lines[1]  # sent by the port the fault names


def test_a_lip_cut_short_by_another_recovers_when_the_last_ends() -> None:
    result, _ = lip_run((FaultConfig(0.008, "lip", port="p3"),), lip_at=(0.008005,))
    inits = result["loop"]["initialisations"]
    assert [i["completed"] for i in inits] == [True, False, True]
    record = result["faults"]["schedule"][0]
    assert record["recovered_s"] == pytest.approx(inits[2]["start_s"] + inits[2]["duration_s"])


def test_a_loop_port_counts_the_frames_and_payload_a_lip_destroys() -> None:
    """What a fault run reads of a loop port's losses: every frame counts, only
    the payload of frames that carry one (a link-control frame carries none),
    and each lost frame reaches the owner as dropped."""
    port = LPort(Simulation(1), "p", rx_buffers=2)
    dropped: list[Frame] = []

    class Owner:
        def frame_dropped(self, frame: Frame) -> None:
            dropped.append(frame)

    port.owner = Owner()  # type: ignore[assignment]
    data = Frame(osets.SOFn3, osets.EOFn, h.R_CTL_SOLICITED_DATA, 1, 2, h.TYPE_VENDOR, 0,
                 0, 0, 0, 0xFFFF, 2112, 3)
    ack = Frame(osets.SOFn2, osets.EOFt, h.R_CTL_ACK_1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 2)
    for frame in (data, ack, data):
        port.lose(frame)
    assert port.loop_stats.lost == 3
    assert port.loop_stats.payload_lost == 2 * data.payload_len == 2 * 2112
    assert dropped == [data, ack, data]
    port.reset_stats()
    assert port.loop_stats.lost == port.loop_stats.payload_lost == 0
