"""Ladder (sequence) diagrams of the first events of a run, for teaching.

A :class:`Ladder` is a trace sink that keeps the first *limit* link events
(frames, with the TCP segment an IP frame starts; ordered sets: R_RDY, ARB,
OPN, CLS, LIP, and the IDLEs that reset a loop's access window) between chosen ports, up
to a simulated time, and then stops the run (:class:`Enough`). Each event
keeps when its first character left the sender, when its last did, when it
reached the receiver (the cable's delay later) and the sender's BB credit
after it. :func:`ladder_text` writes them as lines in time order;
:func:`draw_ladder` draws them with time running down the page to scale: one
column per port, each frame a band from its sender's column to its
receiver's, slanted by the propagation delay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from fcsim.ethernet.frame import EthernetFrame
from fcsim.myrinet.packet import MyrinetPacket
from fcsim.trace.labels import upper_layer
from fcsim.units import format_time


class Enough(Exception):
    """Raised by a :class:`Ladder` to stop the run once it has what it needs."""


@dataclass(frozen=True)
class Rung:
    """One event: *label* sent by port *sender* to *receiver* from *start* to
    *end* (s), arriving from *start* + *delay*; *credit* left at the sender."""

    start: float
    end: float
    delay: float
    sender: str
    receiver: str
    label: str
    credit: int
    frame: bool


def _receiver(port: Any) -> str:
    peer = port.peer
    return peer.name if peer is not None else "loop"


class Ladder:
    """Trace sink keeping up to *limit* events that end by *until* (s), sent or
    received by one of *ports* (names; empty: every port)."""

    def __init__(self, limit: int = 40, until: float = float("inf"),
                 ports: tuple[str, ...] = ()) -> None:
        self.limit, self.until, self.ports = limit, until, set(ports)
        self.rungs: list[Rung] = []

    def _keep(self, rung: Rung) -> None:
        if rung.start > self.until:
            raise Enough
        if not self.ports or {rung.sender, rung.receiver} & self.ports:
            self.rungs.append(rung)
            if len(self.rungs) >= self.limit:
                raise Enough

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        """A frame left *port* from *start* to *end* (s)."""
        if isinstance(frame, EthernetFrame):
            label = (f"ETH {frame.src & 0xFFFFFF:06X}->{frame.dst & 0xFFFFFF:06X} "
                     f"{frame.payload} B")
        elif isinstance(frame, MyrinetPacket):
            label = f"MYRI {frame.src}->{frame.dst} {frame.payload} B"
        else:
            label = (f"{frame.sof.name} {frame.kind} {frame.s_id:06X}->{frame.d_id:06X} "
                     f"seq {frame.seq_id} cnt {frame.seq_cnt} {frame.payload_len} B "
                     f"{frame.eof.name}")
        above = upper_layer(frame)
        if above:
            label += f" | {above}"
        delay = getattr(port, "delay", 0.0) or getattr(port, "_delay", 0.0)
        self._keep(Rung(start, end, delay, port.name, _receiver(port), label,
                        port.credit, True))

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """An ordered set *name* left *port* at *start* (s)."""
        delay = getattr(port, "delay", 0.0) or getattr(port, "_delay", 0.0)
        self._keep(Rung(start, start + port.word_time, delay, port.name, _receiver(port), name,
                        port.credit, False))


    def state(self, time: float, port: Any, change: str) -> None:
        """Link state changes are not rungs; the ladder leaves them out."""


def ladder_text(rungs: list[Rung], out: IO[str]) -> None:
    """Write *rungs* as one line each, in the order they left their senders."""
    out.write(f"{'start':>12}  {'sender':>14}      {'receiver':<14} {'arrives':>12} "
              f"{'credit':>6}  event\n")
    for r in sorted(rungs, key=lambda r: r.start):
        out.write(f"{format_time(r.start):>12}  {r.sender:>14} ---> {r.receiver:<14} "
                  f"{format_time(r.start + r.delay):>12} {r.credit:>6}  {r.label}\n")


def draw_ladder(rungs: list[Rung], out: IO[bytes], suffix: str, title: str) -> None:
    """Draw *rungs* as a ladder diagram into *out* as ``.svg`` or ``.png``."""
    columns: list[str] = []
    for r in sorted(rungs, key=lambda r: r.start):
        for name in (r.sender, r.receiver):
            if name not in columns:
                columns.append(name)
    x = {name: i for i, name in enumerate(columns)}
    height = max(4.0, min(30.0, 0.3 * len(rungs)))
    fig = Figure(figsize=(max(6.0, 2.2 * len(columns)), height), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    scale = 1e6  # microseconds
    for i in x.values():
        ax.axvline(i, color="grey", linewidth=0.8)
    for r in rungs:
        xs, xr = x[r.sender], x[r.receiver]
        top = (r.start * scale, (r.start + r.delay) * scale)
        bottom = (r.end * scale, (r.end + r.delay) * scale)
        colour = "tab:blue" if r.frame else "tab:orange"
        ax.fill([xs, xr, xr, xs], [top[0], top[1], bottom[1], bottom[0]], color=colour,
                alpha=0.35, linewidth=0)
        ax.plot([xs, xr], [top[0], top[1]], color=colour, linewidth=0.8)
        ax.text((xs + xr) / 2, (top[0] + top[1]) / 2, f"{r.label}  (credit {r.credit})",
                fontsize=6, ha="center", va="bottom")
    ax.set_xticks(range(len(columns)), columns)
    ax.xaxis.tick_top()
    ax.invert_yaxis()
    ax.set_ylabel("time (µs)")
    ax.set_title(title, fontsize=9)
    fig.savefig(out, format=suffix.lstrip("."))
