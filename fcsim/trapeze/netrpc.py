"""NetRPC: kernel-to-kernel remote procedure calls over Trapeze.

Derived from the Global Memory Service's gms_net (Anderson et al., USENIX
ATC 1998, sections 3.1-3.4; Hot Interconnects 1999, section 2.2). A call is
a request of one or more messages and a reply of one or more messages:

- a read (and a page fault's getpage) sends one control message and is
  answered by the data, one message per page (8 KB payload), each payload
  put by the card straight into the frame that waits for it (the incoming
  payload table: no copy);
- a write sends its data, one message per page, the first carrying the
  request, and is answered by one control message.

Calls are **nonblocking**: the caller goes on; each reply message is handled
in the receive interrupt and the call's continuation runs there once the
last has arrived (USENIX 1998, section 3.4: "continuation procedures invoked
directly from the receiver interrupt handler"). A server handles a request
once its last message is in, in the interrupt too, and replies from there.

Host costs (the host model's): each message sent costs ``message_send`` on
the sender's processor (at process level for a call made by a process, at
interrupt level for replies and for calls made from a handler); arrivals raise
one ``interrupt``, whose handler drains the card's receive ring, each
message costing ``message_receive``. Messages that arrive while the handler
is pending or running are taken by it without another interrupt.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from itertools import count

from fcsim.engine.simulation import Simulation
from fcsim.host.cpu import INTERRUPT, PROCESS
from fcsim.host.host import Host
from fcsim.trapeze.card import TrapezeCard
from fcsim.trapeze.message import PAYLOAD_MAX, Message

READ, WRITE = "read", "write"
"""The block operations of a call."""


def pages(nbytes: int) -> list[int]:
    """The payloads of the messages carrying *nbytes*: whole pages and the rest
    (one message with no payload for 0 bytes)."""
    sizes = [PAYLOAD_MAX] * (nbytes // PAYLOAD_MAX)
    if nbytes % PAYLOAD_MAX or not sizes:
        sizes.append(nbytes % PAYLOAD_MAX)
    return sizes


class Call:
    """A call record: operation *op* on bytes *offset* .. *offset* + *length* of
    *server*'s volume, from *client*; *done(call)* runs when the reply is in.
    *issued* and *completed* are times, s."""

    __slots__ = ("xid", "client", "server", "op", "offset", "length", "done", "issued",
                 "completed", "request_parts", "reply_parts", "request_in", "reply_in")

    def __init__(self, xid: int, client: str, server: str, op: str, offset: int, length: int,
                 done: Callable[[Call], None], issued: float) -> None:
        self.xid, self.client, self.server, self.op = xid, client, server, op
        self.offset, self.length, self.done, self.issued = offset, length, done, issued
        self.completed: float | None = None
        self.request_parts = len(pages(length if op == WRITE else 0))
        self.reply_parts = len(pages(0 if op == WRITE else length))
        self.request_in = self.reply_in = 0

    def __repr__(self) -> str:
        return f"{self.op} xid {self.xid} {self.length} B at {self.offset}"


class Part:
    """What a message carries for NetRPC: part *index* of *call*'s request or
    *reply*."""

    __slots__ = ("call", "index", "reply")

    def __init__(self, call: Call, index: int, reply: bool) -> None:
        self.call, self.index, self.reply = call, index, reply

    def __repr__(self) -> str:
        total = self.call.reply_parts if self.reply else self.call.request_parts
        return f"{self.call!r} {'reply' if self.reply else 'request'} {self.index + 1}/{total}"


class NetRpc:
    """The NetRPC endpoint of *host*, sending and receiving through *card*.
    A server sets :attr:`handler`, called with each call whose request is
    wholly in."""

    def __init__(self, sim: Simulation, host: Host, card: TrapezeCard) -> None:
        self.sim, self.host, self.card = sim, host, card
        self.handler: Callable[[Call], None] | None = None
        self.reset_stats()
        self._ring: deque[Message] = deque()
        self._pending = False
        self._xids = count(1)
        card.deliver = self._arrived

    def call(self, server: str, op: str, offset: int, length: int,
             done: Callable[[Call], None], level: int = PROCESS) -> Call:
        """A nonblocking call to *server*: read or write *length* bytes at
        *offset* of its volume; *done(call)* in the receive interrupt once the
        reply is in. Its messages cost ``message_send`` each at *level*."""
        call = Call(next(self._xids), self.host.name, server, op, offset, length, done,
                    self.sim.now)
        self.calls += 1
        self._send(call, pages(length if op == WRITE else 0), server, False, level)
        return call

    def reply(self, call: Call) -> None:
        """Answer *call* (in the handler, at interrupt level): its data, or a
        control message for a write."""
        self.replies += 1
        self._send(call, pages(0 if call.op == WRITE else call.length), call.client, True,
                   INTERRUPT)

    def _send(self, call: Call, sizes: list[int], to: str, reply: bool, level: int) -> None:
        cost, card, name = self.host.model.message_send, self.card, self.host.name
        for index, size in enumerate(sizes):
            message = Message(name, to, size, Part(call, index, reply))
            self.host.cpu.run(cost, lambda m=message: card.post(m), level)

    def _arrived(self, message: Message) -> None:
        """The card has put a whole message in host memory: interrupt, unless the
        handler is already due to drain the ring."""
        self._ring.append(message)
        if not self._pending:
            self._pending = True
            self.interrupts += 1
            self.host.cpu.run(self.host.model.interrupt, self._drain, INTERRUPT)

    def _drain(self) -> None:
        if not self._ring:
            self._pending = False
            return
        message = self._ring.popleft()
        self.host.cpu.run(self.host.model.message_receive, lambda: self._take(message),
                          INTERRUPT)

    def _take(self, message: Message) -> None:
        part: Part = message.body
        call = part.call
        if part.reply:
            call.reply_in += 1
            if call.reply_in == call.reply_parts:
                call.completed = self.sim.now
                self.answered += 1
                self.call_time += call.completed - call.issued
                call.done(call)
        else:
            call.request_in += 1
            if call.request_in == call.request_parts and self.handler is not None:
                self.handler(call)
        self._drain()

    def results(self) -> dict[str, float | int | None]:
        """Calls made and answered (with their mean time from the call to the
        reply's last message, s), replies sent and receive interrupts taken."""
        return {"calls": self.calls, "answered": self.answered,
                "mean_call_s": self.call_time / self.answered if self.answered else None,
                "replies": self.replies, "interrupts": self.interrupts}

    def reset_stats(self) -> None:
        """Start a new measured interval."""
        self.calls = self.answered = self.replies = self.interrupts = 0
        self.call_time = 0.0
