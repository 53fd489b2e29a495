"""FC-3 against closed forms: striping multiplies the link rate by the ports
until a shared link binds; multicast delivers the source's rate to every
member, or the slowest member's; a hunt group loses exchanges as Erlang's loss
formula says."""

from __future__ import annotations

import math
import random

import pytest

from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import MAX_DATA_FIELD, frame_chars
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.runner import run_once
from fcsim.scenario.model import AliasGroupConfig
from fcsim.scenario.workload_model import GeneratorConfig, StreamConfig
from fcsim.workload.distributions import Constant
from tests.builders import fabric

GAP = 4 * MIN_FILL_WORDS  # fill characters after each frame


def unit_rate(unit: int, speed: str = "1GFC") -> float:
    """Payload rate of back-to-back sequences of *unit* bytes on one link, bytes/s."""
    full, rest = divmod(unit, MAX_DATA_FIELD)
    chars = full * (frame_chars(MAX_DATA_FIELD) + GAP) + (frame_chars(rest) + GAP if rest else 0)
    return unit / (chars * speed_named(speed).char_time)


def _striped(k: int, isl: bool = False, outstanding: int = 2) -> float:
    """Throughput of a stream of 256 KiB IUs striped over *k* N_Port pairs in
    32 KiB units (8 per IU), through one switch or (*isl*) across one
    inter-switch link, *outstanding* IUs open."""
    far = "b" if isl else "a"
    nodes = {"h": "a:0", "d": f"{far}:10"} | {f"h.{i}": f"a:{i}" for i in range(1, k)}
    nodes |= {f"d.{i}": f"{far}:{10 + i}" for i in range(1, k)}
    load = StreamConfig("s", "h", "d", 256 * 1024, 3, outstanding=outstanding, stripe_ports=k,
                        stripe_unit=32 * 1024)
    switches = {name: "generic-nonblocking" for name in ("a", far)}
    scenario = fabric(nodes, (load,), 12e-3, 2e-3, ports={"h": k, "d": k}, login=False,
                      switches=switches, isls=(("a:60", "b:60"),) if isl else ())
    return run_once(scenario, 1)["workloads"]["s"]["throughput_bytes_per_s"]


@pytest.mark.parametrize("k", [2, 4, 8])
def test_striping_over_k_ports_carries_k_times_one_link(k: int) -> None:
    """k pairs share nothing but a non-blocking switch, and every pair carries
    the same share of each IU (k divides its 8 units): k x the payload rate of
    one link carrying 32 KiB units (15 full frames and one of 1088 bytes)."""
    assert _striped(k) == pytest.approx(k * unit_rate(32 * 1024), rel=0.003)


def test_an_iu_waits_for_its_busiest_pair() -> None:
    """Three pairs and 8 units per IU, one IU at a time: the next IU starts when
    the pair with ceil(8/3) = 3 units has begun its last frame (a Class 3
    sequence is done at the sender then), so an IU takes 3 unit times less one
    1088-byte frame: about 8/3 of one link's rate, not 3 x. More IUs open fill
    the gaps."""
    char_time = speed_named("1GFC").char_time
    unit_time = 32 * 1024 / unit_rate(32 * 1024)
    last_frame = (frame_chars(32 * 1024 % MAX_DATA_FIELD) + GAP) * char_time
    expected = 256 * 1024 / (3 * unit_time - last_frame)
    assert _striped(3, outstanding=1) == pytest.approx(expected, rel=0.003)
    assert _striped(3, outstanding=8) > 0.99 * 3 * unit_rate(32 * 1024)


def test_striping_is_bound_by_a_shared_inter_switch_link() -> None:
    """Four pairs whose every frame crosses one ISL at the same speed: the ISL
    binds, at one link's rate."""
    assert _striped(4, isl=True) == pytest.approx(unit_rate(32 * 1024), rel=0.003)


