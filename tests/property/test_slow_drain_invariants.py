"""Invariants of credit and frames with slow-drain receivers (hypothesis): a
port's BB credit stays between zero and its login value, and every frame
sent is delivered, discarded or still on its way (on the fibre or in a
receive buffer), at any moment of a run."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.build import BUILDERS, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.receive_drain import DrainSpec
from fcsim.scenario.workload_model import StreamConfig
from fcsim.workload.distributions import Exponential
from tests.builders import p2p

STUCK = st.one_of(st.none(), st.tuples(st.sampled_from([0.0, 0.3e-3, 1e-3]),
                                       st.sampled_from([0.1e-3, 1e-3])))
DRAINS = st.builds(
    lambda frame_time, rate, delay, stuck: DrainSpec(
        frame_time, rate, delay, None if stuck is None else stuck[0],
        0.0 if stuck is None else stuck[1]),
    st.sampled_from([0.0, 5e-6, Exponential(10e-6)]),
    st.sampled_from([0.0, 10e6, 60e6]),
    st.sampled_from([0.0, 20e-6, Exponential(50e-6)]),
    STUCK,
)
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(DRAINS, st.integers(1, 8), st.sampled_from([256, 2112]), st.sampled_from([1.0, 2000.0]))
def test_credit_bounded_and_frames_conserved(drain: DrainSpec, buffers: int, payload: int,
                                             length: float) -> None:
    stream = (StreamConfig("w", "a", "b", 4 * payload, cls=3, max_data_field=payload,
                           outstanding=2),)
    scenario = p2p(stream, duration=3e-3, length=length,
                   b=ServiceParameters(bb_credit=buffers, drain=drain))
    sim = Simulation(scenario.run.seed)
    net = BUILDERS[scenario.topology](sim, scenario)
    build_workloads(sim, scenario, net)
    a, b = net.nodes["a"], net.nodes["b"]
    sender, receiver = a.port, b.port
    for step in range(1, 31):
        sim.run(step * 1e-4)
        credit = sender.credit_now()
        assert 0 <= credit <= sender.credit_login
        on_fibre = sender.stats.frames_tx - receiver.stats.frames_rx
        # each credit is in one place: at the sender, in a buffer, on the way there or back
        assert (sender.credit + len(sender._r_rdys) + receiver.buffers_used + on_fibre
                == sender.credit_login)
        assert 0 <= receiver.buffers_used <= receiver.rx_buffers
        handled = b.stats.data_frames_rx + b.stats.discarded_frames + b.stats.dropped_frames
        assert a.stats.data_frames_tx == handled + receiver.buffers_used + on_fibre
