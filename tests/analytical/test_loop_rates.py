"""Arbitrated loop against closed forms: sharing, starvation, latency, limits, LIP."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from fcsim.fc0.speed import CATALOG
from fcsim.fc2.frame import FRAMING_BYTES, MAX_DATA_FIELD, frame_chars
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.fc4.fcp import FCP_CMND_SIZE, FCP_RSP_SIZE
from fcsim.loop.config import LoopPortConfig
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from fcsim.storage.config import FioConfig
from fcsim.storage.device_model import RamDiskModel
from fcsim.workload.fio import FioOptions
from tests.builders import loop

GAP_CHARS = 4 * MIN_FILL_WORDS
INSTANT = RamDiskModel("instant", 10**12, 1e-12, 1e15)
"""A RAM disk that takes no time."""
START = 1e-3
"""Workloads start after the loop's first initialisation (which takes < 1 ms)."""


def _run(scenario: Any) -> dict[str, Any]:
    return run_scenario(scenario)["repetitions"][0]


def _rate(rep: dict[str, Any], name: str) -> float:
    return rep["workloads"][name]["throughput_bytes_per_s"]


def _saturating(senders: int, target: str) -> tuple[StreamConfig, ...]:
    return tuple(StreamConfig(f"s{i}", f"p{i}", target, 4 * MAX_DATA_FIELD, outstanding=2)
                 for i in range(senders))


@pytest.mark.parametrize(("senders", "extra"), [(2, 0), (3, 3), (5, 1)])
def test_fair_ports_share_the_loop_equally(senders: int, extra: int) -> None:
    n = senders + 1 + extra
    rep = _run(loop(n, _saturating(senders, f"p{senders}"), duration=0.03, warmup=0.003))
    rates = [_rate(rep, f"s{i}") for i in range(senders)]
    total = sum(rates)
    assert total > 0.5 * CATALOG["1GFC"].char_rate * MAX_DATA_FIELD / 2172
    for rate in rates:
        assert rate == pytest.approx(total / senders, rel=0.05)


def test_unfair_highest_priority_port_starves_the_others() -> None:
    unfair = {f"p{i}": LoopPortConfig(al_pa=al_pa, fairness=False)
              for i, al_pa in enumerate((0x04, 0x02, 0x01))}
    rep = _run(loop(4, _saturating(3, "p3"), duration=0.02, warmup=0.002, ports=unfair))
    rates = [_rate(rep, f"s{i}") for i in range(3)]
    assert rates[2] > 0.95 * CATALOG["1GFC"].char_rate * MAX_DATA_FIELD / 2172
    assert rates[0] == rates[1] == 0
    fair = {name: LoopPortConfig(al_pa=p.al_pa) for name, p in unfair.items()}
    rep = _run(loop(4, _saturating(3, "p3"), duration=0.02, warmup=0.002, ports=fair))
    rates = [_rate(rep, f"s{i}") for i in range(3)]
    assert min(rates) == pytest.approx(max(rates), rel=0.05)


def test_latency_grows_by_each_port_passed() -> None:
    """One frame from p0 to pk, sent right after the OPN on pk's login credit:
    arbitration takes a full circuit whatever k is, so only the frame's own
    path grows: by one hop's cable and the repeat delay of each port passed."""
    n, hop = 8, 3.0
    speed = CATALOG["1GFC"]
    ports = {f"p{i}": LoopPortConfig(repeat_delay=2 + i, login_credit=1) for i in range(n)}
    latency = []
    for k in range(1, n):
        one = StreamConfig("one", "p0", f"p{k}", 512, count=1, start=START)
        rep = _run(loop(n, (one,), duration=2e-3, hop_length=hop, ports=ports))
        latency.append(rep["workloads"]["one"]["latency_s"]["max"])
    arbitration = sum(2 + i for i in range(1, n)) * speed.word_time + n * hop * 5e-9
    first = arbitration + speed.word_time + frame_chars(512) * speed.char_time + hop * 5e-9
    assert latency[0] == pytest.approx(first, rel=1e-9)  # ARB circuit, OPN, frame, one hop
    for k in range(1, n - 1):
        passed = (2 + k) * speed.word_time  # port k's repeat delay
        assert latency[k] - latency[k - 1] == pytest.approx(hop * 5e-9 + passed, rel=1e-9)


