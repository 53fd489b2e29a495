"""One end of a TCP connection with an event-style socket interface.

:class:`TcpEndpoint` is pure protocol logic driven by events. It never waits
and never charges time: the layer below calls :meth:`~TcpEndpoint.receive`
when a segment arrives, the endpoint calls ``transmit(segment)`` at once for
every segment it sends, and the application calls :meth:`~TcpEndpoint.write`,
:meth:`~TcpEndpoint.read` and :meth:`~TcpEndpoint.close`. A host model puts its
CPU, bus and adapter costs around these calls (delaying ``receive``, ``read``
or ``write`` calls, and what it does with a transmitted segment).

The socket calls follow 4.4BSD ``sosend()``/``soreceive()`` (uipc_socket.c):

- ``write(n, done)`` is one blocking ``send()``: it copies as much as fits in
  the send buffer now (in *sosend_chunk* pieces, each handed to tcp_output as
  a PRU_SEND), blocks while the free space is below both the rest of the write
  and SO_SNDLOWAT, resumes as ACKs free space, and calls ``done()`` once all
  *n* bytes are in the buffer (when ``send()`` would return). The free space
  is ``sbspace()``, which counts the mbufs holding the data
  (:mod:`~fcsim.transport.sockbuf`), and a piece uses it as sosend() counts.
- ``send_space(resid, ready)`` and ``pru_send(n, space, more_to_come)`` are
  the two halves of sosend()'s loop for a host that copies and hands over one
  mbuf, or one pass of the copy, at a time (:meth:`fcsim.host.sockets.Socket.send`):
  the wait for free space (at once, or when an ACK frees it), then one
  PRU_SEND of data already copied, saying whether more of the write follows.
- ``read(max_bytes, got)`` is one ``recv()``: it takes up to *max_bytes* of
  what is buffered (``got(n)``), or waits for data (``got(0)`` at end of
  stream). Each read runs tcp_output as PRU_RCVD does, which may send a
  window update.
- ``close()`` sends FIN after the buffered data (tcp_usrclosed).

Callbacks (``done``, ``got``, ``connected``) run as zero-delay events, after
the protocol processing that caused them, like a process woken by the kernel.
One write and one read may be outstanding at a time, as with blocking calls.

The connection's state is the endpoint's :attr:`~TcpEndpoint.tcb`
(:class:`~fcsim.transport.tcb.TcpControlBlock`), on which the protocol's
functions work: :func:`~fcsim.transport.tcp_input.tcp_input` for an arriving
segment, :func:`~fcsim.transport.tcp_output.tcp_output` after a socket call,
the timer routines of :mod:`~fcsim.transport.tcp_timer` when a timer expires.
"""

from __future__ import annotations

from collections.abc import Callable

from fcsim.engine.simulation import Simulation
from fcsim.transport.segment import Segment
from fcsim.transport.tcb import State, TcpControlBlock, TcpCounters
from fcsim.transport.tcp_config import TcpConfig
from fcsim.transport.tcp_input import tcp_input
from fcsim.transport.tcp_output import send_syn, tcp_output
from fcsim.transport.tcp_timer import fast_tick, persist_timeout, rexmt_timeout


