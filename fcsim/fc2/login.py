"""Service parameters exchanged at login (FLOGI / PLOGI).

Each N_Port announces what it can receive; after login its peer sends within
those limits. Defaults are typical values for HBAs of the FC-PH era and later;
every one can be set per port in a scenario.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.fc2.receive_drain import DrainSpec

R_A_TOV = 10.0
"""Resource_Allocation timeout, s: FC-PH's default, 10 s."""
LOGIN_BB_CREDIT = 1
"""BB credit a port has towards its link peer before a Fabric Login tells it
the peer's receive buffers, frames: FC-FS's default BB_Credit of one, with
which an N_Port sends its FLOGI; the LS_ACC's common service parameters then
give the F_Port's (the clause of FC-FS-5 was not re-read for this model)."""
ELS_TIMEOUT = 2 * R_A_TOV
"""How long an N_Port waits for the reply to a login before it asks again, s:
2 x R_A_TOV, the ELS timeout of FC-LS that Linux lpfc uses."""


@dataclass(frozen=True, slots=True)
class ServiceParameters:
    """What one N_Port offers its login peers.

    *bb_credit*: receive buffers offered to the link peer (FC-PH common service
    parameters); devices typically offer 2-16 (Brocade FOS guide).
    *rx_data_field*: largest data field it accepts, bytes (256..2112).
    *ee_credit*: frames of Class 1/2 a peer may have unacknowledged (class
    service parameters).
    *classes*: classes of service it supports.
    *concurrent_sequences*: sequences it can receive at once; a new sequence
    beyond this is answered P_BSY (Class 2) or discarded (Class 3).
    *busy_retry*: mean delay before a sequence answered F_BSY/P_BSY is sent
    again, s; FC-PH leaves the delay to the implementation. Each retry waits a
    uniformly drawn 0.5-1.5 times this, doubled for each further busy of the
    same sequence (up to 256 times), so that contending ports drift apart.
    *e_d_tov*: error-detect timeout, s (FC-PH default 2 s): a Class 1/2 sequence
    whose ACKs have not all arrived this long after its last frame is aborted.
    *rx_frame_time*: time the port needs to process a received frame before its
    buffer is free again, s (0 = at once). *drain*: how its receive path frees
    its buffers (:class:`~fcsim.fc2.receive_drain.DrainSpec`; None: each after
    *rx_frame_time*); neither is sent at login. *bb_sc_n*: the BB_SC_N it
    offers (0: no BB credit recovery; 1..15: a checkpoint every 2^n frames
    and R_RDYs, :mod:`fcsim.fc2.credit_recovery`).
    """

    bb_credit: int = 16
    rx_data_field: int = MAX_DATA_FIELD
    ee_credit: int = 16
    classes: frozenset[int] = field(default_factory=lambda: frozenset({1, 2, 3}))
    concurrent_sequences: int = 255
    busy_retry: float = 1e-3
    e_d_tov: float = 2.0
    rx_frame_time: float = 0.0
    drain: DrainSpec | None = None
    bb_sc_n: int = 0

    def __post_init__(self) -> None:
        if self.bb_credit < 1:
            raise ValueError(f"bb_credit must be >= 1, got {self.bb_credit}")
        if not 256 <= self.rx_data_field <= MAX_DATA_FIELD:
            raise ValueError(
                f"rx_data_field must be 256..{MAX_DATA_FIELD}, got {self.rx_data_field}")
        if self.ee_credit < 1:
            raise ValueError(f"ee_credit must be >= 1, got {self.ee_credit}")
        if not self.classes or not self.classes <= {1, 2, 3}:
            raise ValueError(
                f"classes must be a non-empty subset of {{1, 2, 3}}, got {set(self.classes)}")
        if self.concurrent_sequences < 1:
            raise ValueError(f"concurrent_sequences must be >= 1, got {self.concurrent_sequences}")
        if not 0 <= self.bb_sc_n <= 15:
            raise ValueError(f"bb_sc_n must be 0..15, got {self.bb_sc_n}")
        if self.busy_retry <= 0 or self.e_d_tov <= 0 or self.rx_frame_time < 0:
            raise ValueError("busy_retry and e_d_tov must be > 0 s, rx_frame_time >= 0 s")


@dataclass(slots=True)
class PeerLogin:
    """What an N_Port learned about one peer at PLOGI, and the live EE credit.

    *max_data_field*: largest data field it may send to the peer, bytes.
    """

    port_id: int
    max_data_field: int
    ee_credit_login: int
    classes: frozenset[int]
    ee_credit: int = 0

    def __post_init__(self) -> None:
        self.ee_credit = self.ee_credit_login


class NodeSpec(Protocol):
    """What a builder reads of an N_Port to build: its *name*, the N_Port ID
    it asks for (*port_id*; None: the topology gives it one) and its login
    service parameters (*params*). A scenario's node tables are such."""

    @property
    def name(self) -> str: ...
    @property
    def port_id(self) -> int | None: ...
    @property
    def params(self) -> ServiceParameters: ...
