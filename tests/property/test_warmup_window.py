"""No measured window reports negative traffic, whatever the faults and the
warm-up (hypothesis).

A workload counts the frames its recipient accepts as they arrive and takes
back those of a sequence the recipient abandons; the warm-up starts the
measured window afresh. A sequence under way at the warm-up and cut later
(by a LIP, a pulled cable) must take back only what the window counted.
"""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.faults.config import FaultConfig
from fcsim.fc2.login import ServiceParameters
from fcsim.runner import run_scenario
from fcsim.scenario.model import Scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import loop, p2p
from tests.property.test_fault_invariants import schedules

DURATION = 5e-3


def _assert_no_negative_window(scenario: Scenario) -> None:
    result = run_scenario(scenario)["repetitions"][0]
    for name, figures in result["workloads"].items():
        assert figures["frames"] >= 0 and figures["payload_bytes"] >= 0, (name, figures)
    for incident in result.get("faults", {}).get("schedule", []):
        for window, rate in incident["throughput_bytes_per_s"].items():
            assert rate is None or rate >= 0, (incident["at_s"], window, rate)


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(lips=st.lists(st.integers(100, 4900), min_size=1, max_size=12, unique=True),
       warmup=st.integers(0, 4500))
def test_lips_never_make_a_window_negative(lips: list[int], warmup: int) -> None:
    """Three hosts write 64 KiB sequences to an array on a loop; a spare port
    sends LIP at random times (us) and the warm-up ends at a random time (us)."""
    streams = tuple(StreamConfig(f"w{i}", f"p{i}", "p3", 65536, outstanding=2)
                    for i in range(3))
    base = loop(5, streams, DURATION, warmup * 1e-6,
                params={"p3": ServiceParameters(bb_credit=32)})
    faults = tuple(FaultConfig(at * 1e-6, "lip", port="p4") for at in sorted(lips))
    _assert_no_negative_window(dataclasses.replace(base, faults=faults))


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(faults=schedules(), warmup=st.integers(0, 9000), cls=st.sampled_from([2, 3]))
def test_point_to_point_faults_never_make_a_window_negative(
        faults: tuple[FaultConfig, ...], warmup: int, cls: int) -> None:
    """A stream of 64 KiB sequences over a point-to-point link under a random
    fault schedule (cables pulled and put back, loss of synchronisation,
    corrupted characters, port failures, bit errors), the warm-up ending at a
    random time (us)."""
    stream = StreamConfig("s", "a", "b", 65536, cls=cls, outstanding=2)
    base = p2p((stream,), 0.012, warmup * 1e-6)
    _assert_no_negative_window(dataclasses.replace(base, faults=faults))