@pytest.mark.parametrize(("n", "senders", "fairness", "speed"), [
    (2, 1, True, "1GFC"), (4, 3, True, "2GFC"), (4, 3, False, "1GFC"), (12, 6, True, "4GFC"),
])
def test_loop_total_never_exceeds_the_framing_limit(n: int, senders: int, fairness: bool,
                                                    speed: str) -> None:
    limit = CATALOG[speed].char_rate * MAX_DATA_FIELD / (MAX_DATA_FIELD + FRAMING_BYTES
                                                         + GAP_CHARS)
    ports = {f"p{i}": LoopPortConfig(fairness=fairness) for i in range(n)}
    rep = _run(loop(n, _saturating(senders, f"p{n - 1}"), duration=0.01, warmup=0.001,
                    speed=speed, ports=ports))
    total = sum(_rate(rep, f"s{i}") for i in range(senders))
    assert rep["loop"]["throughput_bytes_per_s"] <= limit * (1 + 1e-9)
    assert total <= limit * (1 + 1e-9)
    if senders == 1:  # one port streaming alone keeps the loop: the link's own limit
        assert total == pytest.approx(limit, rel=0.01)


def test_one_tenancy_matches_the_closed_form() -> None:
    """Fact sheet 5.5: T = T_arb + T_OPN->R_RDY + n t_frame + T_CLS, each part
    at most one loop round trip; here exactly (opener O = p1, opened R = p4)."""
    n, frames, hop, words = 6, 4, 10.0, 12
    speed = CATALOG["1GFC"]
    seq = StreamConfig("seq", "p1", "p4", frames * MAX_DATA_FIELD, count=1, start=START)
    rep = _run(loop(n, (seq,), duration=2e-3, hop_length=hop, repeat_delay=words))
    opener = rep["nodes"]["p1"]
    assert (opener["tenancies"], rep["nodes"]["p4"]["opened"]) == (1, 1)
    w = speed.word_time
    repeat = words * w
    t_loop = n * (repeat + hop * 5e-9)
    both_ways = t_loop - 2 * repeat  # O -> R -> O, neither repeating
    t_arb = t_loop - repeat
    t_open = w + both_ways + w  # OPN, then R's R_RDY (login credit 0)
    t_frames = frames * (frame_chars(MAX_DATA_FIELD) + GAP_CHARS) * speed.char_time
    t_cls = w + both_ways + w
    assert opener["arbitration_wait_s"] == pytest.approx(t_arb, rel=1e-9)
    assert opener["hold_time_s"] == pytest.approx(t_open + t_frames + t_cls, rel=1e-9)
    assert max(t_arb, t_open - 2 * w, t_cls - 2 * w) <= t_loop
    efficiency = frames * frame_chars(MAX_DATA_FIELD) * speed.char_time / (
        t_arb + t_open + t_frames + t_cls)
    assert 0.85 < efficiency < 1


@pytest.mark.parametrize("span", [0, 2, 5])
def test_one_tenancy_across_one_long_span(span: int) -> None:
    """Hops of their own lengths (one 10 km span between two sites, hop *span*):
    the round trip is every repeat delay plus every hop's cable, arbitration
    takes it less the winner's repeat delay, and OPN->R_RDY and CLS each the
    trip opener -> opened -> opener (the round trip less both repeat delays),
    wherever the long span lies."""
    n, frames, words = 6, 4, 12
    hops = tuple(10e3 if i == span else 2.0 for i in range(n))
    speed = CATALOG["1GFC"]
    seq = StreamConfig("seq", "p1", "p4", frames * MAX_DATA_FIELD, count=1, start=2e-3)
    rep = _run(loop(n, (seq,), duration=4e-3, hop_lengths=hops, repeat_delay=words))
    assert rep["loop"]["initialisations"][0]["duration_s"] < 2e-3  # over before it starts
    w = speed.word_time
    repeat = words * w
    t_loop = n * repeat + sum(hops) * 5e-9
    assert rep["loop"]["round_trip_s"] == pytest.approx(t_loop, rel=1e-12)
    assert rep["loop"]["hop_lengths_m"] == list(hops) and rep["loop"]["hop_length_m"] is None
    both_ways = t_loop - 2 * repeat
    t_frames = frames * (frame_chars(MAX_DATA_FIELD) + GAP_CHARS) * speed.char_time
    opener = rep["nodes"]["p1"]
    assert opener["arbitration_wait_s"] == pytest.approx(t_loop - repeat, rel=1e-9)
    assert opener["hold_time_s"] == pytest.approx(2 * (w + both_ways + w) + t_frames, rel=1e-9)


