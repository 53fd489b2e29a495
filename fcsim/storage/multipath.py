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
and ``DM_ENDIO_REQUEUE``): every error here is one (DID_TRANSPORT_FAILFAST
and DID_TRANSPORT_MARGINAL are BLK_STS_TRANSPORT; DID_TIME_OUT, DID_ERROR,
DID_NO_CONNECT and a SCSI status other than GOOD, such as the TASK SET FULL
of a command sd gave up after its runtime limit, BLK_STS_IOERR;
:func:`~fcsim.fc4.fcp.blk_status`). The transport
fails a blocked remote port's I/O at fast_io_fail_tmo (or at dev_loss_tmo),
which fails the path then. An unanswered command is retried on its path as
sd retries it (dm-mpath's REQ_FAILFAST_TRANSPORT does not stop the retry of
a DID_TIME_OUT: ``scsi_noretry_cmd``), so it fails the path only once its
retries are used up, (1 + SD_MAX_RETRIES) x (the timeout and its abort)
after it was first sent; to a marginal remote port it is not retried after
its abort (DID_TRANSPORT_MARGINAL; :class:`~fcsim.fc4.fcp_initiator.FcpInitiator`).
With no usable path, requests fail at once (``no_path_retry fail``), wait for a
path (``queue``), or wait for *n* path checks and then fail.

multipathd's path checker (``path_checker tur``, multipath-tools'
``libmultipath/checkers/tur.c`` and ``multipathd/main.c``'s ``check_path``)
checks each path in turn: it sends a TEST UNIT READY down the path, a real
SCSI command the target answers (:meth:`PathDevice.test_unit_ready`). A
path whose TUR is answered GOOD is up: a failed one is reinstated (dm's
``reinstate_path``); a path whose TUR fails, or is not answered within
``checker_timeout`` (tur.c's PATH_TIMEOUT: multipathd's checker loop,
which runs once a second, ``checker_tick``, finds it timed out at its first
run after the timeout, :func:`first_tick_after`), is down: an active one is failed
(``fail_path``), so new I/O goes to the other paths while the commands in
flight on it end as sd's retries decide. tur.c sends its TUR again after an
error it takes for the HBA's (:data:`TUR_FINAL_HOSTS`, :data:`TUR_TRIES`),
and a check that finds the last check's TUR still outstanding sends a new
one beside it once, then finds the path down without one
(:data:`MAX_NR_TIMEOUTS`). A path whose remote port is
fail-fast or lost is down without a TUR (multipathd reads the SCSI device's
state first, ``path_offline``: transport-offline); a blocked one is pending,
looked at again at the checker loop's next run, a tick later. A
healthy path is checked ``polling_interval`` after it was made (its first
check was the map's discovery, pathinfo's DI_CHECKER) and then at intervals
doubling from there up to ``max_polling_interval``; a path whose state
changed, and a failed one, are checked every ``polling_interval``; when dm
fails a path for an I/O error its next check is brought within a
``polling_interval`` (``update_multipath``). The next check is counted from
the end of the last (its answer, or the loop's run that found its TUR timed
out). A path whose remote port was lost (dev_loss_tmo) comes back as
soon as the port does, as multipathd re-adds a new path device on its uevent.
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

