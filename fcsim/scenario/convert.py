"""The one place where a checked scenario file becomes the frozen configuration
objects of :mod:`fcsim.scenario.model` that the builders and the runner take."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from fcsim.apps.iperf import IperfOptions
from fcsim.apps.netperf import NetperfOptions
from fcsim.apps.transfer import TransferOptions
from fcsim.ethernet.config import EthernetLinkSection
from fcsim.fabric.checks import member_ports
from fcsim.fabric.cures import (
    NO_CURES,
    CreditLossRecovery,
    Cures,
    Fencing,
    IngressLimit,
    Isolation,
)
from fcsim.fabric.fspf import DEFAULT_TIMERS, FspfTimers
from fcsim.fabric.long_distance import long_distance_buffers
from fcsim.fabric.notifications import FpinPolicy
from fcsim.faults.config import BY_PROTOCOL, DEV_LOSS_TMO, FaultConfig
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Coding, Speed, with_arb_ff_fill, with_fc_fec
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.receive_drain import DrainSpec
from fcsim.fc3.ports import ports_of
from fcsim.fc4.throttle import ThrottlePolicy
from fcsim.host.block import striped_capacity
from fcsim.loop.config import LoopConfig, LoopPortConfig, LoopSection
from fcsim.myrinet.config import MyrinetLinkSection
from fcsim.scenario.internetwork import members, networks_of, peers, port_name
from fcsim.scenario.model import (
    AliasGroupConfig,
    LinkConfig,
    NodeConfig,
    RunConfig,
    Scenario,
    SwitchConfig,
)
from fcsim.scenario.sections.apps import IperfSection, NetperfSection
from fcsim.scenario.sections.document import (
    EthernetScenario,
    FabricScenario,
    InternetworkScenario,
    LoopScenario,
    MyrinetScenario,
    PointToPointScenario,
)
from fcsim.scenario.sections.links import LinkSection
from fcsim.scenario.sections.nodes import LoopNodeSection, NodeKeys
from fcsim.scenario.sections.transfer import TransferSection
from fcsim.scenario.sections.workloads import StreamSection
from fcsim.scenario.workload_model import (
    GeneratorConfig,
    IperfConfig,
    NetperfConfig,
    StreamConfig,
    TransferConfig,
    WorkloadConfig,
)
from fcsim.stats.steady import SteadyState
from fcsim.storage.config import (
    DdSection,
    FioConfig,
    FioSection,
    MultipathConfig,
    NvmeOptions,
)
from fcsim.storage.local import BlockConfig, ChannelConfig, LocalTarget
from fcsim.trapeze.config import BlockServerConfig, FaultSection, SliceDdSection, SliceJobConfig
from fcsim.workload.distributions import Constant, Distribution, Exponential, Uniform
from fcsim.workload.fio import FioOptions

Document = (PointToPointScenario | FabricScenario | LoopScenario | EthernetScenario
            | MyrinetScenario | InternetworkScenario)


def to_scenario(doc: Document, file: str) -> Scenario:
    """The configuration of the checked scenario file *doc*, read from *file*."""
    run = doc.run
    steady = run.steady_state
    config = RunConfig(run.duration, run.warmup, run.seed, run.repetitions, run.login,
                       None if steady is None else SteadyState(
                           steady.confidence, steady.precision, steady.batch, steady.batches,
                           steady.views, steady.cycles or 0))
    workloads = tuple(_workload(w, i) for i, w in enumerate(doc.workloads))
    name = doc.name or Path(file).stem
    if isinstance(doc, InternetworkScenario):
        return Scenario(name=name, topology=doc.topology, run=config,
                        nodes=tuple(_node(n) for n in doc.nodes), links=(),
                        workloads=workloads, source=file, description=doc.description,
                        networks=_networks(doc, config, workloads))
    if isinstance(doc, EthernetScenario | MyrinetScenario):
        nodes = tuple(_lan_node(n) for n in doc.nodes)
    else:
        nodes = tuple(_node(n) for n in doc.nodes)
    if isinstance(doc, LoopScenario):
        links: tuple[LinkConfig | LoopConfig, ...] = (_loop(doc.loop, [n.name for n in nodes]),)
    else:
        links = tuple(_link(link, i) for i, link in enumerate(doc.links))
    switches = (tuple(SwitchConfig(s.name, s.model, getattr(s, "domain", None),
                                   getattr(s, "pause", False), getattr(s, "routing", None),
                                   getattr(s, "bb_sc_n", 0),
                                   s.drop_latency if getattr(s, "in_order_delivery", False)
                                   else None)
                      for s in doc.switches)
                if isinstance(doc, FabricScenario | EthernetScenario | MyrinetScenario) else ())
    groups = tuple(AliasGroupConfig(g.name, g.type, g.members, g.registration,
                                    getattr(g, "exchanges_per_member", 1))
                   for g in getattr(doc, "alias_groups", ()))
    return Scenario(name=name, topology=doc.topology, run=config, nodes=nodes, links=links,
                    workloads=workloads, source=file, description=doc.description,
                    switches=switches, alias_groups=groups, faults=_faults(doc, links),
                    zones=_zones(doc), fspf=_fspf(doc), cures=_cures(doc),
                    zone_enforcement=getattr(getattr(doc, "zoning", None), "enforcement",
                                             "soft"),
                    zone_priorities=tuple((z.name, z.priority)
                                          for z in getattr(doc, "zones", ())
                                          if z.priority != "medium"),
                    fpin=_fpin(doc), throttle=_throttle(doc))


def _throttle(doc: Document) -> ThrottlePolicy | None:
    """How *doc*'s FCP initiators throttle (None: [fpin] throttle is off)."""
    section = getattr(doc, "fpin", None)
    if section is None or not section.throttle:
        return None
    return ThrottlePolicy(section.throttle_recovery)


