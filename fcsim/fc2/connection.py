"""Class 1 connections of an N_Port: what one holds (the N_Port makes, keeps
and removes them, :class:`~fcsim.fc2.nport.NPort`).

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

