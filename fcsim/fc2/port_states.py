"""The port state machine of FC-FS (FC-PH 16.6) and the timers of link
recovery, each with its source.

A port is in one of the states of FC-FS's port state machine and transmits
that state's primitive sequence continuously (:data:`SENDS`): Active (AC,
Idles between frames), Link Recovery (LR1 transmits LR, LR2 LRR, LR3 Idle),
Link Failure (LF1 OLS, LF2 NOS) and Offline (OL1 OLS, OL2 LR, OL3 NOS). On
recognising a primitive sequence (:data:`RECOGNITION_WORDS` identical
ordered sets in a row) it moves as FC-FS-5 table 22 says (:func:`next_state`;
the table as the fejkon FPGA port implements it,
``ip/fc_framer/fc_state_rx.sv``). :mod:`fcsim.fc2.link_recovery` runs it.
"""

from __future__ import annotations

from fcsim.fc1 import ordered_sets as osets

R_T_TOV = 0.1
"""Receiver_Transmitter timeout, s: FC-PH's default, 100 ms (a loss of
synchronisation this long is a Link Failure)."""
PROTOCOL_TIMEOUT = R_T_TOV
"""How long a port waits in LR1, LR2, LR3 or LF1 for its peer's answer before
the Link Failure protocol, s (an assumption: R_T_TOV)."""
LOS_ASSERT = 100e-6
"""Loss of light to Loss of Signal reported, s (SFP MSA INF-8074i t_loss_on, max)."""
LOS_DEASSERT = 100e-6
"""Light back to Loss of Signal cleared, s (SFP MSA INF-8074i t_loss_off, max)."""
RECOGNITION_WORDS = 3
"""Identical ordered sets in a row that make a primitive sequence recognised (FC-FS)."""
SYNC_WORDS = 3
"""Ordered sets with a K28.5 that regain word synchronisation (FC-PH 12.1.2)."""
LOSS_OF_SYNC_CHARACTERS = 16
"""Corrupted characters (four invalid transmission words) that lose word
synchronisation (FC-PH 12.1.2)."""
OLS_MINIMUM = 5e-3
"""Least time a port in OL1 sends OLS before it acts, s (FC-PH; Seagate Fibre
Channel Interface Manual, "Offline (OLS)")."""
IDLES_ON_ENTRY = 6
"""Idles a port sends on entering Active before any frame (FC-FS-5)."""
SOF_CHARACTERS = 4
"""Characters of a start-of-frame delimiter: a frame whose SOF is corrupted is
not recognised at all, so it takes no buffer and returns no R_RDY."""

AC, LR1, LR2, LR3, LF1, LF2, OL1, OL2, OL3 = (
    "AC", "LR1", "LR2", "LR3", "LF1", "LF2", "OL1", "OL2", "OL3")
OFF = "off"
"""Not a state of FC-FS: a failed port, which sends and hears nothing."""
SENDS = {AC: osets.IDLE, LR1: osets.LR, LR2: osets.LRR, LR3: osets.IDLE, LF1: osets.OLS,
         LF2: osets.NOS, OL1: osets.OLS, OL2: osets.LR, OL3: osets.NOS}
"""The ordered set each state transmits continuously (Active: Idles between frames)."""
TIMED = (LR1, LR2, LR3, LF1)
"""States a port leaves for LF2 when its peer does not answer within
:data:`PROTOCOL_TIMEOUT`."""
FAILED = (LF1, LF2, OL1, OL2, OL3)
"""States of a link that has failed or is initialising: its logins are gone."""
DOWN = (*FAILED, OFF)
"""A failed link's states, or a failed port."""
SETTLED_DOWN = (LF2, OL1, OL2, OL3)
"""States a loss of signal or synchronisation does not move to LF2: LF2
itself and the offline states."""


def next_state(state: str, received: str) -> str:
    """The state a port in *state* enters on recognising the primitive
    sequence (or the Idles) named *received* (FC-FS-5 table 22)."""
    if received == "OLS":
        return OL2
    if received == "NOS":
        return LF1
    if received == "LR":
        return LF2 if state in (OL3, LF2) else LR2
    if received == "LRR":
        if state in (LF1, LF2, OL1):
            return state
        return LF2 if state == OL3 else LR3
    if received == "IDLE":
        if state in (LR2, LR3):
            return AC
        return OL2 if state == OL3 else state
    return state
