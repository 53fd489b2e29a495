"""The storage side of a scenario: an FCP target with its device on every node
that names one (a model, or the node's own disks on its channels), the
disks on every node's channels, an FCP initiator on every node that runs
block workloads to targets, a request queue per node and device it
addresses, and the fio and dd jobs, each on a volume of its devices (through
the node's host, with its system-call and copy costs, when it has one).
:class:`Storage` reads the nodes and workloads of a scenario through
:class:`StorageScenario`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fc2.nport import NPort
from fcsim.fc3.ports import port_names
from fcsim.fc4.fcp_initiator import DEFAULT_TIMEOUT, FcpInitiator
from fcsim.fc4.fcp_target import FcpTarget
from fcsim.fc4.nvme_initiator import Discover, NvmeInitiator
from fcsim.fc4.nvme_target import NvmeTarget
from fcsim.host.block import FcpLun, HostIo, NvmeNamespace, Volume, striped_capacity
from fcsim.host.cpu import INTERRUPT
from fcsim.host.host import Host
from fcsim.host.request_queue import RequestQueue
from fcsim.storage.array import DiskArray
from fcsim.storage.config import (
    MARGINAL_FPIN,
    OPTIMIZED,
    FioConfig,
    MultipathConfig,
    NvmeOptions,
    unit_capacity,
)
from fcsim.storage.device_model import (
    ArrayModel,
    DiskModel,
    FlashArrayModel,
    RamDiskModel,
    SsdModel,
)
from fcsim.storage.disk import Disk
from fcsim.storage.flash_array import FlashArray
from fcsim.storage.local import (
    MAXPHYS,
    BlockConfig,
    ChannelConfig,
    DiskServer,
    LocalDisks,
    LocalTarget,
)
from fcsim.storage.multipath import ALUA_NON_OPTIMISED, ALUA_OPTIMISED, Multipath, Path
from fcsim.storage.nvme_multipath import AnaPath, NamespaceHead
from fcsim.storage.ramdisk import RamDisk
from fcsim.storage.remote_port import RemotePort, scsi_io
from fcsim.storage.ssd import Ssd
from fcsim.topology.network import Network
from fcsim.workload.fio import Fio

_DEVICES: dict[type, Any] = {DiskModel: Disk, RamDiskModel: RamDisk, ArrayModel: DiskArray,
                             SsdModel: Ssd, FlashArrayModel: FlashArray}
"""The simulated device of each kind of model."""


def _queue_name(device: str, nvme: bool, unit: int) -> str:
    """The name of a node's request queue in front of *device*: its name over
    FCP, ``nvme:<device>`` over FC-NVMe, with ``:lun<k>`` or ``:ns<n>`` for a
    logical unit other than LUN 0 or NSID 1."""
    if nvme:
        return f"nvme:{device}" + (f":ns{unit}" if unit != 1 else "")
    return device + (f":lun{unit}" if unit else "")


class StorageNode(Protocol):
    """What the storage builder reads of a node: its name, its disk channels,
    its block layer (None: the defaults), the device behind its FCP target
    (None: not a target) and the target's maximum burst, bytes (None: no
    limit); its N_Ports (the first is the node itself, the others NAME.1,
    ...), its multipath layer (None: none), its FC transport's dev_loss_tmo
    and fast_io_fail_tmo (s; None: off) and, a target's, the N_Ports in
    the ALUA active/non-optimised group and its (N_Port, ANA state) pairs;
    whether it offers FC-NVMe-2 SLER."""

    @property
    def name(self) -> str: ...
    @property
    def channels(self) -> Sequence[ChannelConfig]: ...
    @property
    def block(self) -> BlockConfig | None: ...
    @property
    def target(self) -> (DiskModel | RamDiskModel | ArrayModel | SsdModel | FlashArrayModel
                         | LocalTarget | None): ...
    @property
    def max_burst(self) -> int | None: ...
    @property
    def ports(self) -> int: ...
    @property
    def multipath(self) -> MultipathConfig | None: ...
    @property
    def dev_loss_tmo(self) -> float: ...
    @property
    def fast_io_fail_tmo(self) -> float | None: ...
    @property
    def non_optimized_ports(self) -> Sequence[str]: ...
    @property
    def ana_states(self) -> Sequence[tuple[str, str]]: ...
    @property
    def namespaces(self) -> int: ...
    @property
    def nvme_sler(self) -> bool: ...
    @property
    def nvme_reconnect_delay(self) -> float: ...
    @property
    def nvme_ctrl_loss_tmo(self) -> float | None: ...


class StorageScenario(Protocol):
    """What the storage builder reads of a scenario: its nodes, and its
    workloads, of which it builds the :class:`~fcsim.storage.config.FioConfig`
    ones (fio and dd jobs)."""

    @property
    def nodes(self) -> Sequence[StorageNode]: ...
    @property
    def workloads(self) -> Sequence[object]: ...


def limit(target: FcpTarget, device: Disk | RamDisk | DiskArray | Ssd | FlashArray | DiskServer,
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
    """The targets, local disks, request queues, initiators and block jobs of
    *scenario* on the built *net*; *discovery*: for an N_Port, how its FC-NVMe
    host finds NVMe subsystems (a fabric's name server; None: it takes its
    targets as given)."""

    def __init__(self, sim: Simulation, scenario: StorageScenario, net: Network,
                 hosts: dict[str, Host] | None = None,
                 discovery: Callable[[NPort], Discover] | None = None) -> None:
        self.sim, self.net, self.hosts = sim, net, hosts or {}
        self._discovery = discovery
        self._nodes = {n.name: n for n in scenario.nodes}
        self.local = {n.name: LocalDisks(sim, n.name, n.channels, self._bus(n.name))
                      for n in scenario.nodes if n.channels}
        self.queues: dict[str, dict[str, RequestQueue]] = {}
        self.initiators: dict[str, FcpInitiator] = {}
        self._classes = {w.source: (w.cls, w.timeout) for w in reversed(scenario.workloads)
                         if isinstance(w, FioConfig)}
        self._nvme = {w.source: w.nvme for w in reversed(scenario.workloads)
                      if isinstance(w, FioConfig) and w.nvme is not None}
        nvme_targets = {t for w in scenario.workloads
                        if isinstance(w, FioConfig) and w.nvme is not None for t in w.targets}
        self.nvme_initiators: dict[str, NvmeInitiator] = {}
        self.nvme_targets: dict[str, NvmeTarget] = {}
        self.devices: dict[str, Disk | RamDisk | DiskArray | Ssd | FlashArray | DiskServer] = {}
        self.targets: dict[str, FcpTarget] = {}
        self.port_targets: dict[str, FcpTarget] = {}
        """The FCP targets on a target node's other N_Ports, by N_Port name,
        made for the multipath devices that reach them."""
        self.remote_ports: dict[tuple[str, int], RemotePort] = {}
        """The FC transport's remote ports of the SCSI initiators, by (host
        N_Port name, target N_Port ID)."""
        self.multipaths: dict[str, Multipath] = {}
        """The multipath devices, by 'node:target'."""
        self.port_nvme_targets: dict[str, NvmeTarget] = {}
        """The FC-NVMe controllers on a target node's other N_Ports, by N_Port
        name, made for the NVMe multipath namespaces that reach them."""
        self.heads: dict[str, NamespaceHead] = {}
        """The NVMe multipath namespaces, by 'node:target' (':ns<n>' past NSID 1)."""
        for node in scenario.nodes:
            model = node.target
            if model is None:
                continue
            if isinstance(model, LocalTarget):
                volume = Volume(sim, tuple(self._queue(node.name, d) for d in model.disks),
                                model.stripe)
                device: Any = DiskServer(model, volume, [self.local[node.name].disks[d]
                                                         for d in model.disks])
            else:
                device = _DEVICES[type(model)](sim, node.name, model)
            self.devices[node.name] = device
            ports = [port for port, _ in net.attachments(node.name) if isinstance(port, NPort)]
            units = node.namespaces
            size = unit_capacity(model.capacity, units)
            self.targets[node.name] = FcpTarget(sim, ports[0], device, model.queue_depth,
                                                node.max_burst, units, size)
            if node.name in nvme_targets:
                self.nvme_targets[node.name] = NvmeTarget(
                    sim, ports[0], device, model.queue_depth,
                    max((o.first_burst for o in self._nvme.values()), default=0), units, size,
                    node.nvme_sler)
        self.jobs: list[tuple[FioConfig, Fio]] = []
        for w in scenario.workloads:
            if not isinstance(w, FioConfig):
                continue
            volume = self.volume(w.source, w.targets, w.stripe, w.nvme,
                                 w.nsid if w.nvme is not None else w.lun)
            host = self.hosts.get(w.source)
            device = volume if host is None else HostIo(host, volume, self._stack(host, w))
            capacity = striped_capacity([self._capacity(w.source, t) for t in w.targets],
                                        w.stripe)
            self.jobs.append((w, Fio(sim, w.name, device, capacity, w.options, w.start,
                                     metered=True, tail=w.nvme is not None)))

    def _stack(self, host: Host, w: FioConfig) -> float:
        """The host's storage stack time per request of job *w*: its NVMe stack's
        over FC-NVMe, its SCSI stack's to FC targets, none to its own disks."""
        local = self.local.get(w.source)
        if local is not None and w.destination in local.disks:
            return 0.0
        return (host.model.nvme_command_cpu if w.nvme is not None
                else host.model.scsi_command_cpu)

    def _bus(self, node: str) -> Any:
        host = self.hosts.get(node)
        return host.bus if host is not None else None

    def _capacity(self, node: str, device: str) -> int:
        local = self.local.get(node)
        if local is not None and device in local.disks:
            return local.disks[device].model.capacity
        return unit_capacity(self.devices[device].model.capacity,
                             self._nodes[device].namespaces)

    def volume(self, node: str, devices: tuple[str, ...], stripe: int | None,
               nvme: NvmeOptions | None = None, unit: int | None = None) -> Volume:
        """A volume of *node* over *devices* (its local disks, or FC target nodes,
        reached over FCP or, with *nvme*, over FC-NVMe, at logical unit *unit*
        of each: a LUN, or an NSID; None: LUN 0, NSID 1), striped in grains of
        *stripe* bytes when several, each behind its request queue."""
        return Volume(self.sim, tuple(self._queue(node, d, nvme, unit) for d in devices),
                      stripe)

    def _nvme_initiator(self, node: str, port: NPort) -> NvmeInitiator:
        """*node*'s FC-NVMe host on *port*, made at its first use with the
        settings of the node's first NVMe job (its timeout the host's NVMe
        command timeout)."""
        initiator = self.nvme_initiators.get(port.name)
        if initiator is None:
            o = self._nvme[node]
            _cls, timeout = self._classes[node]
            initiator = self.nvme_initiators[port.name] = NvmeInitiator(
                self.sim, port, o.queues, o.queue_size, o.first_burst,
                None if self._discovery is None else self._discovery(port),
                self._nodes[node].nvme_sler, timeout,
                failover=self._nodes[node].multipath is not None,
                reconnect_delay=self._nodes[node].nvme_reconnect_delay,
                ctrl_loss_tmo=self._nodes[node].nvme_ctrl_loss_tmo)
        return initiator

    def _initiator(self, node: str, port: NPort) -> FcpInitiator:
        """*node*'s FCP initiator on *port*, made at its first use, in the class
        and with the timeout of the node's first block job (Class 3 and Linux
        sd's timeout for a node that runs none: a transfer's relay)."""
        initiator = self.initiators.get(port.name)
        if initiator is None:
            cls, timeout = self._classes.get(node, (3, DEFAULT_TIMEOUT))
            failfast = self._nodes[node].multipath is not None
            initiator = self.initiators[port.name] = FcpInitiator(self.sim, port, cls, timeout,
                                                                  failfast)
        return initiator

    def _remote_port(self, node: str, port: NPort, d_id: int) -> RemotePort:
        """The FC transport's remote port for the target N_Port *d_id* that
        *node* reaches through its N_Port *port*, made at first use, with the
        node's dev_loss_tmo and fast_io_fail_tmo (its multipath layer's, as
        multipathd sets it, if it has one); the node's SCSI initiator on
        *port* follows it (:func:`~fcsim.storage.remote_port.scsi_io`)."""
        rport = self.remote_ports.get((port.name, d_id))
        if rport is None:
            n = self._nodes[node]
            fast = n.multipath.fast_io_fail_tmo if n.multipath is not None else n.fast_io_fail_tmo
            rport = self.remote_ports[port.name, d_id] = RemotePort(self.sim, port, fast,
                                                                    n.dev_loss_tmo)
            rport.listeners.append(scsi_io(self._initiator(node, port), d_id))
        return rport

    def _path_ends(self, node: str, device: str) -> list[tuple[str, str]]:
        """The paths from host *node* to target *device*: each pair of their
        N_Ports (host's in turn, then the target's) on one fabric."""
        return [(local, remote)
                for local in port_names(node, self._nodes[node].ports)
                for remote in port_names(device, self._nodes[device].ports)
                if self.net.same_fabric(local, remote)]

    def _multipath(self, node: str, device: str, lun: int = 0) -> Multipath:
        """*node*'s multipath device over every path to logical unit *lun* of
        target *device*: each pair of their N_Ports on one fabric, the target
        port's ALUA priority its path's."""
        host, target = self._nodes[node], self._nodes[device]
        config: MultipathConfig = host.multipath  # type: ignore[assignment]
        paths = []
        for local, remote in self._path_ends(node, device):
            unit = FcpLun(self._initiator(node, self.net.nodes[local]),
                          self.net.address_of(remote), lun)
            self._port_target(device, remote)
            prio = (ALUA_NON_OPTIMISED if remote in target.non_optimized_ports
                    else ALUA_OPTIMISED)
            paths.append(Path(f"{local}-{remote}", local, remote, unit, prio))
        name = f"{node}:{device}" if lun == 0 else f"{node}:{device}:lun{lun}"
        if config.checker_timeout is None:  # the path's SCSI command timeout
            config = replace(config, checker_timeout=self._classes.get(
                node, (3, DEFAULT_TIMEOUT))[1])
        device_mp = self.multipaths[name] = Multipath(self.sim, name, paths, config)
        for path in paths:
            device_mp.watch(path, self._remote_port(node, self.net.nodes[path.local],
                                                    self.net.address_of(path.remote)))
        return device_mp

    def _head(self, node: str, device: str, nsid: int) -> NamespaceHead:
        """*node*'s NVMe multipath namespace *nsid* of target *device*: a path
        over each pair of their N_Ports on one fabric, in the ANA state of the
        target port."""
        host, target = self._nodes[node], self._nodes[device]
        config: MultipathConfig = host.multipath  # type: ignore[assignment]
        ana = dict(target.ana_states)
        paths = []
        for local, remote in self._path_ends(node, device):
            self._port_nvme_target(device, remote)
            paths.append(AnaPath(f"{local}-{remote}", local, remote,
                                 self._nvme_initiator(node, self.net.nodes[local]),
                                 self.net.address_of(remote), nsid,
                                 ana.get(remote, OPTIMIZED)))
        name = f"{node}:{device}" + (f":ns{nsid}" if nsid != 1 else "")
        head = self.heads[name] = NamespaceHead(self.sim, name, paths, config.iopolicy)
        for path in paths:
            head.watch(path, self.net.nodes[path.local], config.fast_io_fail_tmo,
                       config.dev_loss_tmo)
        return head

    def _port_nvme_target(self, device: str, port: str) -> None:
        """An FC-NVMe controller on N_Port *port* of target node *device* (its
        first has one), serving the node's device, made at first use."""
        if port == device or port in self.port_nvme_targets:
            return
        first = self.nvme_targets[device]
        self.port_nvme_targets[port] = NvmeTarget(
            self.sim, self.net.nodes[port], first.device, first.mqes, first.first_burst,
            first.namespaces, first.namespace_size, first.sler)

    def fpin_listeners(self) -> dict[str, list[Multipath]]:
        """Per host N_Port (by name), the multipath devices with a path through
        it that take FPINs (``marginal_pathgroups = fpin``): each is an
        :class:`~fcsim.fc2.fpin.FpinListener`, to be told of the FPINs that
        N_Port receives."""
        out: dict[str, list[Multipath]] = {}
        for device in self.multipaths.values():
            if device.config.marginal_pathgroups != MARGINAL_FPIN:
                continue
            for port in dict.fromkeys(p.local for p in device.paths):
                out.setdefault(port, []).append(device)
        return out

    def _port_target(self, device: str, port: str) -> None:
        """An FCP target on N_Port *port* of target node *device* (its first has
        one), serving the node's device, made at first use."""
        if port == device or port in self.port_targets:
            return
        first = self.targets[device]
        self.port_targets[port] = FcpTarget(self.sim, self.net.nodes[port], first.device,
                                            first.queue_depth, self._nodes[device].max_burst,
                                            first.units, first.unit_size)

    def _queue(self, node: str, device: str, nvme: NvmeOptions | None = None,
               unit: int | None = None) -> RequestQueue:
        """The request queue of *node* in front of *device* (one of its local
        disks, or an FC target node over FCP or, with *nvme*, the queue named
        ``nvme:<device>`` in front of its FC-NVMe namespace), made on first
        use. A logical unit other than LUN 0 or NSID 1 has its own queue
        (``<device>:lun<k>``, ``nvme:<device>:ns<n>``), as each is a block
        device of its own to the host."""
        queues = self.queues.setdefault(node, {})
        unit = (1 if nvme is not None else 0) if unit is None else unit
        name = _queue_name(device, nvme is not None, unit)
        queue = queues.get(name)
        if queue is not None:
            return queue
        block = self._nodes[node].block or BlockConfig()
        local = self.local.get(node)
        host = self.hosts.get(node)
        interrupt = None
        if host is not None:
            cpu, cost = host.cpu, host.model.interrupt

            def interrupt() -> None:
                cpu.run(cost, None, INTERRUPT)
        metered = not (local is not None and device in local.disks)
        if not metered:
            disk: Any = local.disks[device]  # type: ignore[union-attr]
            depth = block.queue_depth or disk.model.queue_depth
            largest = block.max_request or MAXPHYS
        elif self._nodes[node].multipath is not None:
            disk = (self._multipath(node, device, unit) if nvme is None
                    else self._head(node, device, unit))
            depth, largest = block.queue_depth, block.max_request
        else:
            port, address = self.net.route(node, device, fibre_channel=True)
            if nvme is not None:
                disk = NvmeNamespace(self._nvme_initiator(node, port), address, unit)
            else:
                disk = FcpLun(self._initiator(node, port), address, unit)
                self._remote_port(node, port, address)
            depth, largest = block.queue_depth, block.max_request
        queue = queues[name] = RequestQueue(self.sim, f"{node}:{name}", disk, depth,
                                              largest, block.merge, block.elevator, interrupt,
                                              metered)
        return queue

    def __bool__(self) -> bool:
        return bool(self.targets or self.jobs)

    def warnings(self) -> list[str]:
        """A line for each target whose jobs may keep more commands outstanding
        (fio's iodepth x numjobs, summed over the jobs of each node and capped
        at the node's request-queue depth) than its task set holds: the
        excess is answered TASK SET FULL and waits at the initiators, so the
        device sees its queue depth, not the jobs' (real systems allow it)."""
        wanted: dict[str, dict[tuple[str, str], int]] = {}
        for config, _ in self.jobs:
            if config.nvme is not None:
                continue  # NVMe commands wait at the host for a queue entry, never refused
            for name in config.targets:
                if name in self.targets:
                    queues = wanted.setdefault(name, {})
                    queue = (config.source, _queue_name(name, False, config.lun))
                    queues[queue] = (queues.get(queue, 0)
                                     + config.options.iodepth * config.options.numjobs)
        out = []
        for name, queues in wanted.items():
            depths = [self.queues[node][queue].depth for node, queue in queues]
            total = sum(n if depth is None else min(n, depth)
                        for n, depth in zip(queues.values(), depths, strict=True))
            depth = self.targets[name].queue_depth
            if total > depth:
                out.append(f"target {name}: its jobs keep up to {total} commands outstanding "
                           f"(iodepth x numjobs), more than its queue depth of {depth}: the "
                           f"other {total - depth} wait at the initiators after TASK SET FULL")
        return out

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        for device in self.devices.values():
            device.reset_stats()
        for target in self.targets.values():
            target.reset_stats()
        for local in self.local.values():
            local.reset_stats()
        for queues in self.queues.values():
            for queue in queues.values():
                queue.reset_stats()
        for initiator in self.initiators.values():
            initiator.reset_stats()
        for nvme in [*self.nvme_targets.values(), *self.port_nvme_targets.values()]:
            nvme.reset_stats()
        for host in self.nvme_initiators.values():
            host.reset_stats()
        for _, job in self.jobs:
            job.reset_stats()
        for device in self.multipaths.values():
            device.reset_stats()
        for head in self.heads.values():
            head.reset_stats()

    def results(self, interval: float) -> dict[str, Any]:
        """Jobs (fio figures; a dd's as dd reports them), targets and their
        devices, local disks and channels, request queues, and initiators'
        recovery counts over *interval* s."""
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
            d_id = target.nport.port_id
            fabric = [i.fabric.get(d_id, (0.0, 0)) for i in self.initiators.values()]
            count = sum(n for _, n in fabric)
            targets[name] = {"device": device.model.name, "limit": busiest,
                             "limit_utilisation": share,
                             "mean_queue_depth": target.mean_depth(interval),
                             "max_queue_depth": target.max_depth,
                             "task_set_full": target.queue_full, "aborts": target.aborts,
                             **device.results(interval),
                             "mean_fabric_s": sum(t for t, _ in fabric) / count
                             if count else None}
            if target.units > 1:
                targets[name]["lun_commands"] = {str(k): n for k, n in
                                                 enumerate(target.unit_commands)}
        initiators = {name: vars(i.stats).copy() for name, i in self.initiators.items()}
        out = {"jobs": jobs, "targets": targets, "initiators": initiators,
               "queues": {node: {name: q.results(interval) for name, q in queues.items()}
                          for node, queues in self.queues.items()}}
        if self.nvme_targets:
            out["nvme_targets"] = {name: t.results() for name, t in
                                   {**self.nvme_targets, **self.port_nvme_targets}.items()}
            out["nvme_initiators"] = {
                name: {**vars(i.stats), **({"undiscovered": [f"{d:06x}" for d in i.undiscovered]}
                                           if i.undiscovered else {}), "connections": {
                    f"{d_id:06x}": [{"sqsize": c.sqsize, "max_outstanding": c.most}
                                    for c in i.connections(d_id)]
                    for d_id in i.targets()},
                    **({"recovery": {**vars(i.recovery), "sler": [
                        f"{d:06x}" for d in i.targets() if i.uses_sler(d)]}}
                       if i.recovery else {})}
                for name, i in self.nvme_initiators.items()}
        if self.local:
            out["local"] = {node: local.results(interval) for node, local in self.local.items()}
        if self.multipaths:
            out["multipath"] = {name: m.results() for name, m in self.multipaths.items()}
        if self.heads:
            out["nvme_multipath"] = {name: h.results() for name, h in self.heads.items()}
        return out
