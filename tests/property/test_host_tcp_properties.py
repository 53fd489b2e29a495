"""TCP over IP over FC between hosts: bytes arrive once, in order, whatever the
message size, socket size and FC class; socket buffers hold at most their size."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.apps.netperf import Netperf, NetperfOptions
from fcsim.engine.simulation import Simulation
from fcsim.host.host import Host
from fcsim.host.host_model import load_host_model
from fcsim.topology.point_to_point import build_point_to_point
from tests.builders import p2p

MODEL = dataclasses.replace(load_host_model("workstation-120mhz"), background_utilisation=0.2)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 70_000), st.sampled_from([4096, 16384, 32768, 65536, 262144]),
       st.sampled_from([1, 2, 3]), st.booleans(), st.integers(0, 10))
def test_every_byte_once_in_order_within_buffers(send_size, socket, cls, nodelay, seed) -> None:
    scenario = p2p((), duration=1.0, speed="266M", seed=seed)
    sim = Simulation(seed)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    a = Host(sim, "a", MODEL, net.nodes["a"], ip_class=cls)
    b = Host(sim, "b", MODEL, net.nodes["b"], ip_class=cls)
    run = Netperf(sim, "np", a, b, NetperfOptions(send_size=send_size, local_socket=socket,
                                                   remote_socket=socket, nodelay=nodelay,
                                                   length=0.05))
    sender, receiver = run.local.endpoint, run.remote.endpoint
    checks = 0
    for step in range(1, 41):  # sample the buffers along the run
        sim.run(step * 0.002)
        assert sender.tcb.sb_cc <= sender.tcb.sndbuf
        assert receiver.tcb.unread <= receiver.tcb.rcvbuf
        assert receiver.counters.bytes_read <= sender.counters.bytes_written
        checks += 1
    sim.run(1.0)  # the sender stops writing at 50 ms; TCP drains
    assert checks == 40
    written = sender.counters.bytes_written
    assert written > 0
    assert receiver.counters.bytes_read + receiver.tcb.unread == written  # each byte once
    assert sender.counters.bytes_acked == written
