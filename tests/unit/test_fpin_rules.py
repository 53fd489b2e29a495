"""The fabric's notification rules against closed forms: Link Integrity from a
link's bit error rate, Congestion and Peer Congestion from a slow drain."""

from __future__ import annotations

import math
from pathlib import Path

from fcsim.build import BUILDERS, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.faults.injector import install as install_faults
from fcsim.fc2 import fpin as f
from fcsim.fc2.els_payload import port_name
from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.scenario.loader import load_scenario
from tests.fabric_text import link, nodes, run, star, stream, switches, table

ROOT = Path(__file__).resolve().parents[2]


def link_integrity(window: str, threshold: int) -> str:
    """The ``[fpin]`` table: Link Integrity notifications on, counted per
    *window*, sent at *threshold* errors."""
    return table("[fpin]", {"link_integrity": True, "link_integrity_window": window,
                            "link_integrity_threshold": threshold})


def marginal(duration: str, ber: float, window: str, threshold: int) -> str:
    """A stream from a to b over one switch, *ber* on a's link towards the
    switch, Link Integrity on: the scenario's text."""
    return ('topology = "fabric"\n' + run(duration, seed=3) + switches("sw") + nodes("a", "b")
            + link("a", "sw:0", "4GFC", bit_error_rates=[ber, 0.0]) + link("b", "sw:1", "4GFC")
            + stream("s", "a", "b", **{"class": 3}, size="64 KiB", outstanding=4)
            + link_integrity(window, threshold))


def _build(tmp_path: Path, text: str):
    path = tmp_path / "s.toml"
    path.write_text(text)
    scenario = load_scenario(path)
    sim = Simulation(scenario.run.seed)
    net = BUILDERS["fabric"](sim, scenario)
    build_workloads(sim, scenario, net)
    return scenario, sim, net


def test_link_integrity_follows_the_links_error_count(tmp_path: Path) -> None:
    """A link of bit error rate p corrupts a frame of n line bits with
    probability q = 1 - (1 - p)^n: the F_Port's receiver counts about q per
    frame it receives, window by window (within 4 standard deviations of the
    binomial over the run); an FPIN-LI goes out at the end of exactly the
    windows whose count reached the threshold, the first at the first such
    window, to the attached N_Port and the N_Port it sends to, naming the
    link's ends."""
    ber, window, threshold, windows = 1e-6, 1e-3, 5, 20
    scenario, sim, net = _build(tmp_path, marginal(
        duration=f"{windows} ms", ber=ber, window="1 ms", threshold=threshold))
    sim.run(windows * window + 1e-9)
    a = net.nodes["a"].port
    sw0 = net.switches["sw"].ports[0].port
    n_bits = (MAX_DATA_FIELD + 36) * a.line_bits  # a full frame: SOF, header, CRC, EOF
    q = 1 - (1 - ber) ** n_bits
    frames = sw0.stats.frames_rx + sw0.stats.errors_rx
    assert frames > 3000
    mean = frames * q
    assert abs(sw0.stats.errors_rx - mean) < 4 * math.sqrt(mean * (1 - q))
    counts = net.fpin.windows["sw:0"]
    assert sum(counts) == sw0.stats.errors_rx and len(counts) == windows
    crossed = [k for k, c in enumerate(counts) if c >= threshold]
    assert crossed, "the test needs a window past the threshold"
    sent = net.fpin.sent
    assert sorted({e["to"] for e in sent}) == ["a", "b"]
    times = sorted({round(e["time_s"] / window) - 1 for e in sent})
    assert times == crossed
    received = [d for _, d in net.nodes["a"].fpin.log]
    assert received[0] == f.LinkIntegrity(f.LI_INVALID_CRC, port_name("sw:0"), port_name("a"),
                                          threshold, threshold, (port_name("a"),), window)
    first_at = min(t for t, _ in net.nodes["b"].fpin.log)
    assert (crossed[0] + 1) * window < first_at < (crossed[0] + 2) * window


def test_no_errors_no_link_integrity(tmp_path: Path) -> None:
    _, sim, net = _build(tmp_path, marginal(duration="5 ms", ber=0.0, window="1 ms",
                                                   threshold=1))
    sim.run(0.005)
    assert net.fpin.sent == [] and net.fpin.windows == {}