def _fpin(doc: Document) -> FpinPolicy | None:
    """The notification rules of *doc*'s [fpin] (None without the table)."""
    section = getattr(doc, "fpin", None)
    if section is None:
        return None
    return FpinPolicy(section.link_integrity, section.link_integrity_window,
                      section.link_integrity_threshold, section.congestion,
                      section.congestion_window, section.congestion_warning,
                      section.congestion_alarm, section.signals, section.signal_period,
                      section.delivery, section.delivery_window)


def _fspf(doc: Document) -> FspfTimers:
    """The FSPF timers of *doc* (FC-SW's defaults without an [fspf] table)."""
    section = getattr(doc, "fspf", None)
    if section is None:
        return DEFAULT_TIMERS
    return FspfTimers(section.min_ls_interval, section.min_ls_arrival, section.rxmt_interval,
                      section.spf_hold_time)


def _cures(doc: Document) -> Cures:
    """The congestion cures of *doc*'s switches (none without a [congestion] table)."""
    section = getattr(doc, "congestion", None)
    if section is None:
        return NO_CURES
    loss, fence, limit = section.credit_loss_recovery, section.fencing, section.ingress_limit
    iso = section.isolation
    return Cures(
        None if loss is None else CreditLossRecovery(loss.f_port, loss.e_port),
        None if fence is None or (fence.txwait is None and fence.credit_zero is None)
        else Fencing(fence.window, fence.txwait, fence.credit_zero),
        None if limit is None else IngressLimit(limit.window, limit.txwait, limit.reduce,
                                                limit.recover, limit.floor),
        None if iso is None else Isolation(iso.rising_threshold, iso.falling_threshold,
                                           iso.window, iso.recover))


def _zones(doc: Document) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The zones of *doc*, each member named by its N_Port's name."""
    ports = list(ports_of(doc.nodes))
    return tuple((z.name, tuple(member_ports(z.members, ports)))  # type: ignore[arg-type]
                 for z in getattr(doc, "zones", ()))


def _faults(doc: Document, links: tuple[LinkConfig | LoopConfig, ...]) -> tuple[FaultConfig, ...]:
    """The fault schedule of *doc* in time order (equal times in file order), a
    link given by its ends named by its name."""
    by_ends = {frozenset(link.ends): link.name for link in links if isinstance(link, LinkConfig)}
    return tuple(FaultConfig(f.at, f.kind, by_ends[frozenset(f.ends)] if f.ends else f.link,
                             f.port, f.switch, f.duration, f.bit_error_rate, f.characters,
                             f.every, f.mean_interval, f.until, f.sender)
                 for f in sorted(getattr(doc, "faults", ()), key=lambda f: f.at))


