"""Every example's ``description`` checked against what the example is and
what it produces.

Each example has one entry in :data:`CHECKS`. What a description says of the
example's make-up (speeds, switch models, how many N_Ports, the fault
schedule) is checked on the loaded scenario, which costs nothing. Where it
states a figure or a behaviour of the run, the entry runs the example at its
own length and checks it, when that takes a few seconds at most; the figures
of the costlier examples are checked by the test named in
:data:`RUN_ELSEWHERE`, or, listed in :data:`NOT_RUN`, not run at all (their
make-up and any closed form the description gives are still checked here).
The figures an example's opening comments give of a run it makes here (its
longer explanation, :func:`header`) are read from them and checked too.
"""

from __future__ import annotations

import dataclasses
import math
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fcsim.fc0.speed import CATALOG
from fcsim.fc2.frame import MAX_DATA_FIELD, frame_chars
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.fc4.fcp import FCP_RSP_SIZE
from fcsim.fc4.nvme import ERSP_SIZE, RSP_SIZE, ersp_ratio
from fcsim.report import summary_text
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.scenario.model import Scenario
from fcsim.storage.config import CHECKER_TICK
from fcsim.units import parse_size
from tests.example_runs import first_repetition

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "scenarios").glob("*.toml"))


def description(name: str) -> str:
    """The example's description, its white space collapsed."""
    text = (ROOT / "scenarios" / f"{name}.toml").read_text(encoding="utf-8")
    return " ".join(tomllib.loads(text)["description"].split())


def run(sc: Scenario) -> dict[str, Any]:
    """The example's first repetition, at its own length."""
    return run_scenario(sc)["repetitions"][0]


def speeds(sc: Scenario) -> set[str]:
    return {link.speed.name for link in sc.links if hasattr(link, "speed")}


def models(sc: Scenario) -> list[str]:
    return [s.model.name for s in sc.switches]


def ceiling(speed: str, data: int = MAX_DATA_FIELD) -> float:
    """Payload bytes/s of back-to-back frames of *data* bytes with the minimum
    fill words between them at catalog *speed*."""
    return data / ((frame_chars(data) + 4 * MIN_FILL_WORDS) * CATALOG[speed].char_time)


def events(result: dict[str, Any]) -> list[str]:
    return [e for fault in result["faults"]["schedule"] for e in fault["events"]]


