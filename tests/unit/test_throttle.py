"""An FCP initiator throttled by congestion notifications: the limit follows
its stated rule, and the initiator keeps within it."""

from __future__ import annotations

import math
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.build import BUILDERS, build_hosts, build_workloads, install_throttles
from fcsim.engine.simulation import Simulation
from fcsim.fc2 import fpin as f
from fcsim.fc4.outstanding import HeldCommands
from fcsim.fc4.throttle import ALARM_FACTOR, WARNING_FACTOR, CongestionThrottle, ThrottlePolicy
from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario
from fcsim.storage.build import Storage

ROOT = Path(__file__).resolve().parents[2]


class _Initiator:
    """What a throttle reads of an initiator: a fixed outstanding count."""

    def __init__(self, in_flight: int) -> None:
        self.in_flight = in_flight
        self.held: HeldCommands[object] = HeldCommands()
        self.released = 0

    def release(self) -> None:
        self.released += 1


def _alarm(period: float) -> f.Congestion:
    return f.Congestion(f.CONGESTION_CREDIT_STALL, f.SEVERITY_ALARM, period)


def test_alarms_halve_warnings_take_a_quarter_and_quiet_steps_back_up() -> None:
    """From 32 outstanding: alarms every period give 16, 8, 4; one within the
    same period is not counted again; a warning leaves 3/4 of the limit
    (3); then each quiet recovery interval adds one command until the limit
    reaches the 32 at which throttling began, when it is lifted: 29 rises,
    the last at 4 ms + 29 recoveries."""
    sim = Simulation(1)
    recovery, period = 1e-3, 1e-4
    limit = CongestionThrottle(sim, ThrottlePolicy(recovery))
    initiator = _Initiator(32)
    limit.attach(initiator)
    events = [(0.0, _alarm(period)), (0.5e-4, _alarm(period)), (1e-4, _alarm(period)),
              (2e-4, _alarm(period)),
              (3e-4, f.Congestion(f.CONGESTION_CREDIT_STALL, f.SEVERITY_WARNING, period))]
    for at, descriptor in events:
        sim.call_later(at, lambda d: limit.fpin_received(0, d), descriptor)
    sim.run(3e-4 + 1e-9)
    expected = [32 * ALARM_FACTOR, 32 * ALARM_FACTOR ** 2, 32 * ALARM_FACTOR ** 3]
    expected.append(math.floor(expected[-1] * WARNING_FACTOR))
    assert [lim for _, lim in limit.changes] == [int(x) for x in expected]
    assert limit.falls == 4 and limit.ceiling == 32
    sim.run(3e-4 + recovery * 40)
    rises = [(t, lim) for t, lim in limit.changes[4:]]
    steps = 32 - 3
    assert len(rises) == steps and rises[-1][1] is None
    for k, (t, lim) in enumerate(rises, 1):
        assert math.isclose(t, 3e-4 + k * recovery)
        assert lim == (3 + k if k < steps else None)
    assert initiator.released == steps


def test_peer_congestion_does_not_throttle() -> None:
    sim = Simulation(1)
    limit = CongestionThrottle(sim, ThrottlePolicy())
    limit.attach(_Initiator(8))
    limit.fpin_received(0, f.PeerCongestion(f.CONGESTION_CREDIT_STALL, 1, 2, 1e-3, (2,)))
    assert limit.limit is None and limit.allows(10**6)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1e-2), st.sampled_from([0xF1, 0xF7])), max_size=20),
       st.integers(1, 64))
def test_the_limit_stays_between_one_and_the_ceiling(events, outstanding) -> None:
    """Whatever notifications come when, the limit is None or 1..ceiling and
    every change but a lift is within a factor of the previous limit."""
    sim = Simulation(1)
    limit = CongestionThrottle(sim, ThrottlePolicy(1e-3))
    limit.attach(_Initiator(outstanding))
    for at, severity in events:
        sim.call_later(at, lambda s: limit.signal_received(0, f.CongestionSignal(s, 1e-4)),
                       severity)
    sim.run(0.2)
    for _, lim in limit.changes:
        assert lim is None or 1 <= lim <= max(limit.ceiling, 1)
    assert limit.limit is None  # quiet long enough: lifted


def test_a_throttled_initiator_keeps_within_its_limit(tmp_path: Path) -> None:
    """In the slow-drain FPIN example the slow host's initiator never sends
    a command while it has the limit's worth out: sampled every 20 us, its
    outstanding count is within the limit, or was falling since the last
    sample (a fall leaves commands out over the new limit until they end)."""
    scenario = load_scenario(ROOT / "scenarios" / "fabric-slow-drain-fpin.toml")
    sim = Simulation(scenario.run.seed)
    net = BUILDERS["fabric"](sim, scenario)
    hosts = build_hosts(sim, scenario, net)
    build_workloads(sim, scenario, net)
    storage = Storage(sim, scenario, net, hosts)
    throttles = install_throttles(sim, scenario, storage)
    initiator, limit = storage.initiators["slow"], throttles["slow"]
    seen: list[tuple[int, int | None]] = []

    def probe(_event: object) -> None:
        seen.append((initiator.in_flight, limit.limit))
        sim.call_later(20e-6, probe)

    sim.call_later(0.0, probe)
    sim.run(0.008)
    assert limit.falls > 0 and initiator.held.held_back > 0
    for (before, _), (now, lim) in zip(seen, seen[1:], strict=False):
        assert lim is None or now <= lim or now <= before


def test_an_nvme_host_throttles_too(tmp_path: Path) -> None:
    """The example with the slow host's reads over FC-NVMe: its host is
    throttled the same way (the limit falls, commands are held back, and it
    never has more out than the limit allows, as sampled), and the other
    host gets the ISL back (at least five times the rate without [fpin])."""
    text = (ROOT / "scenarios" / "fabric-slow-drain-fpin.toml").read_text().replace(
        'duration = "60 ms"', 'duration = "20 ms"').replace(
        'name = "slow-reads"\ntype = "fio"', 'name = "slow-reads"\ntype = "fio"\nprotocol = "nvme"')
    assert 'protocol = "nvme"' in text
    rates = {}
    for fpin in (True, False):
        path = tmp_path / f"nvme-{fpin}.toml"
        path.write_text(text if fpin else text.split("\n[fpin]")[0] + "\n")
        result = run_once(load_scenario(path), 1)
        rates[fpin] = result["storage"]["jobs"]["fast-reads"]["throughput_bytes_per_s"]
        if fpin:
            assert set(result["throttles"]) == {"slow (NVMe)", "fast"}
            throttled = result["throttles"]["slow (NVMe)"]
            assert throttled["falls"] > 0 and throttled["held_back"] > 0
    assert rates[True] > 5 * rates[False]
