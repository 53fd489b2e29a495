"""The Slice block I/O service of a Myrinet scenario: Trapeze firmware and a
NetRPC endpoint on every host that serves or runs a job, a block server on
every node with ``[nodes.block_server]`` (its disks behind its request
queues, a memory cache), and each job's file over the servers (the client's
request queue per server, its file cache or its mapping) driven as fio and
dd drive a device (:mod:`fcsim.workload.fio`). :class:`SliceStorage` reads
the nodes and workloads of a scenario through :class:`SliceScenario`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.host.block import Volume, striped_capacity
from fcsim.host.cpu import INTERRUPT
from fcsim.host.host import Host
from fcsim.host.request_queue import RequestQueue
from fcsim.storage.local import MAXPHYS, BlockConfig, LocalDisks
from fcsim.topology.network import Network
from fcsim.trapeze.blockio import BlockServer, NetBlockDevice, PageCache
from fcsim.trapeze.card import TrapezeCard
from fcsim.trapeze.client import MappedFile, SliceFile
from fcsim.trapeze.config import BlockServerConfig, SliceJobConfig
from fcsim.trapeze.netrpc import NetRpc
from fcsim.workload.fio import Fio


class SliceNode(Protocol):
    """What the Slice builder reads of a node: its name, its block layer (None:
    the defaults) and its block server (None: it serves nothing)."""

    @property
    def name(self) -> str: ...
    @property
    def block(self) -> BlockConfig | None: ...
    @property
    def block_server(self) -> BlockServerConfig | None: ...


class SliceScenario(Protocol):
    """What the Slice builder reads of a scenario: its nodes, and its workloads,
    of which it builds the :class:`~fcsim.trapeze.config.SliceJobConfig` ones."""

    @property
    def nodes(self) -> Sequence[SliceNode]: ...
    @property
    def workloads(self) -> Sequence[object]: ...


class SliceStorage:
    """The servers, endpoints, request queues and jobs of *scenario* on the built
    *net*, with its *hosts* and the disks of its nodes' channels (*local*, by
    node: :class:`fcsim.storage.build.Storage` makes them)."""

    def __init__(self, sim: Simulation, scenario: SliceScenario, net: Network,
                 hosts: dict[str, Host], local: dict[str, LocalDisks]) -> None:
        self.sim = sim
        nodes = {n.name: n for n in scenario.nodes}
        configs = [w for w in scenario.workloads if isinstance(w, SliceJobConfig)]
        used = {n.name for n in scenario.nodes if n.block_server} | {j.source for j in configs}
        self.rpc: dict[str, NetRpc] = {}
        self.cards: dict[str, TrapezeCard] = {}
        for node in scenario.nodes:  # in the scenario's order
            if node.name in used:
                host = hosts[node.name]
                interface: Any = host.interface
                card = self.cards[node.name] = TrapezeCard(
                    sim, interface.nic, interface.bus, interface.card_delay, net.address_of)
                self.rpc[node.name] = NetRpc(sim, host, card)
        self.queues: dict[str, dict[str, RequestQueue]] = {}
        self.servers: dict[str, BlockServer] = {}
        for node in scenario.nodes:
            config = node.block_server
            if config is not None:
                queues = tuple(self._disk_queue(node, local[node.name], hosts[node.name], d)
                               for d in config.disks)
                cache = PageCache(config.cache, hosts[node.name].model.page_size)
                self.servers[node.name] = BlockServer(self.rpc[node.name],
                                                      Volume(sim, queues, config.stripe), cache)
        self.jobs: list[tuple[SliceJobConfig, Fio, SliceFile | MappedFile]] = []
        for job in configs:
            block = nodes[job.source].block or BlockConfig()
            queues = tuple(self._queue(job.source, s, NetBlockDevice(self.rpc[job.source], s),
                                       block.queue_depth, block.max_request, block)
                           for s in job.servers)
            volume = Volume(sim, queues, job.stripe)
            host = hosts[job.source]
            if job.kind == "fault":
                device: SliceFile | MappedFile = MappedFile(host, volume)
                self._preload(job, volume)
            else:
                device = SliceFile(host, volume, job.readahead, job.cluster, job.write_behind)
            capacity = striped_capacity([nodes[s].block_server.capacity  # type: ignore[union-attr]
                                         for s in job.servers], job.stripe)
            self.jobs.append((job, Fio(sim, job.name, device, capacity, job.options, job.start),
                              device))

    def _queue(self, node: str, device: str, target: Any, depth: int | None,
               largest: int | None, block: BlockConfig, on_command: Any = None) -> RequestQueue:
        queue = RequestQueue(self.sim, f"{node}:{device}", target, depth, largest, block.merge,
                             block.elevator, on_command)
        self.queues.setdefault(node, {})[device] = queue
        return queue

    def _disk_queue(self, node: SliceNode, local: LocalDisks, host: Host,
                    disk: str) -> RequestQueue:
        """A server's request queue for one of its disks: the disk's own depth and
        MAXPHYS unless its block layer says otherwise; an interrupt per command."""
        block = node.block or BlockConfig()
        target = local.disks[disk]
        cpu, cost = host.cpu, host.model.interrupt

        def interrupt() -> None:
            cpu.run(cost, None, INTERRUPT)
        return self._queue(node.name, disk, target, block.queue_depth or target.model.queue_depth,
                           block.max_request or MAXPHYS, block, interrupt)

    def _preload(self, job: SliceJobConfig, volume: Volume) -> None:
        """Put the fault job's region in its servers' memory."""
        o = job.options
        size = o.size if o.size is not None else 0
        for index, (at, length) in volume.pieces(o.offset, size).items():
            self.servers[job.servers[index]].cache.insert(at, length)

    def __bool__(self) -> bool:
        return bool(self.servers or self.jobs)

    def reset_stats(self) -> None:
        """Start a new measured interval (the servers' disks are reset with their
        node's channels, by :class:`fcsim.storage.build.Storage`)."""
        for server in self.servers.values():
            server.reset_stats()
        for rpc in self.rpc.values():
            rpc.reset_stats()
        for card in self.cards.values():
            card.stats.reset()
        for queues in self.queues.values():
            for queue in queues.values():
                queue.reset_stats()
        for _config, fio, device in self.jobs:
            fio.reset_stats()
            device.blocked = 0

    def results(self, interval: float) -> dict[str, Any]:
        """Jobs (fio's figures; a dd's also as dd reports them), block servers,
        Trapeze endpoints and request queues over *interval* s."""
        jobs = {}
        for config, fio, device in self.jobs:
            figures = fio.results(interval)
            if config.kind == "dd":
                elapsed = figures["elapsed_s"]
                moved = figures["moved_bytes"]  # dd counts from its start, warm-up or not
                figures.update({"direction": config.options.rw, "count": config.options.count,
                                "bytes": moved,
                                "elapsed_s": elapsed, "finished": elapsed is not None,
                                "bytes_per_s": moved / elapsed if elapsed else None,
                                "blocked_calls": device.blocked})
            jobs[config.name] = figures
        return {"jobs": jobs,
                "block_servers": {name: {**s.results(), **self.rpc[name].results()}
                                  for name, s in self.servers.items()},
                "trapeze": {name: {**c.results(), **self.rpc[name].results()}
                            for name, c in self.cards.items()},
                "queues": {node: {name: q.results(interval) for name, q in queues.items()}
                           for node, queues in self.queues.items()}}