def _networks(doc: InternetworkScenario, run: RunConfig,
              workloads: tuple[WorkloadConfig, ...]) -> tuple[Scenario, ...]:
    """Each network of *doc* as a scenario of that one network, its nodes' ports
    named as :func:`fcsim.scenario.internetwork.port_name` says, with the port
    pairs *workloads* exchange over it as its peers."""
    on = networks_of(doc)
    crossing = peers(doc, workloads)
    nodes = {n.name: _node(n) for n in doc.nodes}
    out = []
    for network in doc.networks:
        def rename(end: str, network: str = network.name) -> str:
            return end if ":" in end else port_name(
                end, [doc.networks[k].name for k in on[end]], network)
        chosen = tuple(replace(nodes[name], name=rename(name)) for name in members(network))
        if network.topology == "loop":
            order = tuple(map(rename, network.loop.order))
            links: tuple[LinkConfig | LoopConfig, ...] = (
                _loop(network.loop.model_copy(update={"order": order}), list(order)),)
        else:
            links = tuple(replace(_link(link, i), name=link.name or f"{network.name}-link{i}",
                                  ends=tuple(map(rename, link.ends)))
                          for i, link in enumerate(network.links))
        switches = tuple(SwitchConfig(s.name, s.model, getattr(s, "domain", None),
                                      getattr(s, "pause", False), getattr(s, "routing", None),
                                      getattr(s, "bb_sc_n", 0),
                                      s.drop_latency if getattr(s, "in_order_delivery", False)
                                      else None)
                         for s in getattr(network, "switches", ()))
        out.append(Scenario(name=network.name, topology=network.topology, run=run,
                            nodes=chosen, links=links, workloads=(), switches=switches,
                            peers=tuple(sorted(crossing[network.name]))))
    return tuple(out)


def _lan_node(n: Any) -> NodeConfig:
    """A host of an Ethernet or Myrinet network: its NIC's MTU, and on Myrinet
    its disks and the block I/O service it runs."""
    channels = tuple(channels_of(n)) if hasattr(n, "channels") else ()
    block = getattr(n, "block", None)
    served = getattr(n, "block_server", None)
    server = None
    if served is not None:
        models = {name: m for c in channels for name, m in zip(c.disk_names, c.disks,
                                                                strict=True)}
        sizes = [models[d].capacity for d in served.disks]
        server = BlockServerConfig(served.disks, served.stripe,
                                   striped_capacity(sizes, served.stripe), served.cache)
    return NodeConfig(n.name, host=n.host, background_load=n.background_load, mtu=n.mtu,
                      tcp_timestamps=n.tcp_timestamps, vlan=getattr(n, "vlan", None),
                      channels=channels, block=None if block is None else BlockConfig(
                          block.queue_depth, block.max_request, block.merge, block.order),
                      block_server=server)


