"""A LIP fault on a busy loop: the open tenancy is aborted, frames in flight
are lost and counted, the loop initialises from the port that sent LIP, and
traffic resumes."""

from __future__ import annotations

import dataclasses
import io

import pytest

from fcsim.faults.config import FaultConfig
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