def test_a_slow_drain_gets_congestion_and_its_senders_peer_congestion(tmp_path: Path) -> None:
    """The slow-drain example's F_Port to "slow" waits for credit most of each
    window (its device drains a tenth of the link): within one detection
    window "slow" is sent a Congestion alarm and array1, which sends to it, a
    Peer Congestion naming it; nobody else is told, and the congestion's
    period is the window."""
    text = (ROOT / "scenarios" / "fabric-slow-drain.toml").read_text()
    text = text.replace('duration = "10 ms"', 'duration = "4 ms"').replace(
        'warmup = "2 ms"', 'warmup = "0 s"')
    text += '\n[fpin]\ncongestion = true\ncongestion_window = "1 ms"\n'
    _, sim, net = _build(tmp_path, text)
    sim.run(0.004)
    window = 1e-3
    fraction = net.switches["edge2"].ports[0].port.credit_wait_now() / sim.now
    assert fraction > net.fpin.policy.congestion_alarm
    by = {}
    for event in net.fpin.sent:
        by.setdefault(event["to"], []).append(event)
    assert sorted(by) == ["array1", "slow"]
    # the first window in which the stream reached slow's port is the first told
    first = min(e["time_s"] for e in net.fpin.sent)
    ready = net.nodes["slow"].ready_at
    assert first <= (math.floor(ready / window) + 2) * window
    assert all(e["descriptors"] == [{"kind": "congestion", "severity": "alarm"}]
               for e in by["slow"])
    peers = [d for _, d in net.nodes["array1"].fpin.log]
    assert peers and all(d == f.PeerCongestion(f.CONGESTION_CREDIT_STALL, port_name("edge2:0"),
                                                port_name("slow"), window,
                                                (port_name("slow"),)) for d in peers)
    congestion = [d for _, d in net.nodes["slow"].fpin.log]
    assert congestion and all(d == f.Congestion(f.CONGESTION_CREDIT_STALL, f.SEVERITY_ALARM,
                                                window) for d in congestion)


def test_signals_come_every_period_while_congested(tmp_path: Path) -> None:
    """With signals the F_Port of "slow" sends it an alarm every signal period
    once its port is congested: in a run of T the N_Port gets one per period
    from the first, arriving a propagation delay and a word after each period's end."""
    text = (ROOT / "scenarios" / "fabric-slow-drain.toml").read_text()
    text = text.replace('duration = "10 ms"', 'duration = "4 ms"').replace(
        'warmup = "2 ms"', 'warmup = "0 s"')
    text += '\n[fpin]\nsignals = true\nsignal_period = "250 us"\n'
    _, sim, net = _build(tmp_path, text)
    sim.run(0.004)
    signals = net.nodes["slow"].fpin.signals
    port = net.switches["edge2"].ports[0].port
    period = 250e-6
    assert net.fpin.signalled[net.addresses["slow"]] == period
    first = signals[0][0]
    k0 = round((first - port.delay - port.word_time) / period)
    assert [round(t, 12) for t, _ in signals] == [
        round(k * period + port.delay + port.word_time, 12)
        for k in range(k0, k0 + len(signals))]
    assert len(signals) >= 4_000e-6 / period - k0 - 1
    assert all(s == f.CongestionSignal(f.SEVERITY_ALARM, period) for _, s in signals)
    assert not net.nodes["fast"].fpin.signals


