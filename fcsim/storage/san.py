"""The storage side of a scenario: an FCP target with its device on every node
that names one, an FCP initiator on every node that runs block workloads, and
the fio and dd jobs, each on a volume of its targets (through the node's
host, with its system-call and copy costs, when it has one)."""

from __future__ import annotations

from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc2.nport import NPort
from fcsim.fc4.fcp_initiator import FcpInitiator
from fcsim.fc4.fcp_target import FcpTarget
from fcsim.host.block import HostIo, Volume, striped_capacity
from fcsim.host.host import Host
from fcsim.scenario.model import FioConfig, Scenario
from fcsim.storage.array import DiskArray
from fcsim.storage.device_model import ArrayModel, DiskModel, RamDiskModel
from fcsim.storage.disk import Disk
from fcsim.storage.ramdisk import RamDisk
from fcsim.topology.network import Network
from fcsim.workload.fio import Fio

_DEVICES: dict[type, Any] = {DiskModel: Disk, RamDiskModel: RamDisk, ArrayModel: DiskArray}
"""The simulated device of each kind of model."""


def limit(target: FcpTarget, device: Disk | RamDisk | DiskArray,
          interval: float) -> tuple[str, float]:
    """The busiest of the device's resources and the target's link directions
    over *interval* s, and its utilisation: what limits the target."""
    used = dict(device.utilisations(interval))
    port = target.nport.port
    if interval > 0:
        used["FC link to the initiators"] = port.stats.busy_time / interval
        peer = getattr(port, "peer", None)
        if peer is not None:
            used["FC link from the initiators"] = peer.stats.busy_time / interval
    name = max(used, key=used.__getitem__)
    return name, used[name]


class Storage:
    """The targets, initiators and block jobs of *scenario* on the built *net*."""

    def __init__(self, sim: Simulation, scenario: Scenario, net: Network,
                 hosts: dict[str, Host] | None = None) -> None:
        self.sim, self.net = sim, net
        self.devices: dict[str, Disk | RamDisk | DiskArray] = {}
        self.targets: dict[str, FcpTarget] = {}
        for node in scenario.nodes:
            model = node.target
            if model is None:
                continue
            device = _DEVICES[type(model)](sim, node.name, model)
            self.devices[node.name] = device
            ports = [port for port, _ in net.attachments(node.name) if isinstance(port, NPort)]
            self.targets[node.name] = FcpTarget(sim, ports[0], device, model.queue_depth,
                                                node.max_burst)
        self.initiators: dict[str, FcpInitiator] = {}
        self.jobs: list[tuple[FioConfig, Fio]] = []
        for w in scenario.workloads:
            if not isinstance(w, FioConfig):
                continue
            volume = self.volume(w.source, w.targets, w.stripe, w.cls, w.timeout)
            device = (HostIo(hosts[w.source], volume) if hosts and w.source in hosts
                      else volume)
            capacity = striped_capacity([self.devices[t].model.capacity for t in w.targets],
                                        w.stripe)
            self.jobs.append((w, Fio(sim, w.name, device, capacity, w.options, w.start)))

    def volume(self, source: str, targets: tuple[str, ...], stripe: int | None, cls: int,
               timeout: float) -> Volume:
        """A volume of node *source* over *targets* (striped in grains of
        *stripe* bytes when several), through *source*'s FCP initiator on the
        N_Port that reaches them (one is made at the first use of a port)."""
        routes = [self.net.route(source, t, fibre_channel=True) for t in targets]
        port = routes[0][0]
        if any(p is not port for p, _ in routes):
            raise ValueError(f"{source}: the targets of a striped volume must be reached "
                             "through one N_Port")
        initiator = self.initiators.get(port.name)
        if initiator is None:
            initiator = self.initiators[port.name] = FcpInitiator(self.sim, port, cls, timeout)
        return Volume(self.sim, initiator, tuple(d_id for _, d_id in routes), stripe)

    def __bool__(self) -> bool:
        return bool(self.targets or self.jobs)

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        for device in self.devices.values():
            device.reset_stats()
        for target in self.targets.values():
            target.reset_stats()
        for _, job in self.jobs:
            job.reset_stats()

    def results(self, interval: float) -> dict[str, Any]:
        """Jobs (fio figures; a dd's as dd reports them), targets and their
        devices, and initiators' recovery counts over *interval* s."""
        jobs = {}
        for config, job in self.jobs:
            figures = job.results(interval)
            if config.dd:
                elapsed = figures["elapsed_s"]
                moved = figures["moved_bytes"]  # dd counts from its start, warm-up or not
                figures = {"direction": config.options.rw, "bs": config.options.bs,
                           "count": config.options.count, "bytes": moved,
                           "elapsed_s": elapsed, "finished": elapsed is not None,
                           "bytes_per_s": moved / elapsed if elapsed else None}
            jobs[config.name] = figures
        targets = {}
        for name, target in self.targets.items():
            device = self.devices[name]
            busiest, share = limit(target, device, interval)
            targets[name] = {"device": device.model.name, "limit": busiest,
                             "limit_utilisation": share,
                             "mean_queue_depth": target.mean_depth(interval),
                             "max_queue_depth": target.max_depth,
                             "task_set_full": target.queue_full, "aborts": target.aborts,
                             **device.results(interval)}
        initiators = {name: vars(i.stats).copy() for name, i in self.initiators.items()}
        return {"jobs": jobs, "targets": targets, "initiators": initiators}