def _node(n: NodeKeys) -> NodeConfig:
    frame_time = _time(n.rx_frame_time)
    plain = isinstance(frame_time, float)  # a constant rx_frame_time alone: no DrainSpec
    delay = None if n.rx_delay is None else _time(n.rx_delay)
    drain = DrainSpec(frame_time, (n.rx_drain_rate or 0.0) / 8, delay or 0.0, n.rx_stuck_at,
                      n.rx_stuck_for or 0.0)
    params = ServiceParameters(n.bb_credit, n.rx_data_field, n.ee_credit, frozenset(n.classes),
                               n.concurrent_sequences, n.busy_retry, n.e_d_tov,
                               frame_time if plain else frame_time.mean,
                               None if plain and drain == DrainSpec(frame_time) else drain,
                               getattr(n, "bb_sc_n", 0))
    port = (LoopPortConfig(n.al_pa, n.fairness, n.repeat_delay, n.login_credit)
            if isinstance(n, LoopNodeSection) else None)
    channels = tuple(channels_of(n))
    target = n.target
    if n.target_disks:
        models = {name: m for c in channels for name, m in zip(c.disk_names, c.disks,
                                                                strict=True)}
        sizes = [models[d].capacity for d in n.target_disks]
        target = LocalTarget(f"disks {', '.join(n.target_disks)} of {n.name}",
                             n.target_disks, n.target_stripe,
                             striped_capacity(sizes, n.target_stripe), n.target_queue_depth)
    block = (BlockConfig(n.block.queue_depth, n.block.max_request, n.block.merge,
                         n.block.order) if n.block is not None else None)
    return NodeConfig(n.name, getattr(n, "port_id", None), params, port, n.host, n.ip_class,
                      n.background_load, target, n.max_burst, getattr(n, "mtu", 1500),
                      getattr(n, "routes", None) or (), channels, block, n.tcp_timestamps,
                      getattr(n, "vlan", None), getattr(n, "ports", 1),
                      getattr(n, "buses", None) or (),
                      link_down=getattr(n, "link_down", BY_PROTOCOL),
                      dev_loss_tmo=getattr(n, "dev_loss_tmo", DEV_LOSS_TMO),
                      fast_io_fail_tmo=getattr(n, "fast_io_fail_tmo", None),
                      virtual_ports=getattr(n, "virtual_ports", 0),
                      multipath=_multipath(n),
                      non_optimized_ports=getattr(n, "non_optimized_ports", None) or (),
                      ana_states=getattr(n, "ana_states", None) or (),
                      namespaces=n.namespaces, nvme_sler=n.nvme_sler,
                      nvme_reconnect_delay=n.nvme_reconnect_delay,
                      nvme_ctrl_loss_tmo=n.nvme_ctrl_loss_tmo)


def _multipath(n: NodeKeys) -> MultipathConfig | None:
    """The node's multipath layer, with its dev_loss_tmo (None: none)."""
    m = getattr(n, "multipath", None)
    if m is None:
        return None
    return MultipathConfig(m.path_grouping_policy, m.path_selector, m.rr_min_io_rq,
                           m.failback, m.no_path_retry, m.polling_interval,
                           m.fast_io_fail_tmo, m.marginal_pathgroups,
                           n.dev_loss_tmo, m.iopolicy,  # type: ignore[attr-defined]
                           m.max_polling_interval, m.checker_timeout, m.checker_tick)


def channels_of(n: NodeKeys) -> list[ChannelConfig]:
    """The channels of node section *n*, each disk at its address: the given
    ones, or 0, 1, 2, ... skipping the host adapter's SCSI ID."""
    out = []
    for c in n.channels:
        ids = c.ids
        if ids is None:
            free = [i for i in range(c.model.ids)
                    if c.model.kind == "ata" or i != c.adapter_id]
            ids = tuple(free[:len(c.disks)])
        out.append(ChannelConfig(c.name, c.model, c.disks, ids, c.adapter_id))
    return out


def _speed(speed: Speed, coding: Coding | None) -> Speed:
    return speed if coding is None else replace(speed, coding=coding)


def _link(link: LinkSection | EthernetLinkSection | MyrinetLinkSection,
          index: int) -> LinkConfig:
    speed = _speed(link.speed, getattr(link, "coding", None))
    fec = getattr(link, "fec", None)
    if fec is not None and all(fec):  # both ends enable FC-FEC: negotiated on
        speed = with_fc_fec(speed)
    arb_ff = getattr(link, "arb_ff_fill", None)
    if arb_ff is not None and all(arb_ff):  # both ends fill with ARB(FF)
        speed = with_arb_ff_fill(speed)
    buffers, distance = getattr(link, "bb_credit", None), getattr(link, "long_distance", None)
    if distance is not None:
        buffers = long_distance_buffers(distance, speed)
    return LinkConfig(link.name or f"link{index}", link.ends, speed,
                      Cable(link.length, link.propagation), getattr(link, "bit_error_rate", 0.0),
                      getattr(link, "cost", None), getattr(link, "vlan", None) or (),
                      getattr(link, "trunk", None) or (), getattr(link, "native_vlan", None),
                      buffers, _error_rates(link), getattr(link, "virtual_channels", None),
                      getattr(link, "vc_credit", None),
                      getattr(link, "vc_assignment", "destination"),
                      getattr(link, "trunk_group", None))


def _error_rates(link: LinkSection | EthernetLinkSection | MyrinetLinkSection
                 ) -> tuple[tuple[str, float], ...]:
    """Each end's bit error rate from `bit_error_rates` (empty without it)."""
    rates = getattr(link, "bit_error_rates", None)
    return () if rates is None else tuple(zip(link.ends, rates, strict=True))