def _multicast(slow: str | None) -> dict:
    nodes = {"src": "sw:0"} | {f"m{i}": f"sw:{1 + i}" for i in range(4)}
    group = AliasGroupConfig("g", "multicast", tuple(f"m{i}" for i in range(4)), "static")
    load = StreamConfig("s", "src", "g", 64 * 1024, 3, outstanding=2)
    return run_once(fabric(nodes, (load,), 12e-3, 2e-3, login=False, alias_groups=(group,),
                           speeds={"m3": slow} if slow else None), 1)


def test_multicast_gives_every_member_the_source_rate() -> None:
    result = _multicast(None)
    expected = unit_rate(64 * 1024)
    for member in result["fc3"]["multicast_groups"]["g"]["per_member"].values():
        assert member["throughput_bytes_per_s"] == pytest.approx(expected, rel=0.003)
    source = result["links"]["l-src"]["directions"]["src->sw:0"]
    for i in range(4):
        member = result["links"][f"l-m{i}"]["directions"][f"sw:{1 + i}->m{i}"]
        assert member["frames"] == pytest.approx(source["frames"], abs=1)


def test_multicast_runs_at_the_slowest_members_rate() -> None:
    """One member on a 265.625 Mbaud link: every member gets its rate (the
    input buffers are freed only when its copies leave)."""
    result = _multicast("266M")
    expected = unit_rate(64 * 1024, "266M")
    for member in result["fc3"]["multicast_groups"]["g"]["per_member"].values():
        assert member["throughput_bytes_per_s"] == pytest.approx(expected, rel=0.01)


def erlang_b(servers: int, load: float) -> float:
    """Erlang's loss formula: the share of arrivals that find every server busy."""
    terms = [load ** k / math.factorial(k) for k in range(servers + 1)]
    return terms[-1] / sum(terms)


def test_a_hunt_group_loses_class_3_exchanges_as_erlang_b() -> None:
    """Poisson arrivals of 32 KiB Class 3 exchanges to a hunt group of 3 members,
    each arrival from a client with nothing else under way: a member is held
    from the exchange's first frame to its last reaching the fabric, 15 frame
    slots (h), whatever else happens, so the group is an M/D/3/3 loss system
    and the refused share is Erlang B(3, lambda h) (insensitive to the holding
    time's distribution). Offered 2 Erlang: B = 0.2105 (computed from the
    offered load of the drawn arrivals)."""
    slot = (frame_chars(MAX_DATA_FIELD) + GAP) * speed_named("1GFC").char_time
    hold = 15 * slot
    load, members, arrivals = 2.0, 3, 2500
    rng = random.Random(7)
    times, t = [], 0.0
    for _ in range(arrivals):
        t += rng.expovariate(load / hold)
        times.append(t)
    clients: list[float] = [0.0] * 40  # when each client is free again
    loads = []
    for i, start in enumerate(times):
        c = min(range(len(clients)), key=clients.__getitem__)
        assert clients[c] <= start
        clients[c] = start + hold + 4 * slot
        loads.append(GeneratorConfig(f"w{i}", f"c{c}", "g", Constant(1e-12),
                                     Constant(32 * 1024), 3, start=start, count=1))
    nodes = {f"c{c}": f"sw:{c}" for c in range(len(clients))}
    nodes |= {f"m{i}": f"sw:{50 + i}" for i in range(members)}
    group = AliasGroupConfig("g", "hunt-group", tuple(f"m{i}" for i in range(members)),
                             "static")
    result = run_once(fabric(nodes, tuple(loads), times[-1] + 2 * hold, login=False,
                             alias_groups=(group,)), 1)
    hunt = result["fc3"]["hunt_groups"]["g"]
    assert hunt["exchanges"] + hunt["refused"] == arrivals
    expected = erlang_b(members, arrivals / times[-1] * hold)  # the load these arrivals offer
    spread = 4 * math.sqrt(expected * (1 - expected) / arrivals)
    assert hunt["refused"] / arrivals == pytest.approx(expected, abs=spread)
