"""Checks that span keys, made once every key of a scenario file has been read:
names unique, link and workload ends known, the topology's shape, the run's
room for each test. Each returns every problem it finds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fcsim.ethernet.checks import ethernet_links
from fcsim.fabric.checks import (
    channel_problems,
    congestion_problems,
    fpin_problems,
    in_order_problems,
    isolation_problems,
    npiv_problems,
    trunk_problems,
    zone_problems,
)
from fcsim.fabric.npiv import virtual_ports_of
from fcsim.faults.checks import fault_problems
from fcsim.fc0.speed import CODING_8B10B, CODING_64B66B
from fcsim.fc3.checks import fc3_problems
from fcsim.fc3.ports import ports_of
from fcsim.fc4.fcp import BLOCK
from fcsim.host.block import striped_capacity
from fcsim.loop.al_pa import MAX_NL_PORTS
from fcsim.loop.checks import loop_problems
from fcsim.myrinet.checks import myrinet_links
from fcsim.scenario.internetwork import check_networks
from fcsim.scenario.reach_checks import reach
from fcsim.scenario.sections.apps import IperfSection, NetperfSection
from fcsim.scenario.sections.document import (
    EthernetScenario,
    FabricScenario,
    InternetworkScenario,
    LoopScenario,
    MyrinetScenario,
    PointToPointScenario,
)
from fcsim.scenario.sections.transfer import TransferSection
from fcsim.scenario.sections.workloads import GeneratorSection, StreamSection
from fcsim.schema.errors import Problem, count, given, show
from fcsim.schema.rules import ends_once, known, unique
from fcsim.storage.checks import block_job, channels, local_disks, multipath, namespaces
from fcsim.storage.config import DdSection, FioSection
from fcsim.storage.local import LocalTarget
from fcsim.topology.point_to_point import DEFAULT_PORT_IDS
from fcsim.trapeze.checks import block_servers, slice_job
from fcsim.trapeze.config import FaultSection, SliceDdSection

Scenario = (PointToPointScenario | FabricScenario | LoopScenario | EthernetScenario
            | MyrinetScenario | InternetworkScenario)
LanScenario = EthernetScenario | MyrinetScenario


def check(doc: Scenario, raw: dict[str, Any]) -> list[Problem]:
    """Every problem across keys of the scenario *doc* read from the document *raw*.
    A topology of the wrong shape is reported alone: the other checks would
    only repeat it."""
    shape = list(_shape(doc))
    if shape:
        return shape
    if isinstance(doc, InternetworkScenario):
        networks = check_networks(doc, raw, check)
        return [*_run(doc, raw), *_nodes(doc, raw), *networks,
                *([] if networks else _workloads(doc, raw))]
    return [*_run(doc, raw), *_nodes(doc, raw), *_links(doc, raw), *_workloads(doc, raw),
            *fc3_problems(doc, raw), *fault_problems(doc, raw),
            *zone_problems(doc, raw, list(ports_of(doc.nodes))), *npiv_problems(doc, raw),
            *isolation_problems(doc, raw), *congestion_problems(doc), *fpin_problems(doc),
            *trunk_problems(doc, raw), *in_order_problems(doc, raw)]


def _shape(doc: Scenario) -> Iterator[Problem]:
    if isinstance(doc, PointToPointScenario) and (len(doc.nodes), len(doc.links)) != (2, 1):
        section, n = ("nodes", len(doc.nodes)) if len(doc.nodes) != 2 else ("links",
                                                                            len(doc.links))
        yield Problem(section, f"given {count(n, section[:-1])}",
                      "topology 'point-to-point' needs exactly 2 nodes and 1 link")
    if isinstance(doc, FabricScenario) and not doc.switches:
        yield Problem("switches", "missing", "at least one [[switches]] table, or a [fabric] "
                      "table that generates them")
    if isinstance(doc, LoopScenario) and not 2 <= len(doc.nodes) <= MAX_NL_PORTS:
        yield Problem("nodes", f"given {count(len(doc.nodes), 'node')}",
                      f"topology 'loop' needs 2 to {MAX_NL_PORTS} nodes")


def _run(doc: Scenario, raw: dict[str, Any]) -> Iterator[Problem]:
    if doc.run.warmup >= doc.run.duration:
        yield Problem("run.warmup", given(raw["run"]["warmup"]),
                      f"a time less than run.duration ({show(raw['run']['duration'])})")
    if doc.run.steady_state is not None:
        others = [f"{w.type} {w.name!r}" if w.type != "netperf" else f"{w.test} {w.name!r}"
                  for w in doc.workloads
                  if not (isinstance(w, NetperfSection) and w.test != "UDP_STREAM")]
        if others:
            yield Problem("run.steady_state", f"given with {', '.join(others)}",
                          "only files whose workloads are all netperf TCP_STREAM or TCP_RR "
                          "tests stop at a steady state")


def _nodes(doc: Scenario, raw: dict[str, Any]) -> Iterator[Problem]:
    raws = raw.get("nodes", [])
    yield from unique(raws, "nodes", "name", [n.name for n in doc.nodes])
    for i, node in enumerate(doc.nodes):
        if node.background_load is not None and node.host is None:
            yield Problem(f"nodes[{i}].background_load", given(raws[i]["background_load"]),
                          "a host model for the node (background_load loads a host's "
                          "processor)")
        for key in ("rx_frame_time", "rx_delay"):
            table = getattr(node, key, None)
            if table is not None and table.distribution == "uniform" and table.low > table.high:
                yield Problem(f"nodes[{i}].{key}.high", given(raws[i][key]["high"]),
                              f"a time not below low ({show(raws[i][key]['low'])})")
        stuck = [k for k in ("rx_stuck_at", "rx_stuck_for") if getattr(node, k, None) is not None]
        if len(stuck) == 1:
            other = "rx_stuck_for" if stuck[0] == "rx_stuck_at" else "rx_stuck_at"
            yield Problem(f"nodes[{i}].{stuck[0]}", given(raws[i][stuck[0]]),
                          f"given with {other} (a stuck receiver needs both)")
    if not isinstance(doc, EthernetScenario):
        yield from channels(doc.nodes, raws)
        for i, node in enumerate(doc.nodes):
            if hasattr(node, "namespaces"):
                yield from namespaces(node, raws[i], f"nodes[{i}]")
    if isinstance(doc, MyrinetScenario):
        yield from block_servers(doc.nodes, raws)
    if isinstance(doc, FabricScenario | LanScenario):
        yield from unique(raw.get("switches", []), "switches", "name",
                          [s.name for s in doc.switches])
    if isinstance(doc, FabricScenario):
        yield from unique(raw.get("switches", []), "switches", "domain",
                          [s.domain for s in doc.switches])
        yield from multipath(doc.nodes, raws, doc.links, doc.workloads, doc.fpin)
    if isinstance(doc, PointToPointScenario):
        ids = [n.port_id or default for n, default in zip(doc.nodes, DEFAULT_PORT_IDS,
                                                          strict=True)]
        yield from unique(raws, "nodes", "port_id", [f"0x{i:06X}" for i in ids])
    if isinstance(doc, LoopScenario):
        yield from loop_problems(doc.nodes, doc.loop, raws, raw["loop"])


def _links(doc: Scenario, raw: dict[str, Any]) -> Iterator[Problem]:
    if isinstance(doc, LoopScenario):
        return
    virtual = set(virtual_ports_of(doc.nodes))  # NPIV: behind their node's first N_Port
    names = [p for p in ports_of(doc.nodes) if p not in virtual]  # NAME.i of several
    raws = raw.get("links", [])
    ports = ({s.name: s.model.ports for s in doc.switches}
             if isinstance(doc, FabricScenario | LanScenario) else {})
    for i, link in enumerate(doc.links):
        for j, end in enumerate(link.ends):
            switch, sep, number = end.partition(":")
            if not sep:
                yield from known(end, f"links[{i}].ends[{j}]", names,
                                 "a node" if len(names) == len(doc.nodes) else "an N_Port")
            elif switch not in ports or not (number.isdigit() and int(number) < ports[switch]):
                have = ", ".join(f"{n}:0..{p - 1}" for n, p in ports.items()) or "none"
                yield Problem(f"links[{i}].ends[{j}]", given(end),
                              f"a node name or a switch port written 'switch:port' ({have})")
    yield from unique(raws, "links", "name",
                      [link.name or f"link{i}" for i, link in enumerate(doc.links)])
    for i, link in enumerate(doc.links):
        fec = getattr(link, "fec", None)
        coding = getattr(link, "coding", None) or link.speed.coding
        if fec is not None and any(fec) and (coding != CODING_64B66B
                                             or link.speed.fec is not None):
            yield Problem(f"links[{i}].fec", given(raws[i]["fec"]),
                          f"fec only at 16GFC (64b/66b without FEC; {link.speed.name} "
                          + ("has its own FEC" if link.speed.fec is not None else "has none")
                          + ")")
        arb_ff = getattr(link, "arb_ff_fill", None)
        if arb_ff is not None and any(arb_ff) and (link.speed.name != "8GFC"
                                                   or coding != CODING_8B10B):
            yield Problem(f"links[{i}].arb_ff_fill", given(raws[i]["arb_ff_fill"]),
                          "arb_ff_fill only at 8GFC (8b/10b), the speed whose fill word it is")
    for i, given_keys in enumerate(raws):
        if "bit_error_rates" in given_keys and "bit_error_rate" in given_keys:
            yield Problem(f"links[{i}].bit_error_rates", given(given_keys["bit_error_rates"]),
                          "no bit_error_rates with bit_error_rate: one rate for both directions "
                          "or one for each")
    if isinstance(doc, FabricScenario):
        yield from _port_credit(raws)
        yield from _fabric_ends(doc, raws, names)
        yield from channel_problems(doc, raws, getattr(getattr(doc, "congestion", None),
                                                       "isolation", None) is not None)
    if isinstance(doc, EthernetScenario):
        yield from ethernet_links(doc, raws, names)
    if isinstance(doc, MyrinetScenario):
        yield from myrinet_links(doc, raws, names, raw.get("workloads", []))


def _port_credit(raws: list[dict[str, Any]]) -> Iterator[Problem]:
    """A fabric link's switch ports get bb_credit buffers or long_distance's, not both."""
    for i, raw in enumerate(raws):
        if "bb_credit" in raw and "long_distance" in raw:
            yield Problem(f"links[{i}].long_distance", given(raw["long_distance"]),
                          "not with bb_credit: give the buffers or the distance they are "
                          "reserved for, not both")


def _fabric_ends(doc: FabricScenario, raws: list[dict[str, Any]],
                 nodes: list[str]) -> Iterator[Problem]:
    """Each link touches a switch port, each switch port and node is used once."""
    for i, link in enumerate(doc.links):
        if all(":" not in end for end in link.ends):
            yield Problem(f"links[{i}].ends", given(raws[i]["ends"]),
                          "a switch port written 'switch:port' at one end at least")
    yield from ends_once(doc.links, nodes, "every node (every N_Port of a node with ports > 1) "
                         "linked to a switch port")


def _workloads(doc: Scenario, raw: dict[str, Any]) -> Iterator[Problem]:
    raws = raw.get("workloads", [])
    names = [n.name for n in doc.nodes] + virtual_ports_of(doc.nodes)
    groups = [g.name for g in getattr(doc, "alias_groups", [])]
    hosts = {n.name for n in doc.nodes if n.host is not None}
    targets = {n.name: n.target for n in doc.nodes if getattr(n, "target", None) is not None}
    local = {n.name: local_disks(n) for n in doc.nodes}
    for n in doc.nodes:
        served = getattr(n, "target_disks", None)
        if served and n.target is None and all(d in local[n.name] for d in served):
            sizes = [local[n.name][d].capacity for d in served]
            targets[n.name] = LocalTarget(f"disks of {n.name}", served, n.target_stripe,
                                          striped_capacity(sizes, n.target_stripe or BLOCK),
                                          n.target_queue_depth)
    sweeping = None
    for i, w in enumerate(doc.workloads):
        path = f"workloads[{i}]"
        if isinstance(w, TransferSection):
            yield from reach(doc, w, raws[i], path)
            yield from _start(w, raws[i], path, doc.run.duration)
            yield from _mover(w, raws[i], path, hosts)
            continue
        starts = w.source if isinstance(w.source, tuple) else (w.source,)
        ends = w.destination if isinstance(w.destination, tuple) else (w.destination,)
        own = local.get(starts[0], {}) if isinstance(w, FioSection | DdSection) else {}
        to_group = isinstance(w, StreamSection | GeneratorSection) and groups
        for key, nodes in (("from", starts), ("to", ends)):
            for j, node in enumerate(nodes):
                if key == "to" and node in own:
                    continue
                group = key == "to" and to_group
                yield from known(node, f"{path}.{key}" if len(nodes) == 1 else
                                 f"{path}.{key}[{j}]", names + groups if group else names,
                                 "a node or alias group" if group else "a node")
        for j, end in enumerate(ends):
            if end in starts:
                where = f"{path}.to" if len(ends) == 1 else f"{path}.to[{j}]"
                yield Problem(where, given(end), "a node other than from "
                              f"({show(starts[0] if len(starts) == 1 else list(starts))})")
        if isinstance(doc, LoopScenario) and getattr(w, "cls", 3) == 1:
            yield Problem(f"{path}.class", given(raws[i]["class"]),
                          "a class of service on a loop: 2 or 3")
        if isinstance(w, GeneratorSection):
            yield from _generator(w, raws[i], path)
        if isinstance(w, NetperfSection | IperfSection):
            yield from _application(w, raws[i], path, hosts, doc.run.duration)
        if isinstance(w, FioSection | DdSection):
            yield from block_job(w, raws[i], path, targets, own,
                                 {n.name: getattr(n, "namespaces", 1) for n in doc.nodes})
        if isinstance(w, SliceDdSection | FaultSection) and not list(
                _unknown(starts + ends, names)):
            yield from slice_job(w, raws[i], path, {n.name: n for n in doc.nodes})
        if not list(_unknown(starts + ends, names)):
            yield from reach(doc, w, raws[i], path)
        swept = (("send_size", len(w.send_size) * len(w.socket) > 1)
                 if isinstance(w, NetperfSection) else
                 ("window" if len(w.window) > 1 else "bandwidth",
                  len(w.window) * len(w.bandwidth) > 1)
                 if isinstance(w, IperfSection) else
                 ("iodepth", len(w.iodepth) > 1) if isinstance(w, FioSection) else ("", False))
        if swept[1]:
            if sweeping is not None:
                yield Problem(f"{path}.{swept[0]}", given(raws[i].get(swept[0])),
                              f"no sweep: workloads[{sweeping}] already sweeps")
            sweeping = i if sweeping is None else sweeping
    yield from unique(raws, "workloads", "name",
                      [w.name or f"workload{i}" for i, w in enumerate(doc.workloads)])


def _unknown(nodes: tuple[str, ...], names: list[str]) -> Iterator[str]:
    """The *nodes* that are not among *names*."""
    return (node for node in nodes if node not in names)


def _start(w: TransferSection, raw: dict[str, Any], path: str,
           duration: float) -> Iterator[Problem]:
    """A transfer starts within the run."""
    if w.start >= duration:
        yield Problem(f"{path}.start", given(raw["start"]),
                      f"a time before run.duration ({show(duration)} s)")


def _mover(w: TransferSection, raw: dict[str, Any], path: str,
           hosts: set[str]) -> Iterator[Problem]:
    """A transfer's mover is a host on its path; its buffer size comes with it."""
    if w.mover is not None and (w.mover not in w.path or w.mover not in hosts):
        yield Problem(f"{path}.mover", given(raw["mover"]),
                      f"a host on the path ({show(list(w.path))})")
    for name in ("mover_buffer", "mover_request"):
        if w.mover is None and getattr(w, name) is not None:
            yield Problem(f"{path}.{name}", given(raw[name]),
                          "only with mover: the host that stages the data")