import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fc2.els_payload import port_name as wwpn
from fcsim.fc2.fpin import Descriptor, LinkIntegrity
from fcsim.fc4.fcp import (
    BLK_STS_IOERR,
    BLK_STS_TRANSPORT,
    DID_NO_CONNECT,
    DID_TRANSPORT_FAILFAST,
    GOOD,
    blk_status,
)
from fcsim.fc4.fcp_initiator import DEFAULT_TIMEOUT
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
the command up, not the target."""
HOST_BYTE_MASK = 0xFF << 16
"""The host byte of a completion status."""
TUR_TRIES = 5
"""How often tur.c's ``tur_check`` sends its TEST UNIT READY while the
completion carries a host byte it takes for the HBA's error
(``retry_tur = 5``, "Driver error, retry")."""
MAX_NR_TIMEOUTS = 1
"""How many checks in a row tur.c starts a new TUR beside the last one still
outstanding (its thread not responding) before it finds the path down
without one (``libcheck_check``: PATH_TIMEOUT once ``nr_timeouts`` exceeds
MAX_NR_TIMEOUTS, 1)."""
TUR_FINAL_HOSTS = frozenset({GOOD, DID_NO_CONNECT, DID_TRANSPORT_FAILFAST})
"""The host bytes with which tur.c takes a TUR's completion as it is
(DID_OK, DID_NO_CONNECT, DID_TRANSPORT_FAILFAST; DID_BAD_TARGET and
DID_ABORT too, which no command here ends with); any other (DID_TIME_OUT
after an abort, DID_ERROR, DID_TRANSPORT_MARGINAL) sends it again."""
PATH_ERRORS = frozenset({BLK_STS_TRANSPORT, BLK_STS_IOERR})
"""The block statuses dm-multipath takes for a path's error (Linux
``blk_path_error``: every status but NOTSUPP, NOSPC, TARGET, RESV_CONFLICT,
MEDIUM and PROTECTION, none of which a request here ends with)."""
ALUA_OPTIMISED = 50
ALUA_NON_OPTIMISED = 10
"""Path priorities of multipath-tools' ``alua`` prioritizer for a target port
group in the active/optimised and active/non-optimised states."""

ACTIVE = "active"
FAILED = "failed"


def first_tick_after(span: float, tick: float) -> float:
    """How long after a run of multipathd's checker loop, which runs every
    *tick* s, its first run later than *span* s comes, s: tur.c's async
    checker finds its TUR timed out at the first run whose whole seconds
    exceed those of its start plus the timeout (``tur_check_async_timeout``:
    ``now.tv_sec > ct->time``, ``ct->time`` the start's ``tv_sec`` plus
    ``checker_timeout``), runs a whole number of ticks apart. (The quotient is
    rounded up by 1e-9 so that a span of a whole number of ticks in decimal,
    3 ms of 1 ms ticks, is not taken for a hair less.)"""
    return (math.floor(span / tick + 1e-9) + 1) * tick


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

    def test_unit_ready(self, done: Callable[[int], None], timeout: float) -> None:
        """TEST UNIT READY down the path with a command timeout of *timeout*
        s; *done(status)* when it completes."""


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
        self.checks = 0  # advanced at each check scheduled: an older one does nothing
        self.checkint = 0.0  # the interval to its next check, s (multipathd's checkint)
        self.next_check = float("inf")  # when its next check is due, s
        self.testing = 0  # its TUR awaited (a number advanced at each): 0 none
        self.tur_outstanding = False  # the last check's TUR is not yet completed
        self.tur_round = 0  # the check whose TUR the checker's thread sent last
        self.tur_tries = 0  # TURs sent for the check in progress (tur.c's tries)
        self.stalls = 0  # checks in a row that found the last TUR outstanding (nr_timeouts)
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
    *config* (its checker_timeout None: Linux sd's timeout); a block device
    for a request queue (``login``, ``submit``).
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
        timeout = DEFAULT_TIMEOUT if config.checker_timeout is None else config.checker_timeout
        self._tur_timeout = timeout  # SG_IO's, tur.c's io_hdr.timeout
        self._tur_noticed = first_tick_after(timeout, config.checker_tick)
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
            path.checkint = self.config.polling_interval
            self._schedule(path, path.checkint)
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
        if blk_status(status) in PATH_ERRORS:
            path.errors += 1
            self._fail(path, f"I/O error {status >> 16:#04x}" if status >= HOST_BYTE
                       else f"I/O error, SCSI status {status:#04x}")
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
        """dm fails *path* (an I/O error, its remote port, or the checker); its
        next check comes within a polling interval (``update_multipath``)."""
        if path.state == FAILED:
            return
        path.state = FAILED
        path.failures += 1
        self._note(path.name, f"failed ({why})")
        interval = self.config.polling_interval
        path.checkint = interval
        if path.logged_in and not path.testing and path.next_check > self.sim.now + interval:
            self._schedule(path, interval)

    def _schedule(self, path: Path, delay: float) -> None:
        """*path*'s next check *delay* s from now (and no other)."""
        path.checks += 1
        path.next_check = self.sim.now + delay
        self.sim.call_later(delay, self._check, (path, path.checks))

    def _check(self, value: tuple[Path, int]) -> None:
        """multipathd's checker on *path*: down without a TUR if its remote port
        is fail-fast or lost (the SCSI device transport-offline), pending while
        it is blocked (looked at again at the checker's next tick), else a TEST
        UNIT READY down it. When the last check's TUR is still outstanding
        (tur.c: its thread not responding) a new one is sent beside it, once:
        the next check that finds that one outstanding too finds the path down
        without a TUR (:data:`MAX_NR_TIMEOUTS`)."""
        path, round_ = value
        if round_ != path.checks:
            return
        state = ONLINE if path.rport is None else path.rport.state
        if state in (FAIL_FAST, LOST):
            self._checked(path, False, f"path checker: remote port {state}")
        elif state not in (ONLINE, MARGINAL):  # blocked: PATH_PENDING, at the next tick
            self._schedule(path, self.config.checker_tick)
        elif path.tur_outstanding and path.stalls >= MAX_NR_TIMEOUTS:
            self._checked(path, False, "path checker: TUR outstanding")
        else:
            path.stalls = path.stalls + 1 if path.tur_outstanding else 0
            path.testing = path.checks
            path.tur_tries = 0
            path.next_check = float("inf")
            self._send_tur(path, round_)
            self.sim.call_later(self._tur_noticed, self._timed_out, (path, round_))

    def _send_tur(self, path: Path, round_: int) -> None:
        """The TUR of check *round_* down *path* (again): the checker's thread
        is this check's from now (a TUR of an earlier check still outstanding
        is left to itself)."""
        path.tur_outstanding = True
        path.tur_round = round_
        path.tur_tries += 1
        path.device.test_unit_ready(lambda status: self._answered(path, round_, status),
                                    self._tur_timeout)

    def _answered(self, path: Path, round_: int, status: int) -> None:
        """*path*'s TUR of check *round_* completed with *status*: sent again
        after an HBA's error while tur.c has tries left, else the check's
        answer (if the check is still waiting for it)."""
        if round_ == path.tur_round:
            path.tur_outstanding = False
        if path.testing == round_:
            if status & HOST_BYTE_MASK not in TUR_FINAL_HOSTS and path.tur_tries < TUR_TRIES:
                self._send_tur(path, round_)
                return
            path.testing = 0
            self._checked(path, status == GOOD,
                          "path checker" if status == GOOD
                          else f"path checker: TUR status {status:#x}")

    def _timed_out(self, value: tuple[Path, int]) -> None:
        """The checker loop's first run after checker_timeout from the sending
        of the TUR of check *round_*: unanswered, the path is down (tur.c's
        PATH_TIMEOUT)."""
        path, round_ = value
        if path.testing == round_:
            path.testing = 0
            self._checked(path, False, "path checker: TUR timed out")

    def _checked(self, path: Path, up: bool, why: str) -> None:
        """A check found *path* up or down: reinstate or fail it, and schedule
        the next check (``check_path``: a polling interval after a change or
        while down, doubling up to max_polling_interval while up)."""
        interval = self.config.polling_interval
        if up and path.state == FAILED:
            path.checkint = interval
            self._reinstate(path, why)
        elif up:
            most = self.config.max_checkint
            path.checkint = 2 * path.checkint if path.checkint < most / 2 else most
        else:
            path.checkint = interval
            path.next_check = self.sim.now  # this check schedules the next
            self._fail(path, why)
        self._schedule(path, path.checkint)

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

