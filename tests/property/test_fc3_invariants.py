"""FC-3 invariants over random scenarios (hypothesis): striped bytes delivered
once and in order; a hunt-group exchange reaches exactly one member, never a
busy one; multicast copies are members x frames, each accounted for; no
R_RDY returns a buffer before its frame is in."""

from __future__ import annotations

import dataclasses
from collections import defaultdict

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.build import build_fabric, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc2.login import ServiceParameters
from fcsim.scenario.model import AliasGroupConfig
from fcsim.scenario.workload_model import GeneratorConfig, StreamConfig
from fcsim.workload.distributions import Constant, Exponential
from tests.builders import fabric
from tests.property.test_fabric_invariants import CreditReturnChecker

BASE = load_switch_model("generic-nonblocking")
MODELS = st.builds(lambda voq, ct, credit: dataclasses.replace(
    BASE, virtual_output_queues=voq, cut_through=ct, bb_credit=credit),
    st.booleans(), st.booleans(), st.integers(1, 4))
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def _quiet(net) -> None:
    """At quiescence every credit is back and every buffer free."""
    for port in net.ports():
        assert port.current_credit() == port.credit_login
        assert port.buffers_used == 0


@SETTINGS
@given(st.integers(2, 4), st.integers(1, 9000), st.integers(1, 20000), st.integers(1, 3),
       st.sampled_from([1, 2, 3]), st.integers(1, 5), MODELS, st.booleans())
def test_every_striped_byte_is_delivered_once_and_in_order(
        k: int, unit: int, size: int, outstanding: int, cls: int, count: int, model,
        login: bool) -> None:
    nodes = {"h": "sw:0", "d": "sw:10"} | {f"h.{i}": f"sw:{i}" for i in range(1, k)}
    nodes |= {f"d.{i}": f"sw:{10 + i}" for i in range(1, k)}
    load = StreamConfig("s", "h", "d", size, cls, outstanding=outstanding, count=count,
                        stripe_ports=k, stripe_unit=unit)
    scenario = fabric(nodes, (load,), 0.05, ports={"h": k, "d": k}, login=login,
                      switches={"sw": model})
    sim = Simulation(1)
    net = build_fabric(sim, scenario)
    (stream,) = build_workloads(sim, scenario, net)
    stream.reassembly.log = log = []
    sim.run(scenario.run.duration)
    expected = [(iu, offset, min(unit, size - offset)) for iu in range(count)
                for offset in range(0, size, unit)]
    assert log == expected
    assert stream.stats.sequences == count and stream.stats.payload == count * size
    assert stream.reassembly.held == 0 and not stream.reassembly.pending
    assert sum(stream.stats.payload_tx) == count * size
    _quiet(net)


class Deliveries:
    """Trace sink: the member each hunt-group exchange's frames were sent to."""

    def __init__(self, alias: int, members: dict[str, str]) -> None:
        self.alias = alias
        self.members = members  # F_Port name -> member
        self.to: dict[tuple[int, int], set[str]] = defaultdict(set)

    def frame(self, time, port, frame, start, end) -> None:
        if frame.d_id == self.alias and port.name in self.members:
            self.to[(frame.s_id, frame.ox_id)].add(self.members[port.name])

    def primitive(self, time, port, name, start) -> None:
        pass


@SETTINGS
@given(st.integers(2, 4), st.integers(1, 3), st.integers(1, 5), st.sampled_from([2, 3]),
       st.integers(1, 9000), st.floats(50e-6, 1e-3), MODELS)
