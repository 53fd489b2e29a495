"""What tcp_input() does with the data and FIN of an acceptable segment.

In-order data join the receive buffer, as the mbufs the driver put them in
(:mod:`~fcsim.transport.sockbuf`), with a delayed ACK, or an ACK at once by
the *ack_every* rule (Linux 2.4's rules with its window rule,
:mod:`~fcsim.transport.linux`); out-of-order data wait in the reassembly queue and are
acknowledged at once (4.4BSD's TCP_REASS macro and tcp_reass()); an in-order
FIN is acknowledged and advances the state (RFC 793 page 75).
"""

from __future__ import annotations

from fcsim.transport.segment import HEADER_BYTES
from fcsim.transport.tcb import State
from fcsim.transport.tcp_output import TcpOutput


class TcpReassembly(TcpOutput):
    """The receive side of tcp_input(): data, reassembly and FIN."""

    def _process_data(self, seq: int, length: int, fin: bool, received: int, skip: int) -> None:
        """Data *seq* .. *seq* + *length* of a segment that carried *received* bytes.

        The first *skip* of those bytes were trimmed as duplicates.
        """
        if seq == self.rcv_nxt and not self._reass and self.state is State.ESTABLISHED:
            self.rcv_nxt += length
            self.so_rcv.append_received(received, skip, length, HEADER_BYTES + self.optlen)
            if self.linux is not None and length:
                self.linux.data(length)
            self._owe_ack(length)
        else:
            fin = self._reassemble(seq, length, fin, received, seq - skip)
            self._acknow = True
        if fin:
            self._receive_fin()

    def _owe_ack(self, length: int) -> None:
        """ACK policy for in-order data: at once, every *ack_every* segments, or delayed.

        A full-sized segment carries the MSS less the options every segment
        carries (RFC 1122 4.2.2.6: the effective MSS excludes TCP options).
        """
        cfg = self.config
        if not cfg.delayed_ack:
            self._acknow = True
            return
        if self.linux is not None:
            if self.linux.ack_now(self.rcv_nxt - self.last_ack_sent,
                                  self.rcv_adv - self.last_ack_sent):
                self._acknow = True
            else:
                self._delay_ack()
            return
        if length and (not cfg.ack_full_sized_only or length >= self.mss - self.optlen):
            self._segments_unacked += 1
        if cfg.ack_every and self._segments_unacked >= cfg.ack_every:
            self._acknow = True
        else:
            self._delay_ack()

    def _reassemble(self, seq: int, length: int, fin: bool, received: int, first: int) -> bool:
        """Queue a segment and move what is now in order to the buffer; True at the FIN.

        *received* and *first* are the segment's length and first sequence
        number as it arrived: the mbufs that reach the buffer are those of the
        segment as received, less the bytes already there (tcp_reass, m_adj).
        """
        self._reass.append((seq, seq + length, fin, received, first))
        self._reass.sort()
        fin_reached = False
        while self._reass and self._reass[0][0] <= self.rcv_nxt:
            _start, end, seg_fin, seg_length, seg_first = self._reass.pop(0)
            if end > self.rcv_nxt:
                self.so_rcv.append_received(seg_length, self.rcv_nxt - seg_first,
                                            end - self.rcv_nxt, HEADER_BYTES + self.optlen)
                if self.linux is not None:
                    self.linux.data(end - self.rcv_nxt)
                self.rcv_nxt = end
            fin_reached = fin_reached or seg_fin
        return fin_reached

    def _receive_fin(self) -> None:
        """The peer's FIN is in order: ACK it and advance the state (RFC 793 page 75)."""
        if not self._fin_received:
            self._fin_received = True
            self._acknow = True
            self.rcv_nxt += 1
        if self.state in (State.SYN_RECEIVED, State.ESTABLISHED):
            self.state = State.CLOSE_WAIT
        elif self.state is State.FIN_WAIT_1:
            self.state = State.CLOSING
        elif self.state is State.FIN_WAIT_2:
            self.state = State.TIME_WAIT
            self._stop_timers()


__all__ = ["TcpReassembly"]