def test_login_credit_lets_frames_follow_the_opn() -> None:
    """With the opened port's login credit > 0 the first frame goes right after OPN."""
    one = StreamConfig("one", "p0", "p2", 512, count=1, start=START)
    waits = []
    for credit in (0, 1):
        ports = {"p2": LoopPortConfig(login_credit=credit)}
        rep = _run(loop(4, (one,), duration=2e-3, ports=ports))
        waits.append(rep["nodes"]["p0"]["hold_time_s"])
    speed = CATALOG["1GFC"]
    both_ways = 4 * (12 * speed.word_time + 5e-9) - 2 * 12 * speed.word_time
    assert waits[0] - waits[1] == pytest.approx(both_ways + speed.word_time, rel=1e-9)


def test_initialisation_takes_longer_with_more_ports() -> None:
    durations = []
    for n in (2, 8, 32, 126):
        rep = _run(loop(n, (), duration=5e-3))
        (init,) = rep["loop"]["initialisations"]
        assert init["completed"] and init["start_s"] == 0.0
        durations.append(init["duration_s"])
        # LIP, 7 frames (LISM, LIFA..LISA, LIRP, LILP) and CLS each go round once
        assert init["duration_s"] > 9 * rep["loop"]["round_trip_s"] * (n - 1) / n
    assert 0 < durations[0] < durations[1] < durations[2] < durations[3]


def test_lip_aborts_the_tenancy_and_loses_frames_in_flight() -> None:
    streams = _saturating(2, "p2")
    big = {"p2": ServiceParameters(bb_credit=32)}
    rep = _run(loop(4, streams, duration=6e-3, lip_at=(2e-3, 4e-3), params=big,
                    ports={f"p{i}": LoopPortConfig(fairness=False) for i in range(4)}))
    inits = rep["loop"]["initialisations"]
    assert [i["start_s"] for i in inits] == [0.0, 2e-3, 4e-3]
    assert all(i["completed"] for i in inits)
    assert inits[1]["duration_s"] == pytest.approx(inits[0]["duration_s"])
    target = rep["nodes"]["p2"]
    assert target["lost_frames"] > 0 and target["dropped_frames"] == target["lost_frames"]
    sent = sum(rep["nodes"][f"p{i}"]["payload_tx"] for i in range(2))
    assert sent >= target["payload_rx"] + target["dropped_payload"]


@pytest.mark.parametrize(("n", "burst"), [(5, 8 * MAX_DATA_FIELD), (17, 64 * 1024),
                                          (33, 64 * 1024)])
def test_busy_ports_each_send_a_burst_per_tenancy(n: int, burst: int) -> None:
    """N - 1 fair ports, each with one B-byte sequence (its burst) outstanding for
    p0 at all times: every tenancy carries one whole burst, so the loop carries
    B / (T_arb + T_open + T_burst + T_cls) with T_open = T_cls = 2 words plus a
    trip opener -> opened -> opener (each a loop round trip less both repeat
    delays) and 0 <= T_arb <= one round trip; an access window adds at most two
    round trips (IDLEs round, then ARBs round) over its N - 1 tenancies."""
    speed = CATALOG["1GFC"]
    hop, words = 2.0, 12
    senders = tuple(StreamConfig(f"s{i}", f"p{i}", "p0", burst, outstanding=1)
                    for i in range(1, n))
    measured = 8 * (n - 1) * burst / 1e8  # about 8 access windows
    rep = _run(loop(n, senders, duration=0.005 + measured, warmup=0.005, hop_length=hop,
                    repeat_delay=words))
    w = speed.word_time
    t_loop = n * (words * w + hop * 5e-9)
    both_ways = t_loop - 2 * words * w
    full, rest = divmod(burst, MAX_DATA_FIELD)
    chars = full * (frame_chars(MAX_DATA_FIELD) + GAP_CHARS) + (
        frame_chars(rest) + GAP_CHARS if rest else 0)
    t_burst = chars * speed.char_time
    held = (w + both_ways + w) + t_burst + (w + both_ways + w)
    fastest = burst / held
    slowest = burst / (held + t_loop + 2 * t_loop / (n - 1))
    per_port = [_rate(rep, s.name) for s in senders]
    total = sum(per_port)
    assert slowest * (1 - 0.01) <= total <= fastest * (1 + 0.01)
    for rate in per_port:  # each port a burst per window, give or take one
        assert rate == pytest.approx(total / (n - 1), abs=burst / measured)
    for s in senders:  # one tenancy per burst
        node = rep["nodes"][s.source]
        assert node["tenancies"] == pytest.approx(node["payload_tx"] / burst, abs=2)
        # the interval's edges cut at most one tenancy short or long
        assert node["hold_time_s"] == pytest.approx(node["tenancies"] * held, abs=held)


