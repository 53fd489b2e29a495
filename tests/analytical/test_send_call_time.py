"""netperf's time per send() call (RD11's sender-side "overhead"): the calls
follow one another, so the messages they hand to TCP are the bytes the
receiver got plus at most what the two socket buffers hold, and no call
takes less than the sender's processor time for the call and its copy."""

from __future__ import annotations

import pytest

from fcsim.host.copies import socket_copy_time
from fcsim.validation.points import (
    ROOT,
    Point,
    narrow,
    scenario_file,
    simulate,
    swept_workload,
)

CASES = [  # (file, socket, message size)
    ("scenarios/rd11/send-small-load-none.toml", None, 64),
    ("scenarios/rd11/send-small-load-none.toml", None, 512),
    ("scenarios/ong-farrell/fig06-stream-c110-to-c110.toml", 262143, 8192),
]


@pytest.mark.parametrize(("path", "socket", "size"), CASES,
                         ids=[f"{p.split('/')[-1]}-{m}" for p, _s, m in CASES])
def test_calls_hand_over_what_arrives_and_cost_at_least_their_processor_time(
        path: str, socket: int | None, size: int) -> None:
    point = Point(path, socket, size, length=0.5)
    scenario = narrow(point)
    workload = swept_workload(scenario_file(path), ROOT / path)
    test = simulate(point)["netperf"][workload.name]
    per_call = test["send_call_s"]
    assert "steady_state" not in test  # 0.5 s: measured whole, not extrapolated
    handed = round(0.5 / per_call) * size  # bytes the sender's calls handed to TCP
    narrowed = next(w for w in scenario.workloads if w.name == workload.name)
    buffers = 2 * narrowed.sockets[0]  # -s and -S
    assert 0 <= handed - test["bytes"] <= buffers + size
    host = next(n.host for n in scenario.nodes if n.name == workload.source)
    assert host is not None
    # the segment size (1460) matters only to zero-copy receive, not to a send
    assert per_call >= host.syscall + socket_copy_time(host, size, True, 1460)