def reroutes(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Every FSPF route computation of the run: at_s, switch, isls_in_use."""
    return result["faults"]["fabric"]["reroutes"]


def sequence_ceiling(speed: str, size: int) -> float:
    """Payload bytes/s of back-to-back sequences of *size* bytes in full frames
    and a last partial one, with the minimum fill words after each frame."""
    fields = [MAX_DATA_FIELD] * (size // MAX_DATA_FIELD) + (
        [size % MAX_DATA_FIELD] if size % MAX_DATA_FIELD else [])
    chars = sum(frame_chars(f) + 4 * MIN_FILL_WORDS for f in fields)
    return size / (chars * CATALOG[speed].char_time)


def at_ms(event: str) -> float:
    return float(event.split()[0])


def header(name: str) -> str:
    """The comment lines that open the example (its longer explanation), their
    white space collapsed."""
    text = (ROOT / "scenarios" / f"{name}.toml").read_text(encoding="utf-8")
    lines = [line[1:] for line in text.splitlines() if line.startswith("#")]
    return " ".join(" ".join(lines).split())


def figure(text: str, pattern: str) -> float:
    """The number the first group of *pattern* finds in *text*."""
    return float(re.search(pattern, text).group(1))


def node(sc: Scenario, name: str) -> Any:
    return next(n for n in sc.nodes if n.name == name)


def isls(sc: Scenario) -> list[Any]:
    """The links whose two ends are switch ports."""
    switches = {s.name for s in sc.switches}
    return [link for link in sc.links
            if all(end.split(":")[0] in switches for end in link.ends)]


def jobs(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return result["storage"]["jobs"]


def rates(result: dict[str, Any]) -> dict[str, float]:
    """Each stream's payload bytes/s."""
    return {n: w["throughput_bytes_per_s"] for n, w in result["workloads"].items()}


def slow_drain_fabric(sc: Scenario) -> None:
    """The make-up of fabric-slow-drain.toml its variants keep: three switches
    in two tiers at 4GFC, two ISLs, the streams to "slow", to "fast" and the
    local one."""
    assert models(sc) == ["generic-nonblocking"] * 3 and speeds(sc) == {"4GFC"}
    assert len(isls(sc)) == 2
    assert [(w.name, w.size) for w in sc.workloads] == [
        ("to-slow", 65536), ("to-fast", 65536), ("local", 65536)]


# -- one check per example ------------------------------------------------------------


def das2_vlan_loopback(sc: Scenario) -> None:
    (iperf,) = sc.workloads
    assert models(sc) == ["force10-e-series-class"] and speeds(sc) == {"1000BASE-X"}
    assert len(sc.nodes) == 4 and "2 x 2 flows" in description("das2-vlan-loopback")


def fabric_16_port_switch(sc: Scenario) -> None:
    assert models(sc) == ["ancor-fcs-266-16"] and speeds(sc) == {"266M"}
    assert CATALOG["266M"].baud == 265.625e6
    pairs = {(w.source, w.destination) for w in sc.workloads}
    own = {(f"h{i}", f"d{i}") for i in range(8)}
    assert own <= pairs and len(pairs - own) == 1  # one host also writes to another's disk
    (extra,) = pairs - own
    assert extra[1] != f"d{extra[0][1:]}"


def fabric_239_domains(sc: Scenario) -> None:
    assert len(sc.switches) == 239 and len(sc.nodes) == 3995
    assert models(sc).count("generic-director-256") == 4  # the cores
    assert sc.run.login


def fabric_core_edge_isls(sc: Scenario) -> None:
    assert speeds(sc) == {"2GFC"} and len(sc.workloads) == 4
    (costly,) = [link for link in sc.links if link.cost]
    result = run(sc)
    directions = result["links"][costly.name]["directions"].values()
    assert all(d["frames"] == 0 for d in directions)  # "a costlier direct ISL stays idle"
    assert all(w["throughput_bytes_per_s"] > 0 for w in result["workloads"].values())


def fabric_fat_tree_permutation(sc: Scenario) -> None:
    assert speeds(sc) == {"8GFC"} and len(sc.switches) == 20  # k = 4: 8 + 8 + 4
    assert {s.routing for s in sc.switches} == {"port-based"}
    rates = [w["throughput_bytes_per_s"] for w in run(sc)["workloads"].values()]
    (size,) = {w.size for w in sc.workloads}
    # full bisection: every stream at its line rate
    assert min(rates) > 0.99 * sequence_ceiling("8GFC", size)


def fabric_fspf_flap(sc: Scenario) -> None:
    assert [(f.kind, f.at) for f in sc.faults] == [("link-down", 0.005), ("link-up", 0.010)]
    assert sc.fspf.min_ls_interval == 0.020
    assert {s.in_order for s in sc.switches} == {0.001}  # "pausing forwarding 1 ms"
    back = [r["at_s"] for r in reroutes(run(sc)) if r["isls_in_use"] == 4]
    assert back and min(back) >= 0.025  # "uses it again only at 25 ms"


def fabric_hard_zoning(sc: Scenario) -> None:
    result = run(sc)
    outside = result["workloads"]["host1-disk0"]
    assert outside["frames"] == 0 and outside["sender"]["completed"] > 0  # none delivered
    port = next(end for link in sc.links if "host1" in link.ends
                for end in link.ends if end != "host1")
    dropped = result["zoning"]["dropped"]
    assert dropped[port] > 0 and sum(dropped.values()) == dropped[port]  # at its F_Port


def fabric_isl_failure(sc: Scenario) -> None:
    assert speeds(sc) == {"2GFC"}
    assert [(f.kind, f.at, f.duration) for f in sc.faults] == [
        ("link-down", 0.005, None), ("switch-failure", 0.015, 0.010)]
    times = [r["at_s"] for r in reroutes(run(sc))]
    for start in (0.005, 0.015, 0.025):  # FSPF reroutes after each change
        assert any(start <= t < start + 0.006 for t in times), start


def fabric_isl_trunk(sc: Scenario) -> None:
    plain = [link for link in isls(sc) if link.trunk_group is None]
    trunk = [link for link in isls(sc) if link.trunk_group]
    assert len(plain) == len(trunk) == 4 and speeds(sc) - {"32GFC"} == {"8GFC"}
    assert {link.trunk_group for link in trunk} == {"trunk"}
    assert {w.outstanding for w in sc.workloads} == {1}  # one exchange each
    result = run(sc)
    busy = [link.name for link in plain
            if any(d["frames"] for d in result["links"][link.name]["directions"].values())]
    assert len(busy) == 2  # each exchange on one ISL, two idle
    one = ceiling("8GFC", 2048)  # one ISL's rate, in the 2 KiB frames of the streams
    r = rates(result)
    for i in (0, 1):
        assert r[f"pstream{i}"] == pytest.approx(one, rel=0.01)
        assert r[f"tstream{i}"] == pytest.approx(2 * one, rel=0.01)  # half the trunk
    members = result["trunks"]["trunk"]["directions"]["t1->t2"]["members"]
    assert len(members) == 4 and all(m["utilisation"] > 0.98 for m in members.values())


def fabric_long_distance_isl(sc: Scenario) -> None:
    (isl,) = [link for link in sc.links if link.bb_credit]
    assert isl.cable.length == 50_000 and isl.speed.name == "4GFC"
    (w,) = run(sc)["workloads"].values()
    assert w["throughput_bytes_per_s"] > 0.99 * ceiling("4GFC")  # its full data rate


def fabric_npiv(sc: Scenario) -> None:
    (server,) = [n for n in sc.nodes if n.virtual_ports]
    assert server.virtual_ports == 3
    result = run(sc)
    ids = {result["nodes"][w.source]["port_id"] for w in sc.workloads}
    assert len(ids) == 3  # each from its own N_Port ID
    assert all(w["throughput_bytes_per_s"] > 0 for w in result["workloads"].values())


def fabric_rscn_storm(sc: Scenario) -> None:
    assert len(sc.switches) == 12 and len(sc.nodes) == 80
    assert [f.kind for f in sc.faults] == ["link-down", "link-up"]


def fabric_rscn_zoning(sc: Scenario) -> None:
    assert len(sc.switches) == 1 and len(sc.zones) == 2
    rscns = [e for e in events(run(sc)) if " RSCN for " in e]
    assert rscns and all(e.endswith("to 1 N_Port") for e in rscns)  # its zone only


def fabric_slow_drain(sc: Scenario) -> None:
    assert speeds(sc) == {"4GFC"}
    rates = {n: w["throughput_bytes_per_s"] for n, w in run(sc)["workloads"].items()}
    assert rates["to-slow"] == pytest.approx(40e6, rel=0.02)  # "a host draining 40 MB/s"
    assert rates["to-fast"] < 0.9 * rates["local"]  # slowed across the shared ISLs


def fabric_slow_drain_credit_loss(sc: Scenario) -> None:
    slow_drain_fabric(sc)
    slow = node(sc, "slow").params
    assert slow.drain.stuck_at == 0.002 and slow.drain.stuck_for >= sc.run.duration
    recovery = sc.cures.credit_loss
    assert (recovery.f_port, recovery.e_port) == (0.005, 0.0075)  # Cisco's 1 s and 1.5 s, scaled
    text = header("fabric-slow-drain-credit-loss")
    result = run(sc)
    port = result["switches"]["edge2"]["ports"]["0"]["tx"]
    resets = math.floor((sc.run.duration - slow.drain.stuck_at) / recovery.f_port)
    assert port["link_resets"] == resets  # "resets its link every 5 ms"
    assert port["frames_lost"] == resets * slow.bb_credit  # its buffers discarded at each
    assert f"{resets * slow.bb_credit} frames discarded" in text
    r = rates(result)
    assert r["to-slow"] == 0
    assert r["to-fast"] == pytest.approx(figure(text, r"gets ([\d.]+) MB/s instead") * 1e6,
                                         rel=0.01)
    assert r["local"] == pytest.approx(figure(text, r"keeps its (\d+) MB/s") * 1e6, rel=0.005)


def fabric_slow_drain_dirl(sc: Scenario) -> None:
    assert models(sc) == ["generic-nonblocking"] * 3 and speeds(sc) == {"4GFC"}
    assert len(isls(sc)) == 2
    assert {n.target.name for n in sc.nodes if n.target} == {"tms-ramsan"}
    assert [(w.source, w.options.rw) for w in sc.workloads] == [("slow", "read"),
                                                                 ("fast", "read")]
    drain = node(sc, "slow").params.drain.rate
    assert drain == 40e6
    limit = sc.cures.ingress_limit
    text = header("fabric-slow-drain-dirl")
    frames = ceiling("4GFC") / MAX_DATA_FIELD  # full frames a second
    assert round(limit.floor * frames) == figure(text, r"\(0\.1 %: (\d+) frames/s\)")
    k = math.ceil(math.log(limit.floor) / math.log(1 - limit.reduce))  # halvings to the floor
    assert k * limit.window == pytest.approx(figure(text, r"to the floor .*? by (\d+) ms") * 1e-3)
    result = run(sc)
    changes = result["cures"]["ingress_limit"]["changes"]
    floor_at = next(c["at_s"] for c in changes if c["limit"] == limit.floor)
    assert floor_at == pytest.approx(k * limit.window)
    r = {name: job["throughput_bytes_per_s"] for name, job in jobs(result).items()}
    assert r["fast-reads"] == pytest.approx(
        figure(text, r'"fast" reads (\d+) MB/s') * 1e6, rel=0.01)
    assert r["slow-reads"] == pytest.approx(
        figure(text, r'"slow" reads (\d+) MB/s') * 1e6, rel=0.05)
    assert r["slow-reads"] < drain  # its requests paced below what it drains


def fabric_slow_drain_fencing(sc: Scenario) -> None:
    slow_drain_fabric(sc)
    assert node(sc, "slow").params.drain.rate == 40e6
    fencing = sc.cures.fencing
    assert (fencing.window, fencing.txwait) == (0.001, 0.3)
    text = header("fabric-slow-drain-fencing")
    result = run(sc)
    fenced = result["cures"]["fencing"]["fenced"]
    assert [(f["port"], f["device"], f["at_s"]) for f in fenced] == [
        ("edge2:0", "slow", fencing.window)]  # at its first poll
    r = rates(result)
    assert r["to-slow"] == 0
    # the victim's frames take every other turn on the ISLs with the culprit's
    # sender's, which go on to be discarded at edge2: half the ISLs' rate
    assert r["to-fast"] == pytest.approx(sequence_ceiling("4GFC", 65536) / 2, rel=0.01)
    assert round(r["to-fast"] / 1e6) == figure(text, r"fast gets (\d+) MB/s")
    discarded = result["switches"]["edge2"]["discarded"]
    assert discarded == figure(text, r"discarded: (\d+) in the measured")
    assert abs(discarded - result["workloads"]["to-fast"]["frames"]) <= 2


def fabric_slow_drain_fpin(sc: Scenario) -> None:
    assert models(sc) == ["generic-nonblocking"] * 2 and speeds(sc) == {"4GFC"}
    assert len(isls(sc)) == 1  # one ISL, shared
    assert node(sc, "slow").params.drain.rate == 40e6
    assert [(w.source, w.options.rw, w.options.bs, w.options.iodepth) for w in sc.workloads] == [
        ("slow", "randread", 8192, 32), ("fast", "read", 65536, 8)]
    assert sc.fpin.congestion and sc.fpin.signals and sc.throttle is not None
    result = first_repetition(sc)  # tests/docs/test_fpin_example.py reads it too
    fpin = result["fpin"]
    congestion = {(n["to"], d["kind"]) for n in fpin["notifications"] for d in n["descriptors"]}
    assert congestion == {("slow", "congestion"), ("ram1", "peer-congestion")}
    assert fpin["signalled"]["slow"] == sc.fpin.signal_period
    throttle = result["throttles"]["slow"]
    assert throttle["falls"] > 0 and throttle["min_limit"] <= 2  # a command or two outstanding


def fabric_slow_drain_isolation(sc: Scenario) -> None:
    slow_drain_fabric(sc)
    assert node(sc, "slow").params.drain.rate == 40e6
    assert {(link.virtual_channels, link.vc_credit, link.vc_assignment)
            for link in isls(sc)} == {(4, 4, "priority")}  # ER_RDY virtual links
    result = run(sc)
    (event,) = result["cures"]["isolation"]["events"]
    assert (event["action"], event["device"], event["time_s"]) == (
        "isolated", "slow", sc.cures.isolation.window)
    r = rates(result)
    assert r["to-slow"] == pytest.approx(40e6, rel=0.01)
    # "the victim gets its rate back": what the ISLs leave it
    assert r["to-fast"] == pytest.approx(
        sequence_ceiling("4GFC", 65536) - r["to-slow"], rel=0.01)
    assert round(r["to-fast"] / 1e6) == figure(header("fabric-slow-drain-isolation"),
                                               r"about (\d+) MB/s")
    (culprit,) = result["congestion"]["culprits"]
    assert culprit["device"] == "slow" and culprit["victims"] == []


def fabric_slow_drain_vc(sc: Scenario) -> None:
    slow_drain_fabric(sc)
    assert node(sc, "slow").params.drain.rate == 40e6
    assert {(link.virtual_channels, link.vc_credit, link.vc_assignment)
            for link in isls(sc)} == {(4, 4, "destination")}  # 4 channels on each ISL
    text = header("fabric-slow-drain-vc")
    line = sequence_ceiling("4GFC", 65536)
    assert round(line / 1e6) == figure(text, r"their (\d+) MB/s of payload")
    result = run(sc)
    r = rates(result)
    assert r["to-slow"] == pytest.approx(40e6, rel=0.01)
    assert r["to-fast"] == pytest.approx(line - r["to-slow"], rel=0.01)  # keeps its rate
    assert round(r["to-fast"] / 1e6) == figure(text, r"about (\d+) MB/s")
    channels = result["switches"]["core"]["ports"]["1"]["tx"]["virtual_channels"]
    assert channels[1]["txwait_fraction"] > 0.5 and channels[2]["txwait_fraction"] == 0
    (culprit,) = result["congestion"]["culprits"]
    assert culprit["device"] == "slow" and culprit["victims"] == []


def fabric_storage_on_core(sc: Scenario) -> None:
    text = description("fabric-storage-on-core")
    target = float(re.search(r"ceiling \(([\d.]+) MB/s", text).group(1)) * 1e6
    each = float(re.search(r"([\d.]+) MB/s each", text).group(1)) * 1e6
    assert len(sc.switches) == 6 and speeds(sc) == {"4GFC"} and len(sc.workloads) == 16
    result = run(sc)
    jobs = result["storage"]["jobs"]
    total = sum(j["throughput_bytes_per_s"] for j in jobs.values())
    assert total == pytest.approx(2 * target, rel=0.01)  # "about 825 MB/s"
    assert all(j["throughput_bytes_per_s"] == pytest.approx(each, rel=0.03)
               for j in jobs.values())
    edge_isls = [d["utilisation"] for name, link in result["links"].items()
                 if name.startswith("e") and "-c" in name for d in link["directions"].values()
                 if d["frames"] > 200]
    assert edge_isls and all(u == pytest.approx(0.25, abs=0.03) for u in edge_isls)


def fc3_hunt_group(sc: Scenario) -> None:
    (group,) = sc.alias_groups
    assert group.kind == "hunt-group" and len(group.members) == 3
    assert speeds(sc) == {"1GFC"} and len({w.source for w in sc.workloads}) == 4


def fc3_multicast(sc: Scenario) -> None:
    (group,) = sc.alias_groups
    assert group.kind == "multicast" and len(group.members) == 4 and len(sc.switches) == 2
    assert speeds(sc) == {"1GFC", "266M"}  # one member on a slower link
    assert [w.cls for w in sc.workloads] == [3]


def fc3_striping(sc: Scenario) -> None:
    ports = sorted(w.stripe_ports for w in sc.workloads)
    assert ports == [1, 4] and speeds(sc) == {"1GFC"} and len(sc.switches) == 1


def fcp_abts_after_loss(sc: Scenario) -> None:
    result = run(sc)
    (job,) = result["storage"]["jobs"].values()
    assert job["bs"] == 8192 and job["errors"] == 0
    (initiator,) = result["storage"]["initiators"].values()
    assert initiator["timeouts"] == initiator["retries"] == 1  # timeout, ABTS, retry
    assert result["faults"]["schedule"][0]["frames_lost"] > 0


def fcp_link_down_held(sc: Scenario) -> None:
    """The cable is out for the stated number of command timeouts, less than
    the host's dev_loss_tmo: no read fails, and none times out while it is out
    (each is sent again at most once, for its own frames lost on the cable);
    with dev_loss_tmo under the outage every outstanding read fails then."""
    host = node(sc, "host")
    (job,) = sc.workloads
    (fault,) = sc.faults
    timeouts = figure(description("fcp-link-down-held"), r"out for (\d+) command timeouts")
    assert fault.duration == pytest.approx(timeouts * job.timeout)
    assert fault.duration < host.dev_loss_tmo and host.fast_io_fail_tmo is None
    result = run(sc)
    (figures,) = jobs(result).values()
    assert figures["errors"] == 0 and figures["latency_s"]["max"] > fault.duration
    (initiator,) = result["storage"]["initiators"].values()
    assert initiator["failed"] == 0
    assert initiator["retries"] == initiator["timeouts"] + initiator["short_data"]
    assert initiator["retries"] <= job.options.iodepth
    shorter = dataclasses.replace(host, dev_loss_tmo=fault.duration / 2)
    lost = run(dataclasses.replace(sc, nodes=tuple(
        shorter if n.name == "host" else n for n in sc.nodes)))
    (figures,) = jobs(lost).values()
    assert figures["errors"] == job.options.iodepth
    (initiator,) = lost["storage"]["initiators"].values()
    assert initiator["failed"] == job.options.iodepth and initiator["timeouts"] == 0


def fcp_read_and_write(sc: Scenario) -> None:
    jobs = run(sc)["storage"]["jobs"]
    assert {(j["rw"], j["ios"], j["bytes"]) for j in jobs.values()} == {
        ("read", 1, 8192), ("write", 1, 8192)}


def gige(sc: Scenario, mtu: int) -> None:
    assert speeds(sc) == {"1000BASE-X"} and {n.mtu for n in sc.nodes} == {mtu}


def gige_pulled_cable(sc: Scenario) -> None:
    assert [(f.kind, f.at, f.duration) for f in sc.faults] == [("link-down", 0.1, 0.05)]
    assert models(sc) == ["gigabit-workgroup"]


def gige_udp_phase_effects(sc: Scenario) -> None:
    text = description("gige-udp-phase-effects")
    carried = float(re.search(r"carries ([\d.]+) Mbit/s", text).group(1))
    assert carried == round(1000 * 1470 / 1536, 1)  # 1470 of every 1536 bytes of line time
    assert len(sc.nodes) == 8 and models(sc) == ["gigabit-workgroup"]
    share = float(re.search(r"957 / 7 = ([\d.]+) Mbit/s", text).group(1))
    assert share == round(carried / 7, 1)


def loop_32_ports(sc: Scenario) -> None:
    (loop,) = sc.links
    names = [n.name for n in sc.nodes]
    hosts = [n for n in names if n.startswith("host")]
    assert len(hosts) == 4 and len(names) - len(hosts) == 28 and loop.speed.name == "1GFC"
    assert loop.lip_at


def loop_fairness(sc: Scenario) -> None:
    unfair = [n.name for n in sc.nodes if n.loop is not None and not n.loop.fairness]
    assert len(unfair) == 1 and len([w for w in sc.workloads if w.source != unfair[0]]) == 3


def loop_lip_busy(sc: Scenario) -> None:
    assert [(f.kind, f.at) for f in sc.faults] == [("lip", 0.02)]
    assert len(sc.workloads) == 3


def loop_two_sites(sc: Scenario) -> None:
    (loop,) = sc.links
    assert sorted(c.length for c in loop.hop_cables())[-2:] == [10_000, 10_000]
    result = run(sc)["loop"]
    assert result["round_trip_s"] == pytest.approx(100e-6, rel=0.05)  # about 100 us
    assert result["utilisation"] == pytest.approx(0.5, abs=0.06)  # about half its rate
    assert result["held_fraction"] == pytest.approx(0.9, abs=0.03)  # nine tenths


def multipath_dual_fabric(sc: Scenario) -> None:
    assert models(sc) == ["generic-nonblocking"] * 2 and not isls(sc)  # no ISL between them
    attached: dict[str, set[str]] = {}
    for link in sc.links:
        end, port = link.ends
        attached.setdefault(port.split(":")[0], set()).add(end)
    assert attached == {"swA": {"host", "array"}, "swB": {"host.1", "array.1"}}
    policy = node(sc, "host").multipath
    assert (policy.path_grouping_policy, policy.path_selector) == ("multibus", "round-robin")
    (w,) = sc.workloads
    assert (w.options.rw, w.options.bs) == ("randread", 8192)
    result = run(sc)
    (device,) = result["storage"]["multipath"].values()
    assert len(device["groups"]) == 1  # all paths in one group
    ios = [p["ios"] for p in device["paths"].values()]
    assert len(ios) == 2 and abs(ios[0] - ios[1]) <= 1  # half the commands each
    # the two links' bandwidth: each read's data frames and its FCP_RSP, back to back
    chars = sum(frame_chars(f) + 4 * MIN_FILL_WORDS for f in (2048,) * 4 + (FCP_RSP_SIZE,))
    link = w.options.bs / (chars * CATALOG["4GFC"].char_time)
    assert jobs(result)["oltp"]["throughput_bytes_per_s"] == pytest.approx(2 * link, rel=0.01)


def multipath_link_failure(sc: Scenario) -> None:
    array = node(sc, "array")
    assert (array.target.name, array.target.raid, array.ports) == ("stk-9176-class", 5, 2)
    policy = node(sc, "host").multipath
    assert (policy.path_grouping_policy, policy.path_selector) == ("multibus", "round-robin")
    assert (policy.fast_io_fail_tmo, policy.polling_interval) == (5.0, 5.0)
    (fault,) = sc.faults
    assert (fault.kind, fault.at, fault.at + fault.duration) == ("link-down", 2.0, 10.0)
    assert next(link for link in sc.links if link.name == fault.link).ends == ("host", "swA:0")
    result = run(sc)
    (device,) = result["storage"]["multipath"].values()
    at = {e["event"].split(" (")[0]: e["time_s"] for e in device["events"]
          if e["path"] == "host-array"}
    assert at["failed"] == pytest.approx(fault.at + policy.fast_io_fail_tmo, abs=1e-3)
    # the checker first looks polling_interval after the paths were made (as the device
    # first chose a path); blocked, the path is looked at each tick of the checker loop
    # until the first look after fast_io_fail_tmo has made it transport-offline (down),
    # and then a polling_interval later: the first look after the cable is back, a TUR's
    # round trip before the reinstatement
    first = device["events"][0]["time_s"] + policy.polling_interval
    down = first + math.ceil((at["failed"] - first) / CHECKER_TICK) * CHECKER_TICK
    look = down + policy.polling_interval
    assert fault.at + fault.duration < look
    assert round(look) == figure(description("multipath-link-failure"),
                                 r"first look after it is back, at (\d+) s")
    assert at["reinstated"] == pytest.approx(look, abs=1e-3)
    latency = jobs(result)["oltp"]["latency_s"]
    assert latency["max"] == pytest.approx(policy.fast_io_fail_tmo, rel=0.01)
    disk = array.target.disk
    assert latency["p99"] < 10 * (disk.average_seek + 30 / disk.rpm)  # a disk's, not seconds


def _marginal_isl(sc: Scenario, name: str) -> dict[str, Any]:
    """What the two marginal-ISL examples share: two fabrics of two switches
    and one ISL each, round robin over both paths in one group, fabric A's
    ISL at the stated bit error rate from 50 ms (about one full frame in 160
    damaged), the job's timeout scaled to 20 ms; their run. The table of
    docs/multipath.md is checked by tests/docs/test_marginal_isl_example.py."""
    text = description(name)
    assert sorted(s.name for s in sc.switches) == ["swA1", "swA2", "swB1", "swB2"]
    assert sorted(link.name for link in isls(sc)) == ["islA", "islB"]
    policy = node(sc, "host").multipath
    assert (policy.path_grouping_policy, policy.path_selector) == ("multibus", "round-robin")
    (fault,) = sc.faults
    assert (fault.kind, fault.at, fault.link) == ("bit-error-rate", 0.05, "islA")
    assert fault.bit_error_rate == figure(text, r"rises to ([0-9.e-]+) in both")
    bits = frame_chars(MAX_DATA_FIELD) * 10  # 4GFC: 8b/10b
    damaged = 1 - (1 - fault.bit_error_rate) ** bits
    assert 1 / damaged == pytest.approx(figure(text, r"about one 2 KiB frame in (\d+)"),
                                        rel=0.05)
    (w,) = sc.workloads
    assert w.timeout == figure(text, r"scaled down to (\d+) ms") / 1e3
    return first_repetition(sc)  # tests/docs/test_marginal_isl_example.py reads it too


def multipath_marginal_isl(sc: Scenario) -> None:
    result = _marginal_isl(sc, "multipath-marginal-isl")
    text = description("multipath-marginal-isl")
    assert sc.fpin is not None and sc.fpin.link_integrity
    window = figure(text, r"each (\d+) ms window") / 1e3
    assert (sc.fpin.link_integrity_window, sc.fpin.link_integrity_threshold) == (
        window, figure(text, r"at least (\d+) CRC errors"))
    assert node(sc, "host").multipath.marginal_pathgroups == "fpin"
    device = result["storage"]["multipath"]["host:array"]
    (marked,) = [e["time_s"] for e in device["events"] if e["event"].startswith("marginal")]
    # the end of the first window after the fault, plus the FPIN's way to the host
    assert marked == pytest.approx(figure(text, r"marginal at (\d+) ms") / 1e3, abs=1e-4)
    assert marked == pytest.approx(sc.faults[0].at + window, abs=1e-4)
    errors = sum(d["errors"] for d in result["links"]["islA"]["directions"].values())
    assert errors == figure(text, r"stops at\s+the (\d+) of the first window")


def multipath_marginal_isl_no_fpin(sc: Scenario) -> None:
    result = _marginal_isl(sc, "multipath-marginal-isl-no-fpin")
    text = description("multipath-marginal-isl-no-fpin")
    assert sc.fpin is None
    policy = node(sc, "host").multipath
    assert policy.polling_interval == figure(text, r"polling_interval (\d+) ms") / 1e3
    errors = sum(d["errors"] for d in result["links"]["islA"]["directions"].values())
    assert errors == figure(text, r"the ISL counts (\d+)\s+errors")
    path = result["storage"]["multipath"]["host:array"]["paths"]["host-array"]
    events = [e["event"] for e in result["storage"]["multipath"]["host:array"]["events"]
              if e["path"] == "host-array"]
    host = result["storage"]["initiators"]["host"]
    # lost responses time out and are sent again on the same path, which never fails
    assert host["timeouts"] >= 1 and host["failed"] == 0
    assert path["failures"] == 0 and events == []
    assert jobs(result)["oltp"]["latency_s"]["max"] >= sc.workloads[0].timeout


def myrinet_slice_storage(sc: Scenario) -> None:
    assert len(sc.nodes) == 3 and speeds(sc) == {"Myrinet-1280"}


def myrinet_switch_failure(sc: Scenario) -> None:
    assert [(f.kind, f.at, f.duration) for f in sc.faults] == [
        ("switch-failure", 0.03, 0.01), ("link-down", 0.06, 0.02)]


def myrinet_two_hosts(sc: Scenario) -> None:
    speed = CATALOG["Myrinet-1280"]
    assert (8232 + 7) * speed.char_time == pytest.approx(51.5e-6, abs=0.05e-6)  # 51.5 us
    assert {n.mtu for n in sc.nodes} == {9000}
    reported = float(re.search(r"reports about (\d+) Mbit/s", description(
        "myrinet-two-hosts")).group(1))
    measured = run(sc)["netperf"]["stream"]["throughput_mbit_s"]
    assert measured == pytest.approx(reported, rel=0.02)


def netperf_over_ancor(sc: Scenario) -> None:
    assert models(sc) == ["ancor-fcs-266-16"] and speeds(sc) == {"266M"}


def nvme_namespaces(sc: Scenario) -> None:
    ssd = node(sc, "ssd")
    assert ssd.namespaces == 4 and ssd.target.name.startswith("mqsim-")
    assert speeds(sc) == {"16GFC"}
    assert "Several logical units per target" in (ROOT / "docs" / "storage.md").read_text()
    assert [(w.name, w.nvme is not None, w.unit, w.options.rw) for w in sc.workloads] == [
        ("ns1-reads", True, 1, "randread"), ("ns2-writes", True, 2, "randwrite"),
        ("lun3-reads", False, 3, "randread")]
    storage = run(sc)["storage"]
    assert set(storage["queues"]["host"]) == {"nvme:ssd", "nvme:ssd:ns2", "ssd:lun3"}
    nvme = storage["nvme_targets"]["ssd"]
    assert len(nvme["connections"]) == 1  # the two namespaces share one I/O connection
    assert [nvme["namespace_commands"][n] > 0 for n in "1234"] == [True, True, False, False]
    luns = storage["targets"]["ssd"]["lun_commands"]
    assert [luns[n] > 0 for n in "0123"] == [False, False, False, True]
    assert storage["targets"]["ssd"]["limit"] == "flash dies"  # all three share its dies


def nvme_vs_fcp_sweep(sc: Scenario, nvme: bool) -> None:
    afa = node(sc, "afa").target
    assert (afa.name, afa.controller_time, afa.mirrored, afa.ssds) == (
        "afa-24-mqsim", 2e-6, True, 24)
    assert afa.cache > 0 and afa.ssd.name.startswith("mqsim-")
    assert len(sc.switches) == 1 and speeds(sc) == {"32GFC"}
    assert {link.cable.length for link in sc.links} == {10.0}
    (w,) = sc.workloads
    assert (w.options.rw, w.options.bs) == ("randwrite", 4096)
    assert w.iodepths == tuple(2 ** i for i in range(9))  # 1 to 256
    assert (w.nvme is not None) == nvme
    if nvme:
        assert w.nvme.first_burst == w.options.bs  # its 4 KiB as first burst


def nvme_multipath_ana(sc: Scenario) -> None:
    assert models(sc) == ["generic-nonblocking"] * 2 and not isls(sc) and speeds(sc) == {"4GFC"}
    host, array = node(sc, "host"), node(sc, "array")
    assert host.multipath.iopolicy == "round-robin" and array.ports == 2
    assert dict(array.ana_states) == {"array.1": "non-optimized"}  # array: optimized
    (w,) = sc.workloads
    assert (w.nvme is not None, w.options.rw, w.options.bs) == (True, "randread", 65536)
    (f,) = sc.faults
    assert (f.kind, f.at, f.at + f.duration) == ("link-down", 0.004, 0.008)
    assert next(link for link in sc.links if link.name == f.link).ends == ("host", "swA:0")
    # one 4GFC link's reads: each read's data frames and response (an ERSP
    # every ersp_ratio-th), each with the gap after it
    rate = CATALOG["4GFC"]
    ratio = ersp_ratio(128)
    response = ((ratio - 1) * frame_chars(RSP_SIZE) + frame_chars(ERSP_SIZE)) / ratio
    full, rest = divmod(w.options.bs, MAX_DATA_FIELD)
    frames = [MAX_DATA_FIELD] * full + ([rest] if rest else [])
    per_read = (sum(frame_chars(n) + 4 * MIN_FILL_WORDS for n in frames)
                + response + 4 * MIN_FILL_WORDS) * rate.char_time
    healthy = run(dataclasses.replace(sc, faults=()))["storage"]
    (head,) = healthy["nvme_multipath"].values()
    assert head["paths"]["host.1-array.1"]["ios"] == 0  # every read down fabric A
    assert healthy["jobs"]["reads"]["throughput_bytes_per_s"] == pytest.approx(
        w.options.bs / per_read, rel=0.01)
    storage = run(sc)["storage"]
    (head,) = storage["nvme_multipath"].values()
    assert storage["jobs"]["reads"]["errors"] == 0 and head["failed_ios"] == 0  # none fails
    assert head["failovers"] == w.options.iodepth  # every read outstanding on A, aborted
    at = {e["event"]: e["time_s"] for e in head["events"] if e["path"] == "host-array"}
    assert f.at < at["remote port blocked"] < at["remote port online"]
    assert at["remote port online"] >= f.at + f.duration
    # the non-optimized path takes the aborted reads and those sent while A is
    # down, at most one link's worth, and nothing once A is live again
    carried = head["paths"]["host.1-array.1"]["ios"]
    outage = at["remote port online"] - at["remote port blocked"]
    assert w.options.iodepth < carried <= w.options.iodepth + outage / per_read


def nvme_link_fault(sc: Scenario) -> None:
    assert speeds(sc) == {"16GFC"} and all(n.nvme_sler for n in sc.nodes)
    (w,) = sc.workloads
    assert (w.nvme is not None, w.options.rw, w.options.bs, w.options.iodepth) == (
        True, "randread", 16384, 4)
    (f,) = sc.faults
    assert (f.kind, f.at, f.duration, f.bit_error_rate, f.sender) == (
        "bit-error-rate", 0.005, 0.01, 1e-6, None)
    results = run_scenario(sc)
    result = results["repetitions"][0]
    storage = result["storage"]
    job = storage["jobs"]["reads"]
    recovery = storage["nvme_initiators"]["host"]["recovery"]
    text = summary_text(results)
    sr = recovery["retransmission_requests"]
    assert f"  NVMe controller ssd answered {sr} NVMe_SR and 0 ABTS" in text
    assert (f"  NVMe host port host, recovery (SLER with 000002): 0 REC, {sr} NVMe_SR, 0 "
            "commands sent again in their exchange, 0 timeouts, 0 ABTS, 0 retries, "
            "0 returned with an error, 0 association resets, 0 reconnection attempts, "
            "0 controllers lost") in text
    hit = result["faults"]["schedule"][0]["frames_errored"]
    assert job["errors"] == 0 and recovery["sler"] == ["000002"]
    assert hit > recovery["retransmission_requests"] > hit / 2  # most hits: read data
    assert storage["nvme_targets"]["ssd"]["recovery"]["retransmissions"] == recovery[
        "retransmission_requests"]
    assert recovery["recs"] == recovery["timeouts"] == recovery["aborts"] == 0
    assert job["latency_s"]["p99.9"] < 2 * job["latency_s"]["p50"]
    host, ssd = sc.nodes
    plain = run(dataclasses.replace(sc, nodes=(dataclasses.replace(host, nvme_sler=False),
                                               ssd)))["storage"]
    without = plain["nvme_initiators"]["host"]["recovery"]
    assert without["sler"] == [] and without["retransmission_requests"] == 0
    assert without["retries"] > 0 and plain["jobs"]["reads"]["errors"] == 0
    # each read short of data resets the association: the others are aborted
    # and sent again once it is made again
    assert 0 < without["association_resets"] <= without["reconnects"]
    assert without["aborts"] > 0 and without["timeouts"] == 0
    assert without["retries"] >= without["association_resets"] + without["aborts"]
    assert plain["jobs"]["reads"]["ios"] < job["ios"]


def p2p_1gfc_class3(sc: Scenario) -> None:
    (link,) = sc.links
    assert link.cable.length == 1000 and link.speed.name == "1GFC"
    (w,) = run(sc)["workloads"].values()
    assert w["throughput_bytes_per_s"] == pytest.approx(ceiling("1GFC"), rel=0.005)


def p2p_266_open_loop(sc: Scenario) -> None:
    (link,), (w,) = sc.links, sc.workloads
    mean_size = (w.size.low + w.size.high) / 2
    frames = math.ceil(mean_size / MAX_DATA_FIELD)
    line = (mean_size + frames * (frame_chars(0) + 4 * MIN_FILL_WORDS)) * link.speed.char_time
    assert line / w.interarrival.mean == pytest.approx(0.70, abs=0.05)  # "~70 % load"


def p2p_32gfc_fec(sc: Scenario) -> None:
    (link,) = sc.links
    assert link.speed.name == "32GFC" and link.bit_error_rate == 4e-4


def p2p_bb_credit_recovery(sc: Scenario) -> None:
    (link,) = sc.links
    assert (link.speed.name, link.cable.length) == ("4GFC", 2000)
    (f,) = sc.faults
    assert (f.kind, f.duration, f.mean_interval) == ("loss-of-sync", 2e-6, 500e-6)
    assert {n.params.bb_sc_n for n in sc.nodes} == {3}  # a checkpoint every 2^3 = 8
    result = run(sc)
    ports = result["faults"]["ports"]
    host, disk = ports["host"], ports["disk"]
    # every lost frame and R_RDY comes back at a checkpoint
    assert disk["bb_credit_recovery"]["frames_recovered"] == disk["frames_lost"] > 0
    assert host["bb_credit_recovery"]["credit_recovered"] == host["r_rdy_lost"] > 0
    text = header("p2p-bb-credit-recovery")
    assert disk["frames_lost"] == figure(text, r"by the (\d+) frames lost")
    # the link keeps its credit: the line's rate less the writes lost
    (w,) = sc.workloads
    measured = sc.run.duration - sc.run.warmup
    rate = ceiling("4GFC", w.size) - disk["payload_lost"] / measured
    (done,) = rates(result).values()
    assert done == pytest.approx(rate, rel=0.002)
    assert round(done / 1e6) == figure(text, r"credits: (\d+) MB/s")


def p2p_class1_connections(sc: Scenario) -> None:
    (w,) = sc.workloads
    assert w.cls == 1 and w.size == parse_size("8 KiB") and w.outstanding == 1
    result = run(sc)
    (done,) = result["workloads"].values()
    assert result["nodes"][w.source]["connections"] >= done["sequences"] > 0


def p2p_class2_bidirectional(sc: Scenario) -> None:
    (link,) = sc.links
    a, b = link.ends
    assert {(w.source, w.destination, w.cls) for w in sc.workloads} == {(a, b, 2), (b, a, 2)}
    assert link.speed.name == "1GFC"
    assert all(w["throughput_bytes_per_s"] > 0 for w in run(sc)["workloads"].values())


def p2p_error_bursts(sc: Scenario) -> None:
    (f,) = sc.faults
    assert (f.duration, f.bit_error_rate, f.mean_interval) == (0.0005, 1e-5, 0.005)


def p2p_flapping_cable(sc: Scenario) -> None:
    (f,) = sc.faults
    assert (f.kind, f.at, f.duration, f.every, f.until) == ("link-down", 0.005, 0.002, 0.01,
                                                           0.045)


def p2p_long_link_credit(sc: Scenario) -> None:
    (link,) = sc.links
    assert link.cable.length == 50_000
    (w,) = run(sc)["workloads"].values()
    assert w["throughput_bytes_per_s"] < 0.9 * ceiling(link.speed.name)  # credit-limited


def p2p_one_way_errors(sc: Scenario) -> None:
    (link,) = sc.links
    assert sorted(rate for _, rate in link.error_rates) == [1e-12, 1e-7]
    assert [(f.at, f.bit_error_rate) for f in sc.faults] == [(0.02, 1e-6)]


def p2p_pulled_cable(sc: Scenario) -> None:
    assert [(f.kind, f.at) for f in sc.faults] == [("link-down", 0.01), ("link-up", 0.03)]


def p2p_udp_pulled_cable(sc: Scenario) -> None:
    assert [(f.kind, f.at, f.duration) for f in sc.faults] == [("link-down", 0.02, 0.01)]


def ssd_garbage_collection(sc: Scenario) -> None:
    ssd = node(sc, "ssd").target
    assert ssd.name == "mqsim-mlc-small"
    dies = ssd.channels * ssd.dies_per_channel
    assert (dies, ssd.blocks_per_die) == (2, 24)
    flash = dies * ssd.blocks_per_die * ssd.pages_per_block * ssd.page_size
    assert 1 - ssd.capacity / flash == pytest.approx(0.20, abs=0.001)  # 20 % spare
    (w,) = sc.workloads
    assert (w.nvme is not None, w.options.rw, w.options.iodepth) == (True, "randwrite", 16)
    assert w.options.bs == ssd.page_size == 8192  # whole pages

    def moved(duration: float) -> int:
        """Pages the collector has moved *duration* s into the run."""
        head = dataclasses.replace(sc, run=dataclasses.replace(sc.run, duration=duration,
                                                                  warmup=0.0))
        return run(head)["storage"]["targets"]["ssd"]["gc_pages_moved"]

    assert moved(0.03) == 0 < moved(0.06)  # it begins after "the first 40 ms or so"


def structure(topology: str) -> Callable[[Scenario], None]:
    """The make-up such descriptions name: the topology and its nodes."""
    def check(sc: Scenario) -> None:
        assert sc.topology == topology and sc.nodes
    return check


def tcp_noisy_link(sc: Scenario) -> None:
    assert speeds(sc) == {"266M"}
    assert [(f.kind, f.at, f.bit_error_rate) for f in sc.faults] == [
        ("bit-error-rate", 1.0, 1e-5)]


def vlan_trunk(sc: Scenario) -> None:
    assert models(sc) == ["force10-e-series-class"] * 2 and len(sc.workloads) == 2


CHECKS: dict[str, Callable[[Scenario], None]] = {
    "das2-vlan-loopback": das2_vlan_loopback,
    "fabric-16-port-switch": fabric_16_port_switch,
    "fabric-239-domains": fabric_239_domains,
    "fabric-core-edge-isls": fabric_core_edge_isls,
    "fabric-fat-tree-permutation": fabric_fat_tree_permutation,
    "fabric-fspf-flap": fabric_fspf_flap,
    "fabric-hard-zoning": fabric_hard_zoning,
    "fabric-isl-failure": fabric_isl_failure,
    "fabric-isl-trunk": fabric_isl_trunk,
    "fabric-long-distance-isl": fabric_long_distance_isl,
    "fabric-npiv": fabric_npiv,
    "fabric-rscn-storm": fabric_rscn_storm,
    "fabric-rscn-zoning": fabric_rscn_zoning,
    "fabric-slow-drain": fabric_slow_drain,
    "fabric-slow-drain-credit-loss": fabric_slow_drain_credit_loss,
    "fabric-slow-drain-dirl": fabric_slow_drain_dirl,
    "fabric-slow-drain-fencing": fabric_slow_drain_fencing,
    "fabric-slow-drain-fpin": fabric_slow_drain_fpin,
    "fabric-slow-drain-isolation": fabric_slow_drain_isolation,
    "fabric-slow-drain-vc": fabric_slow_drain_vc,
    "fabric-storage-on-core": fabric_storage_on_core,
    "fc3-hunt-group": fc3_hunt_group,
    "fc3-multicast": fc3_multicast,
    "fc3-striping": fc3_striping,
    "fcp-abts-after-loss": fcp_abts_after_loss,
    "fcp-link-down-held": fcp_link_down_held,
    "fcp-read-and-write": fcp_read_and_write,
    "gige-mtu-1500": lambda sc: gige(sc, 1500),
    "gige-mtu-9000": lambda sc: gige(sc, 9000),
    "gige-pulled-cable": gige_pulled_cable,
    "gige-udp-phase-effects": gige_udp_phase_effects,
    "loop-32-ports": loop_32_ports,
    "loop-fairness": loop_fairness,
    "loop-lip-busy": loop_lip_busy,
    "loop-two-sites": loop_two_sites,
    "multipath-dual-fabric": multipath_dual_fabric,
    "multipath-link-failure": multipath_link_failure,
    "multipath-marginal-isl": multipath_marginal_isl,
    "multipath-marginal-isl-no-fpin": multipath_marginal_isl_no_fpin,
    "myrinet-slice-storage": myrinet_slice_storage,
    "myrinet-switch-failure": myrinet_switch_failure,
    "myrinet-two-hosts": myrinet_two_hosts,
    "netperf-tcp-rr": netperf_over_ancor,
    "netperf-tcp-stream-sweep": netperf_over_ancor,
    "nvme-link-fault": nvme_link_fault,
    "nvme-multipath-ana": nvme_multipath_ana,
    "nvme-namespaces": nvme_namespaces,
    "nvme-vs-fcp-nvme": structure("point-to-point"),
    "nvme-vs-fcp-scsi": structure("point-to-point"),
    "nvme-vs-fcp-sweep-nvme": lambda sc: nvme_vs_fcp_sweep(sc, nvme=True),
    "nvme-vs-fcp-sweep-scsi": lambda sc: nvme_vs_fcp_sweep(sc, nvme=False),
    "p2p-1gfc-class3": p2p_1gfc_class3,
    "p2p-266-open-loop": p2p_266_open_loop,
    "p2p-32gfc-fec": p2p_32gfc_fec,
    "p2p-bb-credit-recovery": p2p_bb_credit_recovery,
    "p2p-class1-connections": p2p_class1_connections,
    "p2p-class2-bidirectional": p2p_class2_bidirectional,
    "p2p-error-bursts": p2p_error_bursts,
    "p2p-flapping-cable": p2p_flapping_cable,
    "p2p-long-link-credit": p2p_long_link_credit,
    "p2p-one-way-errors": p2p_one_way_errors,
    "p2p-pulled-cable": p2p_pulled_cable,
    "p2p-udp-pulled-cable": p2p_udp_pulled_cable,
    "relay-gige-to-fc": structure("internetwork"),
    "san-array": structure("fabric"),
    "san-fabric-disks": structure("fabric"),
    "san-jbod-loop": structure("loop"),
    "san-ramdisk": structure("point-to-point"),
    "san-striped-client": structure("fabric"),
    "server-local-disks": structure("point-to-point"),
    "ssd-garbage-collection": ssd_garbage_collection,
    "tcp-noisy-link": tcp_noisy_link,
    "vlan-trunk": vlan_trunk,
}
"""Per example, the check of its description."""

RUN_ELSEWHERE: dict[str, str] = {
    "gige-mtu-1500": "tests/docs/test_gige_examples.py",
    "gige-mtu-9000": "tests/docs/test_gige_examples.py",
    "p2p-32gfc-fec": "tests/analytical/test_fec.py",
    "nvme-vs-fcp-nvme": "tests/docs/test_nvme_vs_fcp.py",
    "nvme-vs-fcp-scsi": "tests/docs/test_nvme_vs_fcp.py",
    # the lesson's Python block runs both sweeps (tests/docs/test_tutorials.py)
    "nvme-vs-fcp-sweep-nvme": "docs/tutorials/12-nvme-vs-fcp.md",
    "nvme-vs-fcp-sweep-scsi": "docs/tutorials/12-nvme-vs-fcp.md",
    "ssd-garbage-collection": "tests/analytical/test_ssd_garbage_collection.py",
    "fabric-slow-drain-fpin": "tests/docs/test_fpin_example.py",
}
"""Examples whose stated figures another test runs and checks (its file)."""

NOT_RUN: dict[str, str] = {
    "das2-vlan-loopback": "a 1.2 s iperf mesh (about 10 s): its make-up is checked",
    "fabric-239-domains": "about 20 s to build and log in: its make-up is checked",
    "fabric-rscn-storm": "a 12-domain login storm (about 3 s): its make-up is checked",
    "gige-udp-phase-effects": "7 UDP senders for 0.5 s (about 9 s): the closed forms it "
                              "states (957.0 and 136.7 Mbit/s) are checked",
    "myrinet-slice-storage": "qualitative; the Slice figures are validated in "
                             "validation/ (Anderson et al.)",
    "myrinet-switch-failure": "states its schedule only, which is checked",
    "netperf-tcp-rr": "states its set-up only; validated against Ong & Farrell",
    "netperf-tcp-stream-sweep": "states its set-up only; validated against Ong & Farrell",
    "relay-gige-to-fc": "qualitative (the slowest hop sets the rate)",
    "san-array": "qualitative (what limits the array is named in the summary)",
    "san-fabric-disks": "qualitative (IOPS set by the mechanics)",
    "san-jbod-loop": "qualitative (the disks' sum until the loop binds)",
    "san-ramdisk": "qualitative (compare with san-fabric-disks)",
    "san-striped-client": "qualitative (the client limits the rate)",
    "server-local-disks": "qualitative (the drives' media rates bind)",
    "tcp-noisy-link": "states its schedule only, which is checked",
    "vlan-trunk": "a 1.2 s run of two TCP streams (about 17 s): its make-up is checked",
    "gige-pulled-cable": "states its schedule and relink time only; the schedule is checked",
    "fc3-hunt-group": "states its make-up only, which is checked",
    "fc3-multicast": "states its make-up only, which is checked",
    "fc3-striping": "states its make-up only, which is checked",
    "fabric-16-port-switch": "states its make-up only, which is checked",
    "loop-32-ports": "states its make-up only, which is checked",
    "loop-fairness": "states its make-up only, which is checked",
    "loop-lip-busy": "states its make-up only, which is checked",
    "p2p-error-bursts": "states its schedule only, which is checked",
    "p2p-flapping-cable": "states its schedule only, which is checked",
    "p2p-one-way-errors": "states its schedule only, which is checked",
    "p2p-pulled-cable": "states its schedule only, which is checked",
    "p2p-udp-pulled-cable": "states its schedule only, which is checked",
}
"""Examples this module does not run, and why."""


def test_every_example_has_a_check() -> None:
    assert sorted(CHECKS) == sorted(p.stem for p in EXAMPLES)
    for name, path in RUN_ELSEWHERE.items():  # by its name, or a name made from its stem
        text = (ROOT / path).read_text(encoding="utf-8")
        assert name in text or name.rsplit("-", 1)[0] + "-{" in text, (name, path)
    assert not set(RUN_ELSEWHERE) & set(NOT_RUN)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_description_matches_the_example(example: Path) -> None:
    assert description(example.stem)
    CHECKS[example.stem](load_scenario(example))
