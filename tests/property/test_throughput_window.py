"""Workload throughput over short windows never beats the link (hypothesis)."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.fc0.speed import CATALOG
from fcsim.fc2.frame import FRAMING_BYTES, MAX_DATA_FIELD
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from fcsim.storage.config import FioConfig
from fcsim.storage.device_model import RamDiskModel
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

INSTANT = RamDiskModel("instant", 10**12, 1e-12, 1e15)
"""A RAM disk that takes no time: the link alone bounds a job."""


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(frames=st.integers(1, 40), window=st.floats(20e-6, 3e-3), warmup=st.floats(0.0, 1e-3),
       cls=st.sampled_from([2, 3]), speed=st.sampled_from(["1GFC", "4GFC"]))
def test_throughput_within_link_ceiling(frames: int, window: float, warmup: float, cls: int,
                                        speed: str) -> None:
    """Payload counted in a window is at most what the line can carry in it, plus
    the one frame that may straddle the window's start."""
    line = CATALOG[speed]
    frame_time = (MAX_DATA_FIELD + FRAMING_BYTES + 4 * MIN_FILL_WORDS) * line.char_time
    stream = StreamConfig("s", "a", "b", frames * MAX_DATA_FIELD, cls=cls, outstanding=3)
    result = run_scenario(p2p((stream,), duration=warmup + window, warmup=warmup, speed=line))
    payload = result["repetitions"][0]["workloads"]["s"]["payload_bytes"]
    assert payload <= MAX_DATA_FIELD * (window / frame_time + 1)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(bs_frames=st.integers(1, 512), depth=st.integers(1, 16), window=st.floats(50e-6, 60e-3),
       warmup=st.floats(0.0, 20e-3), rw=st.sampled_from(["read", "write", "randread"]),
       speed=st.sampled_from(["1GFC", "4GFC"]))
def test_fio_rate_within_link_ceiling(bs_frames: int, depth: int, window: float, warmup: float,
                                      rw: str, speed: str) -> None:
    """A fio job's byte rate over any measured window is at most the line's
    payload ceiling plus one frame, however many large commands are in flight
    across the window's edges (counted as their data frames arrive)."""
    line = CATALOG[speed]
    frame_time = (MAX_DATA_FIELD + FRAMING_BYTES + 4 * MIN_FILL_WORDS) * line.char_time
    job = FioConfig("job", "a", "b", FioOptions(rw, bs_frames * 2048, iodepth=depth))
    base = p2p((job,), duration=warmup + window, warmup=warmup, speed=line)
    a, b = base.nodes
    scenario = dataclasses.replace(base, nodes=(a, dataclasses.replace(b, target=INSTANT)))
    figures = run_scenario(scenario)["repetitions"][0]["storage"]["jobs"]["job"]
    payload = figures["throughput_bytes_per_s"] * window
    assert payload <= MAX_DATA_FIELD * (window / frame_time + 1) * (1 + 1e-9)
