"""NVMe native multipath: one namespace reached through several controllers,
modelled on Linux's NVMe host (``drivers/nvme/host/multipath.c``).

A :class:`NamespaceHead` (Linux's ``struct nvme_ns_head``, the block device
``nvmeXnY``) stands over the namespace as each path reaches it: an
:class:`AnaPath` is one controller, the FC-NVMe association from one of the
host's N_Ports to one of the target's (Linux's ``struct nvme_ns`` of one
``nvme_ctrl``), with the ANA state of the namespace through that target port
(NVMe Base Specification 2.0, 8.1 Asymmetric Namespace Access Reporting:
optimized, non-optimized, inaccessible, persistent loss, change).

The path of each command is chosen by the I/O policy (``nvme_find_path``),
among the paths not disabled (``nvme_path_is_disabled``: the controller is
live, here its remote port online):

- ``numa`` (``__nvme_find_path``): the first optimized path in the list, else
  the first non-optimized one, kept as the current path while it stays
  usable and optimized. With one NUMA node, as here, every distance is the
  same and the list order decides: all I/O goes down one path.
- ``round-robin`` (``nvme_round_robin_path``): the next usable path after
  the current one in the list, the first optimized one found, else the last
  non-optimized one found; the current path again when no other optimized
  path is usable and it is (or when it alone is usable).
- ``queue-depth`` (``nvme_queue_depth_path``): the usable optimized path
  with the fewest commands outstanding (the first in the list on a tie),
  else the non-optimized one with the fewest. Linux counts a controller's
  active requests (``nr_active``); here the head's own commands on the path,
  the same when the head is the only namespace in use on the controller.

Paths in the other ANA states are never chosen. The list is in discovery
order (the host's N_Ports in turn, then the target's).

A command that fails with a path error (status code type 3h: an ANA error,
Internal Path Error 370h, Command Aborted By Host 371h) goes back to the head
and is sent again on the path chosen then (``nvme_failover_req``: the
current path is cleared and the bio requeued); the FC-NVMe host completes
such a command at once instead of retrying it on its own path
(:class:`~fcsim.fc4.nvme_initiator.NvmeInitiator` with ``failover``). Other
errors are the command's own and end it.

Path loss comes from the FC transport's remote port
(:class:`~fcsim.storage.remote_port.RemotePort`, with the node's
fast_io_fail_tmo and dev_loss_tmo): when the host N_Port's link goes down,
the remote port is blocked and nvme-fc resets the controller
(``nvme_fc_ctrl_connectivity_loss``), terminating its commands with Command
Aborted By Host, which fail over; the path is disabled until the remote port
is online again. A command finding no usable path waits at the head while
some path may still come back (``nvme_available_path``: a controller live,
resetting or connecting, its fast_io_fail_tmo not expired: here a remote port
online or blocked) and fails at once otherwise (``no available path -
failing I/O``); waiting commands go again when a path comes back, and fail
when the last path that might have come back is given up (fast_io_fail_tmo
or dev_loss_tmo). A controller whose association is reset after a command
failed in the transport (:mod:`fcsim.fc4.nvme_recovery`) is disabled the
same way until its association is live again, and available meanwhile (its
state resetting or connecting); lost after its last reconnection attempt,
it is no longer available. Not modelled: the reconnection of a controller's
association after its link comes back (the old association is used again),
and ANA state changes during a run (each path keeps its state).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fc4.fcp import CHECK_CONDITION, GOOD
from fcsim.fc4.nvme import HOST_ABORTED, SUCCESS, NvmeCommand, is_path_error
from fcsim.fc4.nvme_initiator import NvmeInitiator
from fcsim.storage.config import (
    IOPOLICY_QUEUE_DEPTH,
    IOPOLICY_RR,
    NON_OPTIMIZED,
    OPTIMIZED,
)
from fcsim.storage.remote_port import BLOCKED, ONLINE, RemotePort


class AnaPath:
    """The path *name*: the namespace *nsid* of the FC-NVMe controller at the
    target N_Port *remote* (N_Port ID *d_id*), reached by *initiator* on the
    host N_Port *local*, in ANA state *ana_state*. It counts the commands
    sent down it (*ios*, *bytes*), those that failed over from it
    (*errors*) and the times it was lost."""

    def __init__(self, name: str, local: str, remote: str, initiator: NvmeInitiator,
                 d_id: int, nsid: int, ana_state: str = OPTIMIZED) -> None:
        self.name, self.local, self.remote = name, local, remote
        self.initiator, self.d_id, self.nsid, self.ana_state = initiator, d_id, nsid, ana_state
        self.rport: RemotePort | None = None
        self.connected = False
        self.in_flight = 0
        self.ios = self.bytes = self.errors = self.failures = 0

    @property
    def live(self) -> bool:
        """Its controller is live: connected, its remote port online and its
        association live, not being reset (Linux's ``nvme_path_is_disabled``
        false)."""
        return (self.connected and (self.rport is None or self.rport.state == ONLINE)
                and self.initiator.live(self.d_id))

    @property
    def available(self) -> bool:
        """It may carry I/O now or come back (``nvme_available_path``): live,
        its remote port blocked (resetting, connecting) before
        fast_io_fail_tmo, or its association being reset or made again."""
        return (self.live or (self.rport is not None and self.rport.state == BLOCKED)
                or (self.connected and self.initiator.coming_back(self.d_id)))

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.ios = self.bytes = self.errors = self.failures = 0


@dataclass
class _Io:
    """A request to the head: *done(status)* once, when it ends."""

    write: bool
    offset: int
    length: int
    done: Callable[[int], None]
    meter: Any


class NamespaceHead:
    """The multipath namespace *name* over *paths* (in discovery order) with
    I/O policy *iopolicy*; a block device for a request queue (``login``,
    ``submit``). :meth:`watch` follows a path's remote port. *events*
    records each change, (time s, path or '' for the head, what)."""

    def __init__(self, sim: Simulation, name: str, paths: Sequence[AnaPath],
                 iopolicy: str) -> None:
        if not paths:
            raise ValueError(f"NVMe multipath namespace {name}: no path")
        self.sim, self.name, self.paths, self.iopolicy = sim, name, list(paths), iopolicy
        self.current: AnaPath | None = None
        self.events: list[tuple[float, str, str]] = []
        self._requeued: deque[_Io] = deque()
        self.ios = self.failovers = self.failed_ios = self.max_queued = 0
        for path in self.paths:  # follow each path's association
            path.initiator.listeners.append(
                lambda d_id, state, path=path: self.association_changed(  # type: ignore[misc]
                    path, state) if d_id == path.d_id else None)

    def watch(self, path: AnaPath, nport: Any, fast_io_fail_tmo: float | None,
              dev_loss_tmo: float) -> None:
        """Follow *path*'s remote port as the FC transport keeps it through the
        host N_Port *nport*."""
        path.rport = RemotePort(self.sim, nport, fast_io_fail_tmo, dev_loss_tmo,
                                lambda _port, state: self.rport_changed(path, state))

    def _note(self, subject: str, what: str) -> None:
        self.events.append((self.sim.now, subject, what))

    @property
    def queued(self) -> int:
        """Commands waiting at the head for a usable path."""
        return len(self._requeued)

    # -- path choice --------------------------------------------------------------------------

    def find_path(self) -> AnaPath | None:
        """The path of the next command by the I/O policy (``nvme_find_path``);
        None when no path is usable."""
        if self.iopolicy == IOPOLICY_QUEUE_DEPTH:
            return self._queue_depth_path()
        current = self.current
        if current is None:
            return self._first_path()
        if self.iopolicy == IOPOLICY_RR:
            return self._round_robin_path(current)
        if not (current.live and current.ana_state == OPTIMIZED):
            return self._first_path()
        return current

    def _first_path(self) -> AnaPath | None:
        """``__nvme_find_path`` with every distance equal: the first live
        optimized path, else the first live non-optimized one; it becomes
        current."""
        live = [p for p in self.paths if p.live]
        found = next((p for p in live if p.ana_state == OPTIMIZED), None) or next(
            (p for p in live if p.ana_state == NON_OPTIMIZED), None)
        if found is not None:
            self.current = found
        return found

    def _round_robin_path(self, old: AnaPath) -> AnaPath | None:
        """``nvme_round_robin_path``: the paths after *old* in turn."""
        if len(self.paths) == 1:
            return old if old.live else None
        at = self.paths.index(old)
        found = None
        for path in self.paths[at + 1:] + self.paths[:at]:
            if not path.live:
                continue
            if path.ana_state == OPTIMIZED:
                found = path
                break
            if path.ana_state == NON_OPTIMIZED:
                found = path
        else:
            if old.live and (old.ana_state == OPTIMIZED
                             or (found is None and old.ana_state == NON_OPTIMIZED)):
                return old
            if found is None:
                return None
        self.current = found
        return found

    def _queue_depth_path(self) -> AnaPath | None:
        """``nvme_queue_depth_path``: the live optimized path with the fewest
        commands outstanding, else the non-optimized one."""
        best: dict[str, AnaPath] = {}
        for path in self.paths:
            if not path.live or path.ana_state not in (OPTIMIZED, NON_OPTIMIZED):
                continue
            held = best.get(path.ana_state)
            if held is None or path.in_flight < held.in_flight:
                best[path.ana_state] = path
            if path.ana_state == OPTIMIZED and path.in_flight == 0:
                break
        return best.get(OPTIMIZED) or best.get(NON_OPTIMIZED)

    # -- I/O ----------------------------------------------------------------------------------

    def login(self, then: Callable[[], None]) -> None:
        """Connect every path's controller; *then()* once all have."""
        left = [len(self.paths)]

        def one(path: AnaPath) -> None:
            path.connected = True
            left[0] -= 1
            if left[0] == 0:
                then()
        for path in self.paths:
            path.initiator.connect(path.d_id, lambda path=path: one(path))  # type: ignore[misc]

    def submit(self, write: bool, offset: int, length: int, done: Callable[[int], None],
               meter: Any = None) -> None:
        """Read or write *length* bytes at *offset*; *done(status)* once: GOOD
        when it completes on some path, CHECK_CONDITION when it fails."""
        self.ios += 1
        self._dispatch(_Io(write, offset, length, done, meter))

    def _dispatch(self, io: _Io) -> None:
        path = self.find_path()
        if path is None:
            self._no_path(io)
            return
        path.ios += 1
        path.bytes += io.length
        path.in_flight += 1
        path.initiator.submit(path.d_id, io.write, io.offset, io.length,
                              lambda command: self._ended(io, path, command), io.meter,
                              nsid=path.nsid)

    def _ended(self, io: _Io, path: AnaPath, command: NvmeCommand) -> None:
        path.in_flight -= 1
        status: int = command.status  # type: ignore[assignment]
        if status == SUCCESS:
            io.done(GOOD)
        elif is_path_error(status):
            path.errors += 1
            self.failovers += 1
            if self.current is path:
                self.current = None  # nvme_mpath_clear_current_path
            self._dispatch(io)
        else:
            io.done(CHECK_CONDITION)

    def _no_path(self, io: _Io) -> None:
        """No usable path: *io* waits while a path may come back, else fails."""
        if not any(p.available for p in self.paths):
            self.failed_ios += 1
            io.done(CHECK_CONDITION)
            return
        if not self._requeued:
            self._note("", "no usable path: requeuing I/O")
        self._requeued.append(io)
        self.max_queued = max(self.max_queued, len(self._requeued))

    def _kick(self) -> None:
        """Send again what waits (``nvme_requeue_work``): each finds a path,
        waits again or fails."""
        waiting, self._requeued = self._requeued, deque()
        for io in waiting:
            self._dispatch(io)

    # -- path loss ----------------------------------------------------------------------------

    def rport_changed(self, path: AnaPath, state: str) -> None:
        """*path*'s remote port entered *state*: blocked (the controller is
        reset: its commands are terminated and fail over), fail-fast or lost
        (it can no longer come back soon), online (live again)."""
        self._note(path.name, f"remote port {state}")
        if self.current is path and state != ONLINE:
            self.current = None
        if state == BLOCKED:
            path.failures += 1
            path.initiator.terminate(path.d_id, HOST_ABORTED)
        self._kick()

    def association_changed(self, path: AnaPath, state: str) -> None:
        """*path*'s association entered *state* (resetting, connecting, live,
        lost: :class:`~fcsim.fc4.nvme_initiator.NvmeInitiator`): while it is
        not live no command is sent down it; when it is, or can no longer come
        back, the commands waiting at the head go again (each finds a path,
        waits or fails). Before the path's first connection there is nothing
        to do."""
        if not path.connected:
            return
        self._note(path.name, f"controller {state}")
        if path.live:
            self._kick()
            return
        if self.current is path:
            self.current = None
        if not path.available:
            self._kick()

    # -- results ------------------------------------------------------------------------------

    def reset_stats(self) -> None:
        """Start a new measured interval (the events are kept: a timeline)."""
        self.ios = self.failovers = self.failed_ios = self.max_queued = 0
        for path in self.paths:
            path.reset_stats()

    def results(self) -> dict[str, Any]:
        """The head's and each path's figures and the events."""
        return {
            "iopolicy": self.iopolicy, "ios": self.ios, "failovers": self.failovers,
            "failed_ios": self.failed_ios, "max_queued": self.max_queued,
            "paths": {p.name: {"local": p.local, "remote": p.remote, "ana_state": p.ana_state,
                               "live": p.live, "ios": p.ios, "bytes": p.bytes,
                               "errors": p.errors, "failures": p.failures}
                      for p in self.paths},
            "events": [{"time_s": t, "path": s, "event": e} for t, s, e in self.events],
        }
