"""Read Exchange Concise (REC, FC-LS ELS 0x13): how an exchange's originator
asks its responder what the responder knows of it, the first step of
sequence level error recovery (FCP-4, FC-NVMe-2).

- REC request, 12 bytes (Linux ``struct fc_els_rec``): the command word, the
  originator's N_Port ID, the OX_ID and RX_ID of the exchange asked about.
- LS_ACC, 24 bytes (``struct fc_els_rec_acc``): OX_ID and RX_ID, the
  originator's and responder's N_Port IDs, the FC-4 value (for FCP and
  FC-NVMe the data bytes the responder has received or sent in the exchange)
  and E_STAT, the exchange status bits of the responder's Exchange Status
  Block (FC-FS; Linux ``fc_fs.h``: ``ESB_ST_RESP`` bit 31, the responder;
  ``ESB_ST_SEQ_INIT`` bit 30, it holds the sequence initiative;
  ``ESB_ST_COMPLETE`` bit 29, it has ended the exchange).
- LS_RJT, 8 bytes, when the responder does not know the exchange: reason
  0x09 (unable to perform command request), explanation 0x17 (invalid OX_ID
  - RX_ID combination, ``ELS_EXPL_OXID_RXID``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from fcsim.fc2 import els
from fcsim.fc2.sequence import Exchange

ELS_REC = 0x13
"""Read Exchange Concise command code (FC-LS; Linux ``ELS_REC``)."""
REC_SIZE = 12
"""REC request, bytes."""
REC_ACC_SIZE = 24
"""LS_ACC of a REC, bytes."""
LS_RJT_SIZE = 8
"""LS_RJT, bytes (command word, reason, explanation, vendor)."""
EXPLANATION_OX_RX_ID = 0x17
"""LS_RJT explanation: invalid OX_ID - RX_ID combination."""
ESB_RESPONDER = 1 << 31
ESB_SEQUENCE_INITIATIVE = 1 << 30
ESB_COMPLETE = 1 << 29


@dataclass(frozen=True)
class Rec:
    """A REC asking about *exchange* (the originator's)."""

    exchange: Exchange


@dataclass(frozen=True)
class RecAnswer:
    """The answer to a REC about *exchange*: *known* (LS_ACC) or not (LS_RJT);
    *count*: the data bytes the responder has received (a write) or sent (a
    read) in it; *initiative*: the responder holds the sequence initiative
    (it is to send next); *complete*: it has sent its last sequence."""

    exchange: Exchange
    known: bool
    count: int = 0
    initiative: bool = False
    complete: bool = False

    @property
    def size(self) -> int:
        """Bytes of the answer: an LS_ACC or an LS_RJT."""
        return REC_ACC_SIZE if self.known else LS_RJT_SIZE


def rec_bytes(rec: Rec, originator_id: int) -> bytes:
    """The REC request's payload."""
    exchange = rec.exchange
    return struct.pack(">BxxxIHH", ELS_REC, originator_id & 0xFFFFFF, exchange.ox_id,
                       exchange.rx_id & 0xFFFF)


def answer_bytes(answer: RecAnswer, originator_id: int, responder_id: int) -> bytes:
    """The LS_ACC or LS_RJT answering a REC."""
    if not answer.known:
        return struct.pack(">BxxxxBBx", els.ELS_LS_RJT, els.LS_RJT_UNABLE,
                           EXPLANATION_OX_RX_ID)
    status = (ESB_RESPONDER | (ESB_SEQUENCE_INITIATIVE if answer.initiative else 0)
              | (ESB_COMPLETE if answer.complete else 0))
    exchange = answer.exchange
    return struct.pack(">BxxxHHIIII", els.ELS_ACC, exchange.ox_id, exchange.rx_id & 0xFFFF,
                       originator_id & 0xFFFFFF, responder_id & 0xFFFFFF, answer.count,
                       status)