def _loop(loop: LoopSection, names: list[str]) -> LoopConfig:
    hops = tuple(Cable(length, loop.propagation) for length in loop.hop_lengths or ())
    return LoopConfig(loop.name, loop.order or tuple(names), _speed(loop.speed, loop.coding),
                      Cable(loop.hop_length, loop.propagation), loop.bit_error_rate,
                      loop.repeat_delay, tuple(loop.lip_at), loop.position_map, hops)


def _distribution(table: Any) -> Distribution:
    if table.distribution == "constant":
        return Constant(table.value)
    if table.distribution == "exponential":
        return Exponential(table.mean)
    return Uniform(table.low, table.high)


def _time(table: Any) -> float | Distribution:
    """A plain time (a constant table), s, or its distribution."""
    return float(table.value) if table.distribution == "constant" else _distribution(table)


def _workload(w: Any, index: int) -> WorkloadConfig:
    name = w.name or f"workload{index}"
    if isinstance(w, SliceDdSection):
        return SliceJobConfig(name, w.source, w.destination, w.stripe,
                              FioOptions(w.direction, w.bs, count=w.count), "dd", w.start,
                              w.readahead, w.cluster, w.write_behind)
    if isinstance(w, FaultSection):
        return SliceJobConfig(name, w.source, w.destination, w.stripe,
                              FioOptions("randread", w.page, offset=0, size=w.region,
                                         count=w.count), "fault", w.start)
    if isinstance(w, NetperfSection):
        options = NetperfOptions(w.test, w.send_size[0], w.socket[0], w.socket[0], w.nodelay,
                                 w.length, w.recv_size, w.request, w.response, w.window_scaling)
        return NetperfConfig(name, w.source, w.destination, options, w.send_size, w.socket,
                             w.start, w.rr_sizes)
    if isinstance(w, FioSection | DdSection):
        dd = isinstance(w, DdSection)
        options = (FioOptions(w.direction, w.bs, offset=w.offset, count=w.count) if dd
                   else FioOptions(w.rw, w.bs, w.iodepth[0], w.numjobs, w.rwmixread, w.offset,
                                   w.size, w.count))
        striped = w.destination if len(w.destination) > 1 else ()
        nvme = (NvmeOptions(w.queues or w.numjobs, w.queue_size, w.first_burst)
                if isinstance(w, FioSection) and w.protocol == "nvme" else None)
        unit = None
        if isinstance(w, FioSection):
            unit = w.namespace if nvme is not None else w.lun
        return FioConfig(name, w.source, w.destination[0], options, w.cls, w.timeout, w.start,
                         dd, striped, w.stripe, nvme, unit,
                         w.iodepth if not dd and len(w.iodepth) > 1 else ())
    if isinstance(w, TransferSection):
        mover_buffer = {} if w.mover_buffer is None else {"mover_buffer": w.mover_buffer}
        return TransferConfig(name, w.path, TransferOptions(
            w.size, w.block, w.socket, w.buffers, w.nodelay, w.read_disk, w.write_disk,
            w.mover, mover_request=w.mover_request, **mover_buffer), w.start)
    if isinstance(w, IperfSection):
        options = IperfOptions(w.protocol, w.parallel, w.window[0], w.length, w.bandwidth[0],
                               w.duration, w.nodelay, w.interval)
        mesh = len(w.source) * len(w.destination) > 1
        return IperfConfig(name, w.source[0], w.destination[0], options, w.start,
                           w.source if mesh else (), w.destination if mesh else (),
                           w.window, w.bandwidth, w.stagger)
    common = dict(name=name, source=w.source, destination=w.destination, cls=w.cls,
                  max_data_field=w.max_payload, start=w.start, count=w.count)
    if isinstance(w, StreamSection):
        return StreamConfig(**common, size=w.size, outstanding=w.outstanding,
                            stripe_ports=w.stripe_ports, stripe_unit=w.stripe_unit,
                            exchanges=w.exchanges)
    return GeneratorConfig(**common, size=_distribution(w.size),
                           interarrival=_distribution(w.interarrival))