class TcpEndpoint:
    """One side of a TCP connection: the socket calls (4.4BSD ``tcp_usrreq``
    and the stream socket's ``sosend``/``soreceive``) on its control block.

    Constructor: ``TcpEndpoint(sim, name, config, transmit, tick_phase=0.0)``;
    *name* is the address put in the ``src`` of every segment; *tick_phase*
    places this host's 200 ms fast clock (give each host its own phase).
    """

    def __init__(
        self,
        sim: Simulation,
        name: str,
        config: TcpConfig,
        transmit: Callable[[Segment], None],
        tick_phase: float = 0.0,
    ) -> None:
        self.sim = sim
        self.name = name
        self.config = config
        self.tcb = TcpControlBlock(sim, name, config, transmit, tick_phase,
                                   rexmt_timeout, persist_timeout, fast_tick)
        """The connection's state (its TCP control block)."""
        self.counters: TcpCounters = self.tcb.counters
        """What this endpoint has done (its control block's counters)."""
        self._writer: tuple[list[int], Callable[[], None]] | None = None
        self._reader: tuple[int, Callable[[int], None]] | None = None
        self._space_waiter: tuple[int, Callable[[int], None]] | None = None
        self._close_requested = False

    # -- connection set-up ------------------------------------------------------

    def open_active(self, peer: str, connected: Callable[[], None] | None = None) -> None:
        """connect(): send a SYN to *peer*; *connected()* once ESTABLISHED."""
        tp = self.tcb
        if tp.state is not State.CLOSED:
            raise RuntimeError(f"{self.name}: open_active in state {tp.state.value}")
        tp.peer = peer
        tp.connected = connected
        tp.state = State.SYN_SENT
        tp.snd_una = tp.iss
        tp.rtt_seq = tp.iss
        tp.rtt_start = self.sim.now
        send_syn(tp)

    def open_passive(self, connected: Callable[[], None] | None = None) -> None:
        """listen()/accept(): wait for a SYN; *connected()* once ESTABLISHED."""
        tp = self.tcb
        if tp.state is not State.CLOSED:
            raise RuntimeError(f"{self.name}: open_passive in state {tp.state.value}")
        tp.connected = connected
        tp.state = State.LISTEN

    # -- the layer below ----------------------------------------------------------

    def receive(self, segment: Segment) -> None:
        """A segment from the layer below has arrived: tcp_input, then the
        process blocked in send() or recv() may go on."""
        tcp_input(self.tcb, segment)
        self._wake_writer()
        self._wake_reader()

    # -- the application ------------------------------------------------------------

    def write(self, nbytes: int, done: Callable[[], None]) -> None:
        """send() of *nbytes*; *done()* when all of them are in the send buffer."""
        if self._writer is not None:
            raise RuntimeError(f"{self.name}: a write is already outstanding")
        if nbytes < 0:
            raise ValueError(f"{self.name}: cannot write {nbytes} bytes")
        if self._close_requested or self.tcb.state in (State.FIN_WAIT_1, State.FIN_WAIT_2,
                                                       State.CLOSING, State.LAST_ACK,
                                                       State.TIME_WAIT):
            raise RuntimeError(f"{self.name}: write after close")
        self._writer = ([nbytes], done)
        self._wake_writer()

    def send_space(self, resid: int, ready: Callable[[int], None]) -> None:
        """sosend()'s wait for room for a write with *resid* bytes left: *ready(space)*
        with sbspace(), bytes, once it is at least *resid* or SO_SNDLOWAT (at
        once if it already is; else when an arriving segment frees it)."""
        if self._writer is not None or self._space_waiter is not None:
            raise RuntimeError(f"{self.name}: a write is already outstanding")
        self._space_waiter = (resid, ready)
        self._wake_writer()

    def pru_send(self, nbytes: int, space: int, more_to_come: bool = False) -> int:
        """PRU_SEND of *nbytes* written bytes (one mbuf, or a whole pass of the
        copy): append them to the send buffer and run tcp_output. *space*:
        sosend's count of free space; returns how much of it the data use by
        that count, bytes. *more_to_come*: the write goes on after these
        bytes; with free space left that is FreeBSD's PRUS_MORETOCOME
        (``sosend()``: ``(resid > 0 && space > 0) ? PRUS_MORETOCOME : 0``),
        under which ``tcp_usr_send()`` sets TF_MORETOCOME for its tcp_output
        (:func:`~fcsim.transport.tcp_output.tcp_output` then holds a part
        segment)."""
        tp = self.tcb
        used = tp.so_snd.append_written(nbytes, space)
        self.counters.bytes_written += nbytes
        tp.more_to_come = more_to_come and space > used
        tcp_output(tp)
        tp.more_to_come = False
        return used

    def read(self, max_bytes: int, got: Callable[[int], None]) -> None:
        """recv() of up to *max_bytes*; *got(n)* with the count, 0 at end of stream."""
        if self._reader is not None:
            raise RuntimeError(f"{self.name}: a read is already outstanding")
        if max_bytes < 1:
            raise ValueError(f"{self.name}: read size must be >= 1 byte, got {max_bytes}")
        self._reader = (max_bytes, got)
        self._wake_reader()

    def close(self) -> None:
        """Close the sending direction: FIN follows the data already written."""
        self._close_requested = True
        if self._writer is None:
            self._usrclosed()

    def _usrclosed(self) -> None:
        """tcp_usrclosed(): the state change of a close, then tcp_output."""
        tp = self.tcb
        if tp.state in (State.CLOSED, State.LISTEN, State.SYN_SENT):
            tp.state = State.CLOSED
            tp.stop_timers()
            return
        if tp.state in (State.SYN_RECEIVED, State.ESTABLISHED):
            tp.state = State.FIN_WAIT_1
        elif tp.state is State.CLOSE_WAIT:
            tp.state = State.LAST_ACK
        tcp_output(tp)

    def _send_lowat(self) -> int:
        """SO_SNDLOWAT as sosend() sees it: at most the send buffer's size, bytes
        (4.4BSD-Lite2 ``sbreserve()`` lowers ``sb_lowat`` to ``sb_hiwat``, so a
        send buffer smaller than a cluster does not wait for ever)."""
        return min(self.config.send_lowat, self.config.sndbuf)

    def _wake_writer(self) -> None:
        """sosend(): copy what the rules allow; finish the write when all is copied."""
        if self._space_waiter is not None and self.tcb.state is not State.CLOSED:
            resid, ready = self._space_waiter
            space = self.tcb.so_snd.space
            if space >= resid or space >= self._send_lowat():
                self._space_waiter = None
                ready(space)
            return
        if self._writer is None or self.tcb.state is State.CLOSED:
            return
        tp = self.tcb
        remaining, done = self._writer
        chunk = self.config.sosend_chunk
        so_snd = tp.so_snd
        while remaining[0]:
            space = so_snd.space
            if space < remaining[0] and space < self._send_lowat():
                return
            while remaining[0] and space > 0:
                n = min(remaining[0], space, chunk or remaining[0])
                remaining[0] -= n
                space -= so_snd.append_written(n, space)
                self.counters.bytes_written += n
                tcp_output(tp)
        self._writer = None
        self.sim.call_later(0.0, lambda _event: done())
        if self._close_requested:
            self._usrclosed()

    def _wake_reader(self) -> None:
        """soreceive(): hand buffered data to a waiting reader, then PRU_RCVD."""
        if self._reader is None:
            return
        tp = self.tcb
        max_bytes, got = self._reader
        if tp.so_rcv.cc:
            n = min(max_bytes, tp.so_rcv.cc)
            tp.so_rcv.drop(n)
            self.counters.bytes_read += n
            self._reader = None
            if tp.linux is not None:
                emptied = tp.linux.read(n)
                if tp.linux.read_ack(tp.delack, tp.rcv_nxt - tp.last_ack_sent, emptied,
                                     tp.rcv_adv - tp.rcv_nxt, tp.rcv_adv - tp.last_ack_sent):
                    tp.acknow = True
            tcp_output(tp)
            self.sim.call_later(0.0, got, n)
        elif tp.fin_received:
            self._reader = None
            self.sim.call_later(0.0, got, 0)


__all__ = ["TcpEndpoint"]