@pytest.mark.parametrize(("disks", "burst", "bursts"), [(4, 16384, 4), (8, 65536, 1)])
def test_busy_disks_each_send_a_burst_per_tenancy(disks: int, burst: int, bursts: int) -> None:
    """A host (unfair, highest priority: it sends each FCP_CMND as soon as the
    loop is free; a fair host would open one disk per access window, which
    would bind instead) reads k = *bursts* bursts of B bytes from each of N RAM disks
    that take no time, one command outstanding per disk; a disk's maximum
    burst size is B. Every access window each disk holds the loop once, for a
    burst or, after its last, its FCP_RSP; the host opens each disk once per
    command. So per k + 1 windows the loop carries N k B bytes in N (k H_B +
    H_RSP + H_CMND) of tenancies, H_x = T_OPN + T_x + T_CLS (frames and fill
    words), plus for each tenancy an arbitration of at most a round trip and
    for each window at most two more (IDLEs round, ARBs round)."""
    speed = CATALOG["1GFC"]
    n, hop, words = disks + 1, 2.0, 12
    size = bursts * burst
    jobs = tuple(FioConfig(f"r{i}", "p0", f"p{i}", FioOptions("read", size))
                 for i in range(1, n))
    measured = 30e-3
    base = loop(n, jobs, duration=5e-3 + measured, warmup=5e-3, hop_length=hop,
                repeat_delay=words, ports={"p0": LoopPortConfig(al_pa=0x01, fairness=False)})
    nodes = tuple(node if node.name == "p0" else
                  dataclasses.replace(node, target=INSTANT, max_burst=burst)
                  for node in base.nodes)
    rep = _run(dataclasses.replace(base, nodes=nodes))
    w = speed.word_time
    t_loop = n * (words * w + hop * 5e-9)
    both_ways = t_loop - 2 * words * w

    def held(payload: int) -> float:  # OPN, R_RDY back, the frames, CLS and its answer back
        full, rest = divmod(payload, MAX_DATA_FIELD)
        chars = full * (frame_chars(MAX_DATA_FIELD) + GAP_CHARS) + (
            frame_chars(rest) + GAP_CHARS if rest or not payload else 0)
        return 2 * (w + both_ways + w) + chars * speed.char_time

    per_command = bursts * held(burst) + held(FCP_RSP_SIZE) + held(FCP_CMND_SIZE)
    tenancies = bursts + 2
    fastest = size / per_command  # the disks' tenancies one after the other
    slowest = size / (per_command + tenancies * t_loop + (bursts + 1) * 2 * t_loop / disks)
    total = sum(rep["storage"]["jobs"][j.name]["throughput_bytes_per_s"] for j in jobs)
    assert slowest * (1 - 0.01) <= total <= fastest * (1 + 0.01)
    for i in range(1, n):  # a burst per tenancy: the disk's tenancies are its bursts and RSPs
        node = rep["nodes"][f"p{i}"]
        commands = rep["storage"]["jobs"][f"r{i}"]["ios"]
        assert node["tenancies"] == pytest.approx(commands * (bursts + 1), abs=bursts + 1)