def _generator(w: GeneratorSection, raw: dict[str, Any], path: str) -> Iterator[Problem]:
    for key in ("size", "interarrival"):
        table = getattr(w, key)
        if table.distribution == "uniform" and table.low > table.high:
            yield Problem(f"{path}.{key}.high", given(raw[key]["high"]),
                          f"{GeneratorSection.expects(key)}, not below low "
                          f"({show(raw[key]['low'])})")
    interarrival = w.interarrival
    mean = {"constant": lambda t: t.value, "exponential": lambda t: t.mean,
            "uniform": lambda t: (t.low + t.high) / 2}[interarrival.distribution](interarrival)
    if not mean > 0:
        yield Problem(f"{path}.interarrival", given(raw["interarrival"]),
                      GeneratorSection.expects("interarrival"))


def _application(w: NetperfSection | IperfSection, raw: dict[str, Any], path: str,
                 hosts: set[str], duration: float) -> Iterator[Problem]:
    """An application runs between hosts and ends before the run does."""
    for key, names in (("from", w.source), ("to", w.destination)):
        names = names if isinstance(names, tuple) else (names,)
        for j, name in enumerate(names):
            if name not in hosts:
                yield Problem(f"{path}.{key}" if len(names) == 1 else f"{path}.{key}[{j}]",
                              given(name), "a node with a host model (key 'host' in [[nodes]])")
    key, length = (("length", w.length) if isinstance(w, NetperfSection)
                   else ("duration", w.duration))
    later = (len(w.source) * len(w.destination) - 1 if isinstance(w, IperfSection) else 0)
    if isinstance(w, IperfSection) and w.stagger > 0 and later == 0:
        yield Problem(f"{path}.stagger", given(raw["stagger"]),
                      "a mesh of more than one client-server pair (or no stagger)")
    elif later and w.stagger > 0 and w.start + later * w.stagger + length >= duration:
        yield Problem(f"{path}.stagger", given(raw["stagger"]),
                      f"a test that ends before run.duration ({show(duration)} s); "
                      f"set start + {later} x stagger + {key} below it")
    elif w.start + length >= duration:
        yield Problem(f"{path}.{key}", given(raw.get(key, "10 s")),
                      f"a test that ends before run.duration ({show(duration)} s); "
                      f"set start + {key} below it")
    if isinstance(w, NetperfSection) and "rr_sizes" in raw:
        if w.test != "TCP_RR":
            yield Problem(f"{path}.rr_sizes", given(raw["rr_sizes"]),
                          "no rr_sizes outside test = 'TCP_RR'")
        elif w.rr_sizes and ("request" in raw or "response" in raw):
            yield Problem(f"{path}.rr_sizes", given(raw["rr_sizes"]),
                          "either rr_sizes = 'send-size' (request and response of each "
                          "send_size, netperf -r m,m) or request/response")
