"""A multipath block device over the paths to one logical unit, modelled on
Linux's device-mapper multipath target (``drivers/md/dm-mpath.c``) and its
daemon, multipathd (multipath-tools, ``multipath.conf(5)``).

Each :class:`Path` is a pair of ports, one of the host's N_Ports and one of
the target's, with the logical unit reached through the host port's FCP
initiator, the target port's ALUA priority (multipath-tools'
``prioritizers/alua.c``: 50 active/optimised, 10 active/non-optimised) and
the :class:`~fcsim.storage.remote_port.RemotePort` the FC transport keeps
for it. Paths form path groups by the grouping policy (``failover``: one
path each; ``multibus``: one group; ``group_by_prio``: one per priority),
in priority order. Requests go to the current group, chosen by its path
selector (:mod:`fcsim.storage.path_selector`); when it has no usable path
the next group in order with one becomes current (dm-mpath's
``choose_pgpath``).

A request that fails with a path error fails its path and is sent again on
another (dm-mpath's ``multipath_end_io``: ``blk_path_error``, ``fail_path``
and ``DM_ENDIO_REQUEUE``): every host byte here is one (DID_TRANSPORT_FAILFAST
and DID_TRANSPORT_MARGINAL are BLK_STS_TRANSPORT, DID_TIME_OUT, DID_ERROR and
DID_NO_CONNECT BLK_STS_IOERR; ``scsi_result_to_blk_status``). The transport
fails a blocked remote port's I/O at fast_io_fail_tmo (or at dev_loss_tmo),
which fails the path then. An unanswered command is retried on its path as
sd retries it (dm-mpath's REQ_FAILFAST_TRANSPORT does not stop the retry of
a DID_TIME_OUT: ``scsi_noretry_cmd``), so it fails the path only once its
retries are used up, (1 + SD_MAX_RETRIES) x (the timeout and its abort)
after it was first sent; to a marginal remote port it is not retried after
its abort (DID_TRANSPORT_MARGINAL; :class:`~fcsim.fc4.fcp_initiator.FcpInitiator`).
With no usable path, requests fail at once (``no_path_retry fail``), wait for a
path (``queue``), or wait for *n* path checks and then fail.

multipathd's checker looks at a failed path every ``polling_interval`` from
its failure and reinstates it at the first check that finds its remote port
online (the checker here reads the transport's state; it sends no TEST UNIT
READY). A path whose remote port was lost (dev_loss_tmo) comes back as soon
as the port does, as multipathd re-adds a new path device on its uevent.
When a path of a group before the current one is reinstated, I/O returns to
that group at once (``failback immediate``), after a delay, or not by itself
(``manual``).

With ``marginal_pathgroups = fpin`` the device is an
:class:`~fcsim.fc2.fpin.FpinListener`: a Link Integrity descriptor received
by a path's host port whose list of affected ports names the path's target
port makes the path marginal (multipathd's ``fpin_handlers.c``, fed by
Linux's ``fc_host_fpin_rcv``), and so does one whose list names the host
port itself (its own link: an extension, Linux's handler looks only for
remote ports); marginal paths form groups of their own after every other,
used only when no other path is usable, and the path's remote port is made
marginal too (multipathd's ``fpin_set_rport_marginal``). A path stops being marginal when
its host port's link goes down and comes back (multipathd clears an HBA's
marginal paths on its link-up event; it does on an RSCN too, which is not
followed here).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fc2.els_payload import port_name as wwpn
from fcsim.fc2.fpin import Descriptor, LinkIntegrity
from fcsim.fc4.fcp import DID_TRANSPORT_FAILFAST
from fcsim.storage.config import (
    FAIL,
    FAILOVER,
    IMMEDIATE,
    MANUAL,
    MARGINAL_FPIN,
    MULTIBUS,
    QUEUE,
    MultipathConfig,
)
from fcsim.storage.path_selector import PathSelector, make_selector
from fcsim.storage.remote_port import FAIL_FAST, LOST, MARGINAL, ONLINE, RemotePort

HOST_BYTE = 1 << 16
"""A completion status at or above this is a host byte: the transport gave
the command up (the path failed), not the target."""
ALUA_OPTIMISED = 50
ALUA_NON_OPTIMISED = 10
"""Path priorities of multipath-tools' ``alua`` prioritizer for a target port
group in the active/optimised and active/non-optimised states."""

ACTIVE = "active"
FAILED = "failed"


class PathDevice(Protocol):
    """The logical unit as one path reaches it (an
    :class:`~fcsim.host.block.FcpLun`)."""

    def login(self, then: Callable[[], None]) -> None:
        """Log in with the target; *then()* once logged in."""

    def submit(self, write: bool, offset: int, length: int, done: Callable[[int], None],
               meter: Any = None) -> None:
        """Read or write; *done(status)* when it completes."""

    def terminate(self, status: int) -> int:
        """Fail every command outstanding over the path with *status*."""


@dataclass
class _Io:
    """A request to the multipath device: *done(status)* once, when it ends."""

    write: bool
    offset: int
    length: int
    done: Callable[[int], None]
    meter: Any


class Path:
    """The path *name* from host N_Port *local* to target N_Port *remote*,
    reaching the logical unit through *device*, at ALUA priority *prio*.
    *state* is dm's (active or failed); *marginal* multipathd's. It counts
    the requests sent down it (*ios*, *bytes*), those it failed (*errors*)
    and its failures."""

    def __init__(self, name: str, local: str, remote: str, device: PathDevice,
                 prio: int) -> None:
        self.name, self.local, self.remote = name, local, remote
        self.device, self.prio = device, prio
        self.rport: RemotePort | None = None
        self.state = ACTIVE
        self.logged_in = False
        self.marginal = False
        self.lost = False  # its remote port was removed (dev_loss_tmo)
        self.checks = 0  # advanced at each failure: an older checker round does nothing
        self.relative_throughput = 1
        self.in_flight = self.in_flight_bytes = 0
        self.ios = self.bytes = self.errors = self.failures = 0

    @property
    def usable(self) -> bool:
        """The path may take I/O: logged in and not failed."""
        return self.logged_in and self.state == ACTIVE

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.ios = self.bytes = self.errors = self.failures = 0


class PathGroup:
    """A priority group: its *paths* and their *selector*."""

    def __init__(self, paths: list[Path], selector: PathSelector) -> None:
        self.paths, self.selector = paths, selector

    @property
    def usable(self) -> bool:
        """A path of the group may take I/O."""
        return any(p.usable for p in self.paths)


class Multipath:
    """The multipath device *name* over *paths* (in discovery order) with
    *config*; a block device for a request queue (``login``, ``submit``).
    :meth:`watch` follows a path's remote port. *events* records each
    change, (time s, path or '' for the device, what)."""

    def __init__(self, sim: Simulation, name: str, paths: Sequence[Path],
                 config: MultipathConfig) -> None:
        if not paths:
            raise ValueError(f"multipath device {name}: no path")
        self.sim, self.name, self.paths, self.config = sim, name, list(paths), config
        self.events: list[tuple[float, str, str]] = []
        self.groups: list[PathGroup] = []
        self.current: PathGroup | None = None
        self._queued: deque[_Io] = deque()
        self._queueing = config.no_path_retry != FAIL
        self._no_path_episode = 0
        self.ios = self.requeued = self.failed_ios = self.max_queued = 0
        self._regroup()

    # -- paths and groups -----------------------------------------------------------------

    def watch(self, path: Path, rport: RemotePort) -> None:
        """Follow *path*'s remote port *rport* as the FC transport keeps it
        (with the config's fast_io_fail_tmo and dev_loss_tmo). The device is
        told of each change before the SCSI layer below it, so that a path
        is failed for its remote port's state (as multipathd fails it), not
        for the I/O errors the transport returns after."""
        path.rport = rport
        rport.listeners.insert(0, lambda _port, state: self.rport_changed(path, state))

    def _regroup(self) -> None:
        """Form the path groups (multipathd's table load), healthy paths first,
        then the marginal ones; the best group with a usable path is current."""
        healthy = [p for p in self.paths if not p.marginal]
        marginal = [p for p in self.paths if p.marginal]
        self.groups = self._group(healthy) + self._group(marginal)
        self.current = None

    def _group(self, paths: list[Path]) -> list[PathGroup]:
        policy = self.config.path_grouping_policy
        if not paths:
            return []
        ordered = sorted(paths, key=lambda p: -p.prio)  # stable: discovery order in a prio
        if policy == MULTIBUS:
            sets = [paths]
        elif policy == FAILOVER:
            sets = [[p] for p in ordered]
        else:  # group_by_prio
            prios = sorted({p.prio for p in paths}, reverse=True)
            sets = [[p for p in paths if p.prio == prio] for prio in prios]
        c = self.config
        return [PathGroup(s, make_selector(c.path_selector, s, c.rr_min_io_rq)) for s in sets]

    def _note(self, subject: str, what: str) -> None:
        self.events.append((self.sim.now, subject, what))

    def _choose(self, nbytes: int) -> Path | None:
        """The path of the next request: the current group's choice, the
        current group the first in order with a usable path when it has none."""
        current = self.current
        if current is None or not current.usable:
            current = next((g for g in self.groups if g.usable), None)
            if current is not None and current is not self.current:
                self._switch(current)
            if current is None:
                return None
        return current.selector.select(nbytes)  # type: ignore[return-value]

    def _switch(self, group: PathGroup) -> None:
        self.current = group
        self._note("", f"path group {self.groups.index(group) + 1} "
                   f"({', '.join(p.name for p in group.paths)}) in use")

    # -- I/O ---------------------------------------------------------------------------------

    def login(self, then: Callable[[], None]) -> None:
        """Log in over every path; *then()* once all have (the device is made
        of the paths discovered, as multipathd builds its map)."""
        left = [len(self.paths)]

        def one(path: Path) -> None:
            path.logged_in = True
            left[0] -= 1
            if left[0] == 0:
                then()
        for path in self.paths:
            path.device.login(lambda path=path: one(path))  # type: ignore[misc]

    def submit(self, write: bool, offset: int, length: int, done: Callable[[int], None],
               meter: Any = None) -> None:
        """Read or write *length* bytes at *offset*; *done(status)* once, when it
        completes on some path or fails for want of one."""
        self.ios += 1
        self._dispatch(_Io(write, offset, length, done, meter))

    def _dispatch(self, io: _Io) -> None:
        path = self._choose(io.length)
        if path is None:
            self._no_path(io)
            return
        path.ios += 1
        path.bytes += io.length
        path.in_flight += 1
        path.in_flight_bytes += io.length
        path.device.submit(io.write, io.offset, io.length,
                           lambda status: self._ended(io, path, status), io.meter)

    def _ended(self, io: _Io, path: Path, status: int) -> None:
        path.in_flight -= 1
        path.in_flight_bytes -= io.length
        if status >= HOST_BYTE:
            path.errors += 1
            self._fail(path, f"I/O error {status >> 16:#04x}")
            self.requeued += 1
            self._dispatch(io)
            return
        io.done(status)

    def _no_path(self, io: _Io) -> None:
        """No path is usable: queue *io* or fail it, as no_path_retry says."""
        if not self._queueing:
            self.failed_ios += 1
            io.done(DID_TRANSPORT_FAILFAST)
            return
        if not self._queued:
            self._note("", "no usable path: queueing I/O")
            retry = self.config.no_path_retry
            if retry not in (QUEUE, FAIL):
                self._no_path_episode += 1
                self.sim.call_later(int(retry) * self.config.polling_interval,  # type: ignore[arg-type]
                                    self._stop_queueing, self._no_path_episode)
        self._queued.append(io)
        self.max_queued = max(self.max_queued, len(self._queued))

    def _stop_queueing(self, episode: int) -> None:
        """no_path_retry's checks have passed with no path back: fail what waits."""
        if episode != self._no_path_episode or not self._queued:
            return
        self._queueing = False
        self._note("", "no_path_retry exhausted: failing queued I/O")
        queued, self._queued = self._queued, deque()
        for io in queued:
            self.failed_ios += 1
            io.done(DID_TRANSPORT_FAILFAST)

    def _flush(self) -> None:
        """A path is usable again: queueing resumes, and what waited goes."""
        self._queueing = self.config.no_path_retry != FAIL
        self._no_path_episode += 1
        queued, self._queued = self._queued, deque()
        for io in queued:
            self._dispatch(io)

    # -- path failure, checking, failback -------------------------------------------------

    def _fail(self, path: Path, why: str) -> None:
        if path.state == FAILED:
            return
        path.state = FAILED
        path.failures += 1
        path.checks += 1
        self._note(path.name, f"failed ({why})")
        self.sim.call_later(self.config.polling_interval, self._check, (path, path.checks))

    def _check(self, value: tuple[Path, int]) -> None:
        """multipathd's checker on failed *path*: reinstate it if its remote port
        is online, else look again a polling interval later."""
        path, round_ = value
        if path.state != FAILED or round_ != path.checks:
            return
        if path.rport is None or path.rport.state == ONLINE:
            self._reinstate(path, "path checker")
        else:
            self.sim.call_later(self.config.polling_interval, self._check, value)

    def _reinstate(self, path: Path, why: str) -> None:
        path.state = ACTIVE
        self._note(path.name, f"reinstated ({why})")
        group = next(g for g in self.groups if path in g.paths)
        current = self.current
        if current is not None and self.groups.index(group) < self.groups.index(current):
            failback = self.config.failback
            if failback == IMMEDIATE:
                self._switch(group)
            elif failback != MANUAL:
                self.sim.call_later(float(failback), self._failback, group)  # type: ignore[arg-type]
        self._flush()

    def _failback(self, group: PathGroup) -> None:
        """The deferred failback to *group* is due: switch if it is still
        better than the current one and usable."""
        current = self.current
        if (group in self.groups and group.usable and current is not None
                and self.groups.index(group) < self.groups.index(current)):
            self._switch(group)

    def rport_changed(self, path: Path, state: str) -> None:
        """*path*'s remote port entered *state*: blocked (held), fail-fast or
        lost (its I/O failed and the path with it), online (back); marginal
        is the device's own doing (:meth:`fpin_received`), noted there."""
        if state == MARGINAL:
            return
        self._note(path.name, f"remote port {state}")
        if state in (FAIL_FAST, LOST):
            path.lost = state == LOST
            self._fail(path, f"remote port {state}")
            path.device.terminate(DID_TRANSPORT_FAILFAST)
        elif state == ONLINE:
            if path.marginal:
                path.marginal = False
                self._note(path.name, "no longer marginal (link up)")
                self._regroup()
            if path.lost:
                path.lost = False
                if path.state == FAILED:
                    self._reinstate(path, "path device added again")

    # -- marginal paths (FPIN) ---------------------------------------------------------------

    def fpin_received(self, port_name: int, descriptor: Descriptor) -> None:
        """An FPIN descriptor arrived at the host N_Port whose WWPN is
        *port_name* (:class:`~fcsim.fc2.fpin.FpinListener`). With
        marginal_pathgroups = fpin, a Link Integrity descriptor makes marginal
        each path through that N_Port whose target port its list names, as
        multipathd's ``fpin_check_set_scsi_path_marginal`` does, or every path
        through it when the list names the N_Port itself (its own link)."""
        if self.config.marginal_pathgroups != MARGINAL_FPIN:
            return
        if not isinstance(descriptor, LinkIntegrity):
            return
        named = set(descriptor.affected)
        changed = False
        for path in self.paths:
            if path.marginal or wwpn(path.local) != port_name:
                continue
            if port_name in named or wwpn(path.remote) in named:
                path.marginal = changed = True
                self._note(path.name, "marginal (FPIN Link Integrity)")
                if path.rport is not None:
                    path.rport.mark_marginal()
        if changed:
            self._regroup()

    # -- results ----------------------------------------------------------------------------

    def reset_stats(self) -> None:
        """Start a new measured interval (the events are kept: a timeline)."""
        self.ios = self.requeued = self.failed_ios = self.max_queued = 0
        for path in self.paths:
            path.reset_stats()

    def results(self) -> dict[str, Any]:
        """The device's and each path's figures, the groups and the events."""
        group_of = {p.name: i + 1 for i, g in enumerate(self.groups) for p in g.paths}
        return {
            "ios": self.ios, "requeued": self.requeued, "failed_ios": self.failed_ios,
            "max_queued": self.max_queued,
            "groups": [[p.name for p in g.paths] for g in self.groups],
            "paths": {p.name: {"local": p.local, "remote": p.remote, "prio": p.prio,
                               "group": group_of[p.name], "state": p.state,
                               "marginal": p.marginal, "ios": p.ios, "bytes": p.bytes,
                               "errors": p.errors, "failures": p.failures}
                      for p in self.paths},
            "events": [{"time_s": t, "path": s, "event": e} for t, s, e in self.events],
        }

