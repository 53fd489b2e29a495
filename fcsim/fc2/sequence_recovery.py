"""Recovery of Class 1 and 2 sequences that lose a frame, in a run with faults.

FC-FS leaves a lost frame to the exchange error policy its originator chose;
fcsim's N_Ports use "abort, discard a single sequence" (F_CTL exchange
error policy 01), the policy FCP-2 asks for, and send the aborted sequence
again as the upper level's retry (:data:`MAX_RETRANSMISSIONS` times, an
assumption; FC-FS leaves retransmission to the upper level):

- Detection. The recipient of a Class 1 or 2 sequence finds a gap in its
  SEQ_CNTs (a frame lost before the one that arrived) and answers that
  frame's ACK with the Abort Sequence Condition set to 01, "abort the
  sequence, perform ABTS" (FC-FS F_CTL bits 5-4): the N_Port's receive path
  looks for the gap once this recovery is its :class:`~fcsim.fc2.nport.SequenceErrorPolicy`
  (:meth:`~fcsim.fc2.nport.NPort.recover_sequences`). A frame
  lost at the end of a sequence, or every ACK after it, is found by the
  initiator's ACK timeout: E_D_TOV without an answer (``NPort._watchdog``).
- ABTS. The initiator stops sending the sequence and sends ABTS (a basic
  link service, R_CTL 0x81) in the same exchange; the recipient discards
  what it holds of the sequence (counted incomplete) and answers BA_ACC.
  With no BA_ACC within R_A_TOV the sequence is given up as aborted.
  An ABTS whose own ACK does not come within E_D_TOV is sent again.
- Retransmission. The BA_ACC says whether the recipient had delivered the
  sequence whole (FC-FS's BA_ACC names the last deliverable sequence): then
  only ACKs were lost and the sequence is done. Otherwise the initiator
  sends it again from its first frame, as a new attempt (frames of the old
  one still on the way are refused at the recipient); its bytes count as
  retransmitted. After the last retry it is aborted for good and its sender
  told so.

Class 3 has no ACKs and no recovery at FC-2: a sequence that lost a frame
arrives incomplete and the upper layer (TCP, the SCSI initiator's command
timeout) recovers. Without faults none of this is installed and a Class 1 or
2 sequence whose ACKs stay missing for E_D_TOV is aborted, as before.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from fcsim.fc2 import header as h
from fcsim.fc2.frame import Frame
from fcsim.fc2.login import R_A_TOV
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Sequence

MAX_RETRANSMISSIONS = 3
"""Times a sequence aborted with ABTS is sent again before it is given up (an
assumption: the upper level's retry count, which FC-FS leaves open)."""


DELIVERED_KEPT = 16
"""Sequences of an exchange a recipient remembers having delivered, to tell
an ABTS for one of them (its ACKs lost) from one for a sequence it lacks."""

KEPT_FOR_R_A_TOVS = 2
"""A delivered sequence is remembered for E_D_TOV plus this many R_A_TOV:
the latest an ABTS for it can come. Its initiator's ACK timeout fires at
most E_D_TOV after the last answer it had (the ABTS then leaves), it gives
the sequence up R_A_TOV after that first ABTS, and a frame spends at most
R_A_TOV in the fabric (FC-FS: R_A_TOV is E_D_TOV plus twice the fabric's
delay), so the last ABTS arrives within E_D_TOV + 2 R_A_TOV of the delivery."""


class SequenceAbort:
    """What an ABTS or BA_ACC of this recovery carries: the aborted *sequence*,
    the *attempt* aborted and, in a BA_ACC, whether the recipient had
    *delivered* it whole (FC-FS's BA_ACC names the last deliverable sequence)."""

    __slots__ = ("sequence", "attempt", "delivered")

    def __init__(self, sequence: Sequence, attempt: int, delivered: bool = False) -> None:
        self.sequence = sequence
        self.attempt = attempt
        self.delivered = delivered


class SequenceRecovery:
    """The Class 1 and 2 sequence recovery of *nport* (its
    :class:`~fcsim.fc2.nport.SequenceErrorPolicy`, set with
    :meth:`~fcsim.fc2.nport.NPort.recover_sequences`), and what it counted:
    *gaps* (sequence count gaps it found as recipient), *aborts* (ABTS it
    sent), *retransmitted* (sequences it sent again) and *retransmitted_bytes*,
    *given_up* (sequences aborted for good)."""

    def __init__(self, nport: NPort) -> None:
        self.nport = nport
        self.gaps = self.aborts = self.retransmitted = self.retransmitted_bytes = 0
        self.given_up = 0
        self._aborting: dict[Sequence, int] = {}
        self._retries: dict[Sequence, int] = {}
        self._delivered: dict[Any, deque[Sequence]] = {}
        # every delivery remembered, in time order: (time, exchange, sequence)
        self._deliveries: deque[tuple[float, Any, Sequence]] = deque()
        self._kept_for = nport.params.e_d_tov + KEPT_FOR_R_A_TOVS * R_A_TOV

    # -- as recipient ------------------------------------------------------------

    def gap(self, frame: Frame) -> None:
        """The N_Port answered a data frame past a gap in its sequence's count
        with an ACK asking for ABTS."""
        self.gaps += 1

    def received(self, seq: Sequence, time: float) -> bool:
        """A whole sequence: an ABTS or BA_ACC of this recovery (taken: True),
        or the upper layers' (remembered if Class 1 or 2)."""
        abort = seq.ulp
        if isinstance(abort, SequenceAbort) and seq.r_ctl == h.R_CTL_ABTS:
            nport = self.nport
            target = abort.sequence
            nport.abandon(target)
            delivered = target in self._delivered.get(target.exchange, ())
            nport.send(seq.exchange, h.BA_ACC_SIZE, seq.cls, r_ctl=h.R_CTL_BA_ACC,
                       type_=h.TYPE_BLS, ulp=SequenceAbort(target, abort.attempt, delivered))
            return True
        if isinstance(abort, SequenceAbort) and seq.r_ctl == h.R_CTL_BA_ACC:
            self._accepted(abort)
            return True
        if seq.cls != 3:
            self._remember(seq)
        return False

    def _remember(self, seq: Sequence) -> None:
        """Remember *seq* as delivered (at most :data:`DELIVERED_KEPT` of its
        exchange), and forget the deliveries no ABTS can ask about any more
        (:data:`KEPT_FOR_R_A_TOVS`), with their exchanges once none is left."""
        now = self.nport.sim.now
        deliveries = self._deliveries
        cutoff = now - self._kept_for
        while deliveries and deliveries[0][0] < cutoff:
            _, exchange, old = deliveries.popleft()
            kept = self._delivered.get(exchange)
            if kept and kept[0] is old:  # else pushed out by later ones of its exchange
                kept.popleft()
                if not kept:
                    del self._delivered[exchange]
        self._delivered.setdefault(seq.exchange, deque(maxlen=DELIVERED_KEPT)).append(seq)
        deliveries.append((now, seq.exchange, seq))

    @property
    def remembered(self) -> int:
        """Delivered sequences remembered now, to answer an ABTS for one of them."""
        return sum(len(kept) for kept in self._delivered.values())

    # -- as initiator ------------------------------------------------------------

    def answered(self, frame: Frame) -> None:
        """An ACK asking for ABTS answered one of our frames: the ABTS starts,
        if it answers the open attempt."""
        data: Frame = frame.answers  # type: ignore[assignment]
        seq: Sequence = data.sequence
        if data.attempt == seq.attempt and seq.status == "open":
            self._abort(seq)

    def completed(self, seq: Sequence, status: str) -> None:
        """FC-2 is done with *seq*: an ACK timeout's abort becomes an ABTS; an
        ABTS whose own ACK timed out is sent again."""
        abort = seq.ulp
        if isinstance(abort, SequenceAbort):
            self.nport.complete(seq, status)
            target = abort.sequence
            if (status == "aborted" and seq.r_ctl == h.R_CTL_ABTS
                    and self._aborting.get(target) == abort.attempt):
                del self._aborting[target]
                self._abort(target)
        elif status == "aborted" and seq.cls != 3 and seq not in self._aborting:
            self._abort(seq)
        else:
            self.nport.complete(seq, status)

    def _abort(self, seq: Sequence) -> None:
        """Abort the current attempt of *seq* with ABTS, or give it up."""
        if seq in self._aborting:
            return
        if self._retries.get(seq, 0) >= MAX_RETRANSMISSIONS:
            self._give_up(seq)
            return
        nport = self.nport
        nport.withdraw(seq)
        seq.unanswered_old += seq.unanswered
        seq.unanswered = 0
        self._aborting[seq] = seq.attempt
        self.aborts += 1
        nport.send(seq.exchange, 0, seq.cls, r_ctl=h.R_CTL_ABTS, type_=h.TYPE_BLS,
                   ulp=SequenceAbort(seq, seq.attempt))
        nport.sim.call_later(R_A_TOV, self._no_answer, (seq, seq.attempt))

    def _accepted(self, abort: SequenceAbort) -> None:
        """BA_ACC: every answer the aborted attempts will get has come (the
        recipient answered their frames before the ABTS), so the EE credit of
        the rest comes back; send the sequence again from its first frame."""
        seq = abort.sequence
        if self._aborting.get(seq) != abort.attempt:
            return
        del self._aborting[seq]
        self.nport.peers[seq.d_id].ee_credit += seq.unanswered_old
        seq.unanswered_old = 0
        if seq.status != "open" or abort.delivered:  # ACKed late, or only its ACKs were lost
            self._retries.pop(seq, None)
            if seq.status == "open":
                self.nport.complete(seq, "acked")
            return
        self._retries[seq] = self._retries.get(seq, 0) + 1
        self.retransmitted += 1
        self.retransmitted_bytes += seq.size
        seq.attempt += 1
        seq.acked = 0
        seq.next_cnt = 0
        nport = self.nport
        nport.enqueue(seq)
        nport.port.kick()

    def _no_answer(self, value: tuple[Sequence, int]) -> None:
        """R_A_TOV after an ABTS: no BA_ACC came, the sequence is given up."""
        seq, attempt = value
        if self._aborting.get(seq) == attempt:
            del self._aborting[seq]
            self._give_up(seq)

    def _give_up(self, seq: Sequence) -> None:
        self.given_up += 1
        self._retries.pop(seq, None)
        self.nport.complete(seq, "aborted")

    @property
    def recovering(self) -> int:
        """Sequences waiting for the BA_ACC of their ABTS now."""
        return len(self._aborting)

    def results(self) -> dict[str, Any]:
        """The counters, as JSON."""
        return {"gaps_detected": self.gaps, "abts_sent": self.aborts,
                "sequences_retransmitted": self.retransmitted,
                "bytes_retransmitted": self.retransmitted_bytes, "given_up": self.given_up,
                "recovering": self.recovering}