def test_delivery_tells_the_source_of_every_frame_the_hold_time_removed() -> None:
    """Behind a receiver stuck for the whole run the hold time removes a
    buffer load of a's frames per hold time at the output to b: at the end
    of each delivery window a is sent one Delivery notification (timeout)
    naming that output and b, standing for exactly the frames removed in
    that window; b, whose frames nobody removed, is told nothing."""
    import dataclasses

    from fcsim.fabric.notifications import FpinPolicy
    from fcsim.fabric.switch_model import load_switch_model
    from fcsim.fc2.login import ServiceParameters
    from fcsim.fc2.receive_drain import DrainSpec
    from fcsim.scenario.workload_model import StreamConfig
    from tests.builders import fabric

    hold, stuck_at, end, window = 2e-3, 1e-3, 11e-3, 1e-3
    model = dataclasses.replace(load_switch_model("generic-nonblocking"), hold_time=hold)
    work = (StreamConfig("w", "a", "b", 2112, cls=3, max_data_field=2112, outstanding=2),)
    scenario = fabric({"a": "sw:0", "b": "sw:1"}, work, duration=end, switches={"sw": model})
    nodes = tuple(dataclasses.replace(n, params=ServiceParameters(
        drain=DrainSpec(stuck_at=stuck_at, stuck_for=1.0))) if n.name == "b" else n
        for n in scenario.nodes)
    scenario = dataclasses.replace(scenario, nodes=nodes,
                                   fpin=FpinPolicy(delivery=True, delivery_window=window))
    sim = Simulation(scenario.run.seed)
    net = BUILDERS["fabric"](sim, scenario)
    build_workloads(sim, scenario, net)
    removed: list[float] = []
    out = net.switches["sw"].ports[1]
    last = [0]

    def count(_event: object) -> None:  # the removals of each window, from the switch's own count
        removed.append(out.timeouts - last[0])
        last[0] = out.timeouts
        sim.call_later(window, count)

    sim.call_later(window * (1 - 1e-9), count)
    sim.run(end - 1e-6)
    assert out.timeouts > 0
    sent = net.fpin.sent
    assert {e["to"] for e in sent} == {"a"}
    assert [e["frames"] for e in sent] == [n for n in removed if n]
    assert sum(e["frames"] for e in sent) == out.timeouts
    assert [d for _, d in net.nodes["a"].fpin.log][0] == f.Delivery(
        f.DELIVERY_TIMEOUT, port_name("sw:1"), port_name("b"))


ISL = ('topology = "fabric"\n' + run("6 ms", seed=5) + switches("sw1", "sw2")
       + nodes("a", "b", "c", "d") + star("sw1", ("a", "c", "d"), "4GFC")
       + star("sw2", ("b",), "4GFC")
       + link("sw1:30", "sw2:30", "4GFC", "isl", bit_error_rates=[1e-6, 0.0])
       + stream("across", "a", "b", **{"class": 3}, size="64 KiB", outstanding=4)
       + stream("local", "c", "d", **{"class": 3}, size="64 KiB", outstanding=4)
       + link_integrity("1 ms", 2))


def test_a_marginal_isl_tells_the_nports_whose_traffic_crosses_it(tmp_path: Path) -> None:
    """CRC errors on the ISL's sw1 -> sw2 direction are counted by sw2's ISL
    port: its Link Integrity notifications (detecting sw2:30, attached
    sw1:30, affected a, the N_Port reached through sw1) go to a and b, whose
    flow crosses the ISL, and not to c or d, whose flow stays on sw1."""
    _, sim, net = _build(tmp_path, ISL)
    sim.run(0.006)
    assert net.switches["sw2"].ports[30].port.stats.errors_rx > 0
    assert set(net.fpin.windows) == {"sw2:30"}
    assert {e["to"] for e in net.fpin.sent} == {"a", "b"}
    descriptor = net.nodes["b"].fpin.log[0][1]
    assert (descriptor.detecting, descriptor.attached, descriptor.affected) == (
        port_name("sw2:30"), port_name("sw1:30"), (port_name("a"),))
    assert net.nodes["c"].fpin.log == [] and net.nodes["d"].fpin.log == []


def test_an_isl_turning_marginal_at_a_stated_time(tmp_path: Path) -> None:
    """A bit-error-rate fault on the ISL at 4 ms (a run with faults): no error
    and no notification in the windows before it, Link Integrity to a and b
    from the end of the first window after it in which the count reached
    the threshold."""
    text = ISL.replace("bit_error_rates = [1e-6, 0.0]\n", "").replace(
        'duration = "6 ms"', 'duration = "8 ms"')
    text += ('[[faults]]\nat = "4 ms"\nkind = "bit-error-rate"\nlink = "isl"\n'
             'bit_error_rate = 1e-6\nfrom = "sw1:30"\n')
    scenario, sim, net = _build(tmp_path, text)
    install_faults(sim, scenario, net, {})
    sim.run(0.008)
    counts = net.fpin.windows["sw2:30"]
    assert counts[:4] == [0, 0, 0, 0] and sum(counts) > 0
    first = next(k for k, c in enumerate(counts) if c >= 2)
    times = sorted({e["time_s"] for e in net.fpin.sent})
    assert math.isclose(times[0], (first + 1) * 1e-3)
    assert {e["to"] for e in net.fpin.sent} == {"a", "b"}
