"""A remote port as Linux's FC transport keeps it for a path of a multipath
device (``drivers/scsi/scsi_transport_fc.c``, ``struct fc_rport``).

When the local N_Port's link goes down, the HBA driver deletes the remote
ports it reached (``fc_remote_port_delete``): each is *blocked*, its I/O held
in the SCSI queue, and two timers start. After ``fast_io_fail_tmo`` the
transport fails the I/O outstanding and held (``fc_timeout_fail_rport_io``,
host byte DID_TRANSPORT_FAILFAST) and fails new I/O at once; after
``dev_loss_tmo`` the remote port is removed with its SCSI devices
(``fc_timeout_deleted_rport``), failing what is left. When the link is up
again and the port has logged in, the remote port is *online* again
(``fc_remote_port_add``). A ``fast_io_fail_tmo`` of None (multipath.conf's
``off``), or not shorter than ``dev_loss_tmo``, leaves the I/O held until
``dev_loss_tmo``.

The SCSI layer follows the remote port (:func:`scsi_io`): while it is
blocked its commands wait and those outstanding do not time out
(``fc_eh_timed_out``), none using a retry; at fast_io_fail_tmo they fail with
DID_TRANSPORT_FAILFAST, at dev_loss_tmo with DID_NO_CONNECT (the SCSI device
is gone), and so does each new one until the port is back (the default
fast_io_fail_tmo of scsi_transport_fc is off: -1). A multipath device follows
it too (:meth:`fcsim.storage.multipath.Multipath.watch`), and makes it
*marginal* when it makes the path marginal on an FPIN (multipathd writes
"Marginal" to the port's ``port_state``): a timed-out command of a multipath
path to it is then not retried after its abort (``fc_eh_should_retry_cmd``).
It is online again once the local link has gone down and come back.

The remote port watches the local N_Port's link control (built with link
recovery in a run with faults); in a run without faults the link never goes
down and the remote port stays online. The loss of the remote N_Port's own
link (which the host learns by RSCN) is not followed here: commands to it go
unanswered and the SCSI command timeout handles them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fc2.port_states import AC, DOWN
from fcsim.fc4.fcp import DID_NO_CONNECT, DID_TRANSPORT_FAILFAST

ONLINE = "online"
MARGINAL = "marginal"
BLOCKED = "blocked"
FAIL_FAST = "fail-fast"
LOST = "lost"
"""The states of a remote port: online, marginal (online, but multipathd
found it marginal: FC_PORTSTATE_MARGINAL), blocked (I/O held), fail-fast
(fast_io_fail_tmo passed: I/O failed), lost (dev_loss_tmo passed: removed)."""


Listener = Callable[["RemotePort", str], None]
"""Told of each change of a remote port: called with the port and its new state."""


class RemotePort:
    """The remote port a host reaches through the local N_Port *nport*: its
    *state*, changed when the local link goes down and comes back and when
    *fast_io_fail_tmo* (s, None: off) and *dev_loss_tmo* (s) expire; each of
    its :attr:`listeners` (first *on_change*, if given) is told of each
    change, in order."""

    def __init__(self, sim: Simulation, nport: Any, fast_io_fail_tmo: float | None,
                 dev_loss_tmo: float, on_change: Listener | None = None) -> None:
        self.sim = sim
        self.fast_io_fail_tmo, self.dev_loss_tmo = fast_io_fail_tmo, dev_loss_tmo
        self.listeners: list[Listener] = [] if on_change is None else [on_change]
        self.state = ONLINE
        self.blocked_at: float | None = None
        self._episode = 0
        lcf = getattr(nport.port, "lcf", None)  # a port built with link recovery
        if lcf is not None:
            lcf.listeners.append(self._link_changed)

    def _link_changed(self, lcf: object, old: str, new: str, reason: str) -> None:
        if new in DOWN and self.state in (ONLINE, MARGINAL):
            self._block()
        elif new == AC and self.state not in (ONLINE, MARGINAL):
            self._episode += 1
            self._enter(ONLINE)

    def mark_marginal(self) -> None:
        """multipathd marks the port marginal (``fpin_set_rport_marginal``
        writes "Marginal" to its ``port_state``), if it is online; it is
        online again once its link has gone down and come back."""
        if self.state == ONLINE:
            self._enter(MARGINAL)

    def _block(self) -> None:
        self._episode += 1
        episode = self._episode
        self.blocked_at = self.sim.now
        fast = self.fast_io_fail_tmo
        if fast is not None and fast < self.dev_loss_tmo:
            self.sim.call_later(fast, self._expired, (episode, FAIL_FAST))
        self.sim.call_later(self.dev_loss_tmo, self._expired, (episode, LOST))
        self._enter(BLOCKED)

    def _expired(self, value: tuple[int, str]) -> None:
        episode, state = value
        if episode == self._episode:
            self._enter(state)

    def _enter(self, state: str) -> None:
        self.state = state
        for listener in self.listeners:
            listener(self, state)


class TransportIo(Protocol):
    """What the FC transport does to a SCSI initiator's commands to one remote
    port (:class:`~fcsim.fc4.fcp_initiator.FcpInitiator`)."""

    def block(self, d_id: int) -> None:
        """Hold the commands to N_Port *d_id*."""

    def unblock(self, d_id: int) -> None:
        """Send what was held for *d_id*; new commands go."""

    def mark_marginal(self, d_id: int) -> None:
        """The remote port at *d_id* is marginal."""

    def fail_port(self, d_id: int, status: int) -> int:
        """Fail every command to *d_id* with *status*, now and as they come."""


def scsi_io(initiator: TransportIo, d_id: int) -> Listener:
    """A listener that applies a remote port's states to *initiator*'s
    commands to N_Port *d_id*: marginal, marked so; blocked, held; fail-fast, failed with
    DID_TRANSPORT_FAILFAST (``fc_timeout_fail_rport_io``); lost, failed with
    DID_NO_CONNECT (``fc_timeout_deleted_rport``; ``fc_remote_port_chkready``
    for new ones); online, sent."""
    def changed(_port: RemotePort, state: str) -> None:
        if state == BLOCKED:
            initiator.block(d_id)
        elif state == ONLINE:
            initiator.unblock(d_id)
        elif state == MARGINAL:
            initiator.mark_marginal(d_id)
        else:
            initiator.fail_port(d_id, DID_TRANSPORT_FAILFAST if state == FAIL_FAST
                                else DID_NO_CONNECT)
    return changed