def test_a_hunt_group_exchange_goes_to_one_member_never_a_busy_one(
        members: int, per_member: int, clients: int, cls: int, size: int, mean: float,
        model) -> None:
    nodes = {f"m{i}": f"sw:{i}" for i in range(members)}
    nodes |= {f"c{i}": f"sw:{20 + i}" for i in range(clients)}
    group = AliasGroupConfig("g", "hunt-group", tuple(f"m{i}" for i in range(members)),
                             "alias-server", per_member)
    loads = tuple(GeneratorConfig(f"w{i}", f"c{i}", "g", Exponential(mean), Constant(size),
                                  cls, count=8) for i in range(clients))
    scenario = fabric(nodes, loads, 0.05, alias_groups=(group,), switches={"sw": model},
                      params=ServiceParameters(busy_retry=50e-6))
    sim = Simulation(1)
    credit = CreditReturnChecker()
    sim.sinks.append(credit)  # from the start: logins send frames as the fabric is built
    net = build_fabric(sim, scenario)
    hunt = net.aliases.by_name["g"]
    sink = Deliveries(hunt.alias_id, {f"sw:{i}": f"m{i}" for i in range(members)})
    sim.sinks.append(sink)
    choose = hunt.choose
    chosen = []

    def checked(frame):
        member = choose(frame)
        if member is not None:
            assert hunt.open[member] < per_member and not hunt.busy_member(member, frame)
            chosen.append(member)
        return member
    hunt.choose = checked
    workloads = build_workloads(sim, scenario, net)
    sim.run(scenario.run.duration)
    assert sink.to and all(len(reached) == 1 for reached in sink.to.values())
    assert len(chosen) == sum(hunt.exchanges.values()) >= len(sink.to)
    assert all(n == 0 for n in hunt.open.values())  # every exchange ended
    delivered = sum(w.stats.sequences for w in workloads)
    assert delivered == sum(hunt.exchanges.values())  # each exchange given is delivered
    if cls == 2:  # busied sequences are sent again until a member takes them
        assert delivered == 8 * clients
    else:  # a refused Class 3 exchange is lost, counted
        assert delivered + hunt.refused == 8 * clients
    assert credit.early() == []  # a refusal frees its buffer only once the frame is in
    _quiet(net)


@SETTINGS
@given(st.integers(2, 5), st.booleans(), st.sampled_from([0.0, 1e-6]), st.integers(1, 60000),
       st.integers(1, 6), MODELS, st.booleans())
def test_multicast_copies_are_members_times_frames_each_accounted(
        members: int, source_member: bool, ber: float, size: int, count: int, model,
        two_switches: bool) -> None:
    """Every frame that enters the fabric is copied once per member (but the
    sender); every copy switched to a member reaches its N_Port, where it is
    accepted, dropped for a transmission error or discarded, each counted."""
    names = [f"m{i}" for i in range(members)]
    far = "b" if two_switches else "a"
    nodes = {name: f"{far if i % 2 else 'a'}:{i}" for i, name in enumerate(names)}
    source = names[0] if source_member else "src"
    nodes.setdefault(source, "a:30")
    group = AliasGroupConfig("g", "multicast", tuple(names), "static")
    load = StreamConfig("s", source, "g", size, 3, outstanding=2, count=count)
    scenario = fabric(nodes, (load,), 0.02, login=False, alias_groups=(group,),
                      switches={s: model for s in {"a", far}},
                      isls=(("a:60", "b:60"),) if two_switches else (), bit_error_rate=ber)
    sim = Simulation(1)
    credit = CreditReturnChecker()
    sim.sinks.append(credit)
    net = build_fabric(sim, scenario)
    build_workloads(sim, scenario, net)
    sim.run(scenario.run.duration)
    assert credit.early() == []  # the input is freed after the last copy, never before EOF
    mg = net.aliases.by_name["g"]
    receivers = [m for m in mg.ids if m != net.address_of(source)]
    sent = net.nodes[source].stats.data_frames_tx
    damaged = sum(s.stats.errors for s in net.switches.values())
    if ber == 0:
        assert mg.frames_in == sent and damaged == 0
    assert mg.copies == sum(mg.stats[m].copies for m in receivers)
    if not two_switches:  # a damaged frame is copied by a cut-through switch only
        assert mg.copies == mg.frames_in * len(receivers)
        assert sent == mg.frames_in + (0 if model.cut_through else damaged)
    for m in mg.ids:
        node = net.nodes[mg.names[m]]
        arrived = node.stats.data_frames_rx + node.stats.dropped_frames
        arrived += node.stats.discarded_frames
        assert arrived == mg.stats[m].copies
        if ber == 0:
            assert mg.stats[m].frames == (sent if m in receivers else 0)
    _quiet(net)
