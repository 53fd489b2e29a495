"""Shared helpers: build point-to-point, fabric and loop scenarios in code, a
Trapeze pair and a Slice network on Myrinet, and check that a scenario file
is refused in one precise line."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fcsim.build import build_hosts
from fcsim.engine.simulation import Simulation
from fcsim.fabric.switch_model import SwitchModel, load_switch_model
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Speed, speed_named
from fcsim.fc2.login import ServiceParameters
from fcsim.host.host import Host
from fcsim.host.host_model import load_host_model
from fcsim.myrinet.build import build_myrinet
from fcsim.myrinet.switch import load_myrinet_switch_model
from fcsim.scenario.loader import ScenarioError, load_scenario
from fcsim.scenario.model import (
    AliasGroupConfig,
    LinkConfig,
    LoopConfig,
    LoopPortConfig,
    NodeConfig,
    RunConfig,
    Scenario,
    SwitchConfig,
)
from fcsim.scenario.workload_model import WorkloadConfig
from fcsim.storage.build import Storage
from fcsim.storage.channel_model import load_channel_model
from fcsim.storage.device_model import load_disk_model
from fcsim.storage.local import ChannelConfig
from fcsim.topology.point_to_point import build_point_to_point
from fcsim.trapeze.build import SliceStorage
from fcsim.trapeze.card import TrapezeCard
from fcsim.trapeze.config import BlockServerConfig, SliceJobConfig
from fcsim.trapeze.netrpc import NetRpc
from fcsim.workload.fio import FioOptions


def p2p(
    workloads: tuple[WorkloadConfig, ...],
    duration: float,
    warmup: float = 0.0,
    speed: Speed | str = "1GFC",
    length: float = 1.0,
    a: ServiceParameters | None = None,
    b: ServiceParameters | None = None,
    bit_error_rate: float = 0.0,
    seed: int = 1,
    repetitions: int = 1,
) -> Scenario:
    """A point-to-point scenario between nodes "a" and "b"."""
    speed = speed_named(speed) if isinstance(speed, str) else speed
    return Scenario(
        name="test",
        topology="point-to-point",
        run=RunConfig(duration, warmup, seed, repetitions),
        nodes=(NodeConfig("a", params=a or ServiceParameters()),
               NodeConfig("b", params=b or ServiceParameters())),
        links=(LinkConfig("link", ("a", "b"), speed, Cable(length), bit_error_rate),),
        workloads=workloads,
    )


def fabric(
    nodes: dict[str, str],
    workloads: tuple[WorkloadConfig, ...],
    duration: float,
    warmup: float = 0.0,
    switches: dict[str, SwitchModel | str] | None = None,
    isls: tuple[tuple[str, str], ...] = (),
    speed: Speed | str = "1GFC",
    length: float = 10.0,
    params: ServiceParameters | None = None,
    seed: int = 1,
    login: bool = True,
    ports: dict[str, int] | None = None,
    alias_groups: tuple[AliasGroupConfig, ...] = (),
    speeds: dict[str, Speed | str] | None = None,
    bit_error_rate: float = 0.0,
    isl_length: float | None = None,
    isl_bb_credit: int | None = None,
) -> Scenario:
    """A fabric scenario: *nodes* maps N_Port name -> "switch:port"; *ports* gives
    nodes several N_Ports (their others, NAME.1 ..., are in *nodes* too);
    *speeds* sets the speed of some N_Ports' links; ISLs are *isl_length* m
    long (default: *length*), their switch ports with *isl_bb_credit* buffers
    (default: the switch model's)."""
    speed = speed_named(speed) if isinstance(speed, str) else speed
    switches = switches or {"sw": "generic-nonblocking"}
    speeds = {n: speed_named(v) if isinstance(v, str) else v for n, v in (speeds or {}).items()}
    links = [LinkConfig(f"l-{name}", (name, end), speeds.get(name, speed), Cable(length),
                        bit_error_rate) for name, end in nodes.items()]
    ports = ports or {}
    extra = {f"{n}.{i}" for n, k in ports.items() for i in range(1, k)}
    isl_cable = Cable(length if isl_length is None else isl_length)
    links += [LinkConfig(f"isl{i}", (a, b), speed, isl_cable, bb_credit=isl_bb_credit)
              for i, (a, b) in enumerate(isls)]
    return Scenario(
        name="test-fabric", topology="fabric",
        run=RunConfig(duration, warmup, seed, 1, login=login),
        nodes=tuple(NodeConfig(n, params=params or ServiceParameters(), ports=ports.get(n, 1))
                    for n in nodes if n not in extra),
        links=tuple(links), workloads=workloads, alias_groups=alias_groups,
        switches=tuple(SwitchConfig(name, load_switch_model(m) if isinstance(m, str) else m)
                       for name, m in switches.items()),
    )


def loop(
    n: int,
    workloads: tuple[WorkloadConfig, ...],
    duration: float,
    warmup: float = 0.0,
    speed: Speed | str = "1GFC",
    hop_length: float = 1.0,
    repeat_delay: int = 12,
    ports: dict[str, LoopPortConfig] | None = None,
    params: dict[str, ServiceParameters] | None = None,
    lip_at: tuple[float, ...] = (),
    bit_error_rate: float = 0.0,
    seed: int = 1,
    hop_lengths: tuple[float, ...] = (),
) -> Scenario:
    """An arbitrated loop of nodes "p0" .. "p<n-1>" in ring order; *ports* and
    *params* set a node's loop-port and login values by name; *hop_lengths*,
    if given, each hop's cable (m) instead of *hop_length*."""
    speed = speed_named(speed) if isinstance(speed, str) else speed
    names = [f"p{i}" for i in range(n)]
    ports, params = ports or {}, params or {}
    return Scenario(
        name="test-loop", topology="loop", run=RunConfig(duration, warmup, seed, 1),
        nodes=tuple(NodeConfig(name, params=params.get(name, ServiceParameters()),
                               loop=ports.get(name, LoopPortConfig())) for name in names),
        links=(LoopConfig("loop", tuple(names), speed, Cable(hop_length), bit_error_rate,
                          repeat_delay, lip_at,
                          cables=tuple(Cable(length) for length in hop_lengths)),),
        workloads=workloads,
    )


def assert_refused(tmp_path: Path, base: str, edit: tuple[str, str], key: str, given: str,
                   allowed: str) -> None:
    """*base* with *edit* (old, new; old must be in it) is refused: the first line
    of its error names the file, the key path *key*, *given* and what is
    *allowed* (a part of the text)."""
    old, new = edit
    assert old in base, old
    path = tmp_path / "case.toml"
    path.write_text(base.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    first = str(info.value).splitlines()[0]
    assert first.startswith(f"{path}: {key}: {given}; ") and allowed in first, first


# -- Trapeze and Slice on Myrinet ----------------------------------------------------

IDEAL_HOST = load_host_model("ideal")
CLIENT = dataclasses.replace(IDEAL_HOST, name="client", bus="PCI-32/33", bus_bandwidth=100e6,
                             bus_overhead=1e-6, adapter_frame_time=2e-6, interrupt=8e-6,
                             message_send=4e-6, message_receive=3e-6, syscall=5e-6,
                             context_switch=7e-6, page_size=8192, page_remap=4e-6,
                             remap_reads=True, copy_per_byte=1.5e-8)
SERVER = dataclasses.replace(IDEAL_HOST, name="server", bus="PCI-32/33", bus_bandwidth=120e6,
                             bus_overhead=2e-6, adapter_frame_time=3e-6, interrupt=6e-6,
                             message_send=5e-6, message_receive=2e-6)
"""A Slice client and server with costs of their own, for closed forms."""


def trapeze_pair(min_fragment: int = 1408, cut_through: bool = True,
                 receive_min: int | None = None) -> tuple[Simulation, NetRpc, NetRpc]:
    """A client and a server host cabled straight, each with Trapeze and NetRPC
    (the cards' smallest transfers and cut-through delivery as given)."""
    sc = Scenario("t", "myrinet", RunConfig(1.0),
                  (NodeConfig("c", host=CLIENT, mtu=9000),
                   NodeConfig("s", host=SERVER, mtu=9000)),
                  (LinkConfig("l0", ("c", "s"), speed_named("Myrinet-1280"), Cable(3.0)),), ())
    sim = Simulation(1)
    net = build_myrinet(sim, sc)
    hosts = build_hosts(sim, sc, net)
    rpc = []
    for name in ("c", "s"):
        interface = hosts[name].interface
        card = TrapezeCard(sim, interface.nic, interface.bus, interface.card_delay,
                           net.address_of, min_fragment, cut_through, receive_min)
        rpc.append(NetRpc(sim, hosts[name], card))
    return sim, rpc[0], rpc[1]


def slice_network(direction: str, servers: int = 1, readahead: int = 512 * 1024,
                  count: int = 100000) -> tuple[Simulation, SliceStorage, dict[str, Host]]:
    """A client and *servers* block servers (one IBM Deskstar each) through an
    M2F-SW8, and a dd of 64 KiB calls of *direction*; built, not run."""
    disk = ChannelConfig("ide0", load_channel_model("ultra-ata-33"),
                         (load_disk_model("ibm-deskstar-22gxp"),), (0,))
    names = [f"s{k}" for k in range(1, servers + 1)]
    nodes = (NodeConfig("c", host=CLIENT, mtu=9000),) + tuple(
        NodeConfig(n, host=SERVER, mtu=9000, channels=(disk,),
                   block_server=BlockServerConfig(("ide0.0",), None, 22 * 10**9))
        for n in names)
    links = tuple(LinkConfig(f"l{i}", (n.name, f"sw:{i}"), speed_named("Myrinet-1280"),
                             Cable(3.0))
                  for i, n in enumerate(nodes))
    job = SliceJobConfig("dd", "c", tuple(names), 32768 if servers > 1 else None,
                         FioOptions(direction, 65536, count=count), readahead=readahead)
    sc = Scenario("t", "myrinet", RunConfig(1.0), nodes, links, (job,),
                  switches=(SwitchConfig("sw", load_myrinet_switch_model("m2f-sw8")),))
    sim = Simulation(1)
    net = build_myrinet(sim, sc)
    hosts = build_hosts(sim, sc, net)
    storage = Storage(sim, sc, net, hosts)
    return sim, SliceStorage(sim, sc, net, hosts, storage.local), hosts


def frames_sent(sequences: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(exchange, SEQ_ID, SEQ_CNT) of each frame a sends, in wire order, for
    Class 3 sequences queued at once as (exchange index, payload bytes)."""
    scenario = p2p((), duration=0.01)
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    a, b = net.nodes["a"], net.nodes["b"]
    sent: list[tuple[int, int, int]] = []
    next_frame = a.next_frame

    def recording(credit: bool, d_id: int | None = None) -> object:
        frame = next_frame(credit, d_id)
        if frame is not None and frame.sequence is not None:
            sent.append((frame.ox_id, frame.seq_id, frame.seq_cnt))
        return frame

    a.next_frame = recording  # type: ignore[method-assign]

    def queue() -> None:
        exchanges: dict[int, object] = {}
        for index, size in sequences:
            if index not in exchanges:
                exchanges[index] = a.open_exchange(b.port_id)
            a.send(exchanges[index], size, 3)  # type: ignore[arg-type]

    a.when_ready(queue)
    sim.run(0.01)
    return sent

