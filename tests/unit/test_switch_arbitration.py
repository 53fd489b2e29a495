"""An output that passes over an input busy feeding another output gives it
the next turn: two outputs that pull in step no longer starve an input.

The case is one the flow-model oracle found (tests/property/test_flow_oracle.py):
a generated core-edge fabric of 1GFC N_Ports and 2GFC ISLs, random pairs.
Switch e2's output to e2n0 and its output to e2n2 pulled in step, both at
1GFC; the ISL input e2:5 fed the second each time the first looked at it, so
the first passed it over every time and the ACC of e2n0's PLOGI to its peer,
queued at that input, never crossed: e2n0 never finished logging in and its
stream sent nothing. Now every N_Port logs in, and the two streams into
e0n2 share its link equally.
"""

from __future__ import annotations

from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import frame_chars
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.runner import run_once
from fcsim.scenario.loader import scenario_from_document
from tests.voq_fabric import on_voq

FABRIC = {"kind": "core-edge", "model": "generic-nonblocking", "switches": 5, "cores": 2,
          "nodes_per_switch": 3, "isls": 2, "speed": "1GFC", "isl_speed": "2GFC",
          "length": "1 m", "isl_length": "500 m", "routing": "port-based",
          "traffic": "random-pairs", "stream_size": "8 KiB", "outstanding": 1,
          "traffic_seed": 403}


def test_an_input_passed_over_is_not_starved() -> None:
    document = {"name": "starved", "topology": "fabric", "fabric": FABRIC,
                "run": {"duration": "8 ms", "warmup": "1 ms", "login": True}}
    scenario = scenario_from_document(document, "starved.toml")
    scenario = on_voq(scenario, 3, 0.0, False, 3)
    result = run_once(scenario, 1)
    assert not result["warnings"]
    assert all(t is not None for t in result["login_s"].values())
    # pair3 (e1n0) and pair6 (e2n0) both go to e0n2: each gets half of its link's
    # payload rate, 8 KiB in three 2112-byte frames and one of 1856 bytes
    frames = [2112, 2112, 2112, 8192 - 3 * 2112]
    line = sum(frame_chars(d) + 4 * MIN_FILL_WORDS for d in frames) * speed_named("1GFC").char_time
    half = 8192 / line / 2
    for name in ("pair3", "pair6"):
        rate = result["workloads"][name]["throughput_bytes_per_s"]
        assert abs(rate - half) <= 0.02 * half, (name, rate, half)
