"""Class 1 connections of an N_Port.

The first frame of a Class 1 sequence (SOFc1) asks for a dedicated connection
and nothing more is sent until its ACK returns. While connected, the two ports
exchange only Class 1 frames, with EE credit alone; a frame of another class
or a connect request from a third port is answered P_BSY (Class 3: discarded).
The last frame of a sequence sets End_Connection when its sender has no more
Class 1 traffic for the peer; the recipient answers with an ACK ended by EOFdt,
which removes the connection, unless it still has Class 1 traffic of its own.
Two ports that ask each other at once: the request of the lower N_Port ID wins;
a port whose own request is pending accepts one from a third port.

A connection on which no Class 1 frame has moved for E_D_TOV is removed at
both ends (recovery when a removal request or its answer is lost to a
transmission error; FC-PH would use Link Reset).
"""

from __future__ import annotations

from fcsim.fc2.sequence import Sequence

PENDING, ESTABLISHED, CLOSING = "pending", "established", "closing"
"""The states of a connection: asked for, made, asked to end."""


class Connection:
    """A Class 1 connection of this port with *peer_id*, in *state*.

    *request* is the sequence whose connect (SOFc1) or End_Connection frame
    awaits its answer, if any; *last_activity* the time a Class 1 frame was
    last sent or received on it, s.
    """

    __slots__ = ("peer_id", "state", "request", "last_activity")

    def __init__(self, peer_id: int, state: str, request: Sequence | None = None) -> None:
        self.peer_id = peer_id
        self.state = state
        self.request = request
        self.last_activity = 0.0


class Connections:
    """The Class 1 connection handling of :class:`~fcsim.fc2.nport.NPort`, whose
    state it works on (:attr:`connection`, the ready queue, the timers)."""

    def _class1_pending(self, d_id: int, other_than: Sequence | None = None) -> bool:
        """True if a Class 1 sequence for *d_id* besides *other_than* waits to be sent."""
        return any(s.cls == 1 and s.d_id == d_id and s is not other_than for s in self._ready)

    def _request_answered(self, conn: Connection, refused: bool) -> None:
        """The pending connect or removal request of *conn* got its answer."""
        conn.request = None
        if conn.state == PENDING:
            if refused:
                self.connection = None
            else:
                conn.state = ESTABLISHED
                self.stats.connections += 1
                self._watch_connection(conn)
        elif conn.state == CLOSING:
            conn.state = ESTABLISHED  # the peer kept the connection

    def _watch_connection(self, conn: Connection) -> None:
        """Check *conn* for idleness E_D_TOV after its last activity."""
        conn.last_activity = self.sim.now
        self.sim.call_later(self.params.e_d_tov, self._connection_idle, conn)

    def _connection_idle(self, conn: Connection) -> None:
        """Remove a connection idle for E_D_TOV with no request pending.

        Normal removal is by EOFdt; this recovers from a removal request or its
        answer lost to a transmission error (FC-PH would use Link Reset), and
        both ends apply it alike.
        """
        if self.connection is not conn:
            return
        e_d_tov = self.params.e_d_tov
        idle = self.sim.now - conn.last_activity
        if conn.request is None and idle >= e_d_tov * (1 - 1e-9):
            self.connection = None
            self.port.kick()
        else:
            self.sim.call_later(e_d_tov - idle if idle < e_d_tov else e_d_tov,
                                self._connection_idle, conn)
