"""The one place where a checked scenario file becomes the frozen configuration
objects of :mod:`fcsim.scenario.model` that the builders and the runner take."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from fcsim.apps.iperf import IperfOptions
from fcsim.apps.netperf import NetperfOptions
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Coding, Speed
from fcsim.fc2.login import ServiceParameters
from fcsim.scenario.model import (
    FioConfig,
    GeneratorConfig,
    IperfConfig,
    LinkConfig,
    LoopConfig,
    LoopPortConfig,
    NetperfConfig,
    NodeConfig,
    RunConfig,
    Scenario,
    StreamConfig,
    SwitchConfig,
    WorkloadConfig,
)
from fcsim.scenario.sections.apps import IperfSection, NetperfSection
from fcsim.scenario.sections.document import (
    EthernetScenario,
    FabricScenario,
    LoopScenario,
    MyrinetScenario,
    PointToPointScenario,
)
from fcsim.scenario.sections.ethernet import EthernetLinkSection
from fcsim.scenario.sections.links import LinkSection
from fcsim.scenario.sections.loop import LoopSection
from fcsim.scenario.sections.myrinet import MyrinetLinkSection
from fcsim.scenario.sections.nodes import LoopNodeSection, NodeKeys
from fcsim.scenario.sections.storage import DdSection, FioSection
from fcsim.scenario.sections.workloads import StreamSection
from fcsim.workload.distributions import Constant, Distribution, Exponential, Uniform
from fcsim.workload.fio import FioOptions


def to_scenario(doc: PointToPointScenario | FabricScenario | LoopScenario | EthernetScenario
                | MyrinetScenario, file: str) -> Scenario:
    """The configuration of the checked scenario file *doc*, read from *file*."""
    if isinstance(doc, EthernetScenario | MyrinetScenario):
        nodes = tuple(NodeConfig(n.name, host=n.host, background_load=n.background_load,
                                 mtu=n.mtu) for n in doc.nodes)
    else:
        nodes = tuple(_node(n) for n in doc.nodes)
    if isinstance(doc, LoopScenario):
        links: tuple[LinkConfig | LoopConfig, ...] = (_loop(doc.loop, [n.name for n in nodes]),)
    else:
        links = tuple(_link(link, i) for i, link in enumerate(doc.links))
    switches = (tuple(SwitchConfig(s.name, s.model, getattr(s, "domain", None),
                                   getattr(s, "pause", False)) for s in doc.switches)
                if isinstance(doc, FabricScenario | EthernetScenario | MyrinetScenario) else ())
    run = doc.run
    return Scenario(name=doc.name or Path(file).stem, topology=doc.topology,
                    run=RunConfig(run.duration, run.warmup, run.seed, run.repetitions, run.login),
                    nodes=nodes, links=links,
                    workloads=tuple(_workload(w, i) for i, w in enumerate(doc.workloads)),
                    source=file, description=doc.description, switches=switches)


def _node(n: NodeKeys) -> NodeConfig:
    params = ServiceParameters(n.bb_credit, n.rx_data_field, n.ee_credit, frozenset(n.classes),
                               n.concurrent_sequences, n.busy_retry, n.e_d_tov, n.rx_frame_time)
    port = (LoopPortConfig(n.al_pa, n.fairness, n.repeat_delay, n.login_credit)
            if isinstance(n, LoopNodeSection) else None)
    return NodeConfig(n.name, getattr(n, "port_id", None), params, port, n.host, n.ip_class,
                      n.background_load, n.target, n.max_burst)


def _speed(speed: Speed, coding: Coding | None) -> Speed:
    return speed if coding is None else replace(speed, coding=coding)


def _link(link: LinkSection | EthernetLinkSection | MyrinetLinkSection,
          index: int) -> LinkConfig:
    return LinkConfig(link.name or f"link{index}", link.ends,
                      _speed(link.speed, getattr(link, "coding", None)),
                      Cable(link.length, link.propagation),
                      getattr(link, "bit_error_rate", 0.0),
                      getattr(link, "cost", None), getattr(link, "vlan", None) or ())


def _loop(loop: LoopSection, names: list[str]) -> LoopConfig:
    return LoopConfig(loop.name, loop.order or tuple(names), _speed(loop.speed, loop.coding),
                      Cable(loop.hop_length, loop.propagation), loop.bit_error_rate,
                      loop.repeat_delay, tuple(loop.lip_at), loop.position_map)


def _distribution(table: Any) -> Distribution:
    if table.distribution == "constant":
        return Constant(table.value)
    if table.distribution == "exponential":
        return Exponential(table.mean)
    return Uniform(table.low, table.high)


def _workload(w: Any, index: int) -> WorkloadConfig:
    name = w.name or f"workload{index}"
    if isinstance(w, NetperfSection):
        options = NetperfOptions(w.test, w.send_size[0], w.socket[0], w.socket[0], w.nodelay,
                                 w.length, w.recv_size, w.request, w.response, w.window_scaling)
        return NetperfConfig(name, w.source, w.destination, options, w.send_size, w.socket,
                             w.start, w.rr_sizes)
    if isinstance(w, FioSection | DdSection):
        dd = isinstance(w, DdSection)
        options = (FioOptions(w.direction, w.bs, count=w.count) if dd else FioOptions(
            w.rw, w.bs, w.iodepth, w.numjobs, w.rwmixread, w.offset, w.size, w.count))
        striped = w.destination if len(w.destination) > 1 else ()
        return FioConfig(name, w.source, w.destination[0], options, w.cls, w.timeout, w.start,
                         dd, striped, w.stripe)
    if isinstance(w, IperfSection):
        options = IperfOptions(w.protocol, w.parallel, w.window, w.length, w.bandwidth,
                               w.duration, w.nodelay, w.interval)
        mesh = len(w.source) * len(w.destination) > 1
        return IperfConfig(name, w.source[0], w.destination[0], options, w.start,
                           w.source if mesh else (), w.destination if mesh else ())
    common = dict(name=name, source=w.source, destination=w.destination, cls=w.cls,
                  max_data_field=w.max_payload, start=w.start, count=w.count)
    if isinstance(w, StreamSection):
        return StreamConfig(**common, size=w.size, outstanding=w.outstanding)
    return GeneratorConfig(**common, size=_distribution(w.size),
                           interarrival=_distribution(w.interarrival))
