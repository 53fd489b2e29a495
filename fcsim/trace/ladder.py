"""Ladder (sequence) diagrams of the first events of a run, for teaching.

A :class:`Ladder` is a trace sink that keeps the first *limit* link events
(frames, with the TCP segment an IP frame starts; ordered sets: R_RDY, ARB,
OPN, CLS, LIP, and the IDLEs that reset a loop's access window) between chosen ports, up
to a simulated time, and then stops the run (:class:`Enough`). Each event
keeps when its first character left the sender, when its last did, when it
reached the receiver (the cable's delay later) and the BB credit of the port
it changes: a frame's sender's after it, an R_RDY's receiver's once the
R_RDY has arrived (:func:`returned_credit`). :func:`ladder_text` writes them as lines in time order;
:func:`draw_ladder` draws them with time running down the page to scale: one
column per port, each frame a band from its sender's column to its
receiver's, slanted by the propagation delay, and the labels in a column of
their own beside it, none over another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from fcsim.ethernet.frame import EthernetFrame
from fcsim.myrinet.packet import MyrinetPacket
from fcsim.trace.labels import upper_layer
from fcsim.units import format_time

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class Enough(Exception):
    """Raised by a :class:`Ladder` to stop the run once it has what it needs."""


@dataclass(frozen=True)
class Rung:
    """One event: *label* sent by port *sender* to *receiver* from *start* to
    *end* (s), arriving from *start* + *delay*; *credit* left at the sender
    (None for an R_RDY, which gives the receiver a credit and spends none);
    *receiver_credit*, for an R_RDY, the receiver's credit when it was sent
    (None if the receiver is not a port with BB credit)."""

    start: float
    end: float
    delay: float
    sender: str
    receiver: str
    label: str
    credit: int | None
    frame: bool
    receiver_credit: int | None = None


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
        receiver = _receiver(port)
        if name == "R_RDY":
            credit_now = getattr(port.peer, "credit_now", None)
            self._keep(Rung(start, start + port.word_time, delay, port.name, receiver,
                            f"R_RDY: a credit back to {receiver}", None, False,
                            credit_now() if callable(credit_now) else None))
            return
        label = name
        modulus = getattr(port, "modulus", None)  # BB credit recovery's checkpoints
        if name == "BB_SCs" and modulus:
            label = f"BB_SCs: {modulus} frames sent since the last"
        elif name == "BB_SCr" and modulus:
            label = f"BB_SCr: {modulus} R_RDYs sent since the last"
        self._keep(Rung(start, start + port.word_time, delay, port.name, receiver, label,
                        port.credit, False))


    def state(self, time: float, port: Any, change: str) -> None:
        """Link state changes are not rungs; the ladder leaves them out."""


def returned_credit(rungs: list[Rung]) -> list[int | None]:
    """The credit each rung leaves at the port it changes: a frame's *credit*;
    for an R_RDY, its receiver's credit once the R_RDY's last character is in,
    before any frame that credit lets go (a frame beginning within half a word
    of the arrival is taken as let go by it). Counted from the receiver's last
    frame before the arrival (its credit after that frame, read from the port
    itself) or, with none, from its credit when the R_RDY left; plus the
    R_RDYs reaching it since, less the frames it began since. None when
    unknown: no receiver credit, an arrival after the last event kept (what
    the port sent after that is not in the ladder), or a loop's ordered set
    (ARB, OPN, CLS ...) of the receiver's in between, as a loop port's credit
    does not outlive its tenancy."""
    last = max((r.start for r in rungs), default=0.0)
    result: list[int | None] = []
    for r in rungs:
        if r.receiver_credit is None:
            result.append(r.credit)
            continue
        port, arrived, half_word = r.receiver, r.end + r.delay, (r.end - r.start) / 2
        if arrived > last:
            result.append(None)
            continue
        before = [o for o in rungs if o.frame and o.sender == port
                  and o.start < arrived - half_word]
        anchor = max(before, key=lambda o: o.start, default=None)
        since, credit = (r.start, r.receiver_credit) if anchor is None else \
            (anchor.start + half_word, anchor.credit)
        if credit is None or any(not o.frame and o.credit is not None and port in (o.sender,
                                                                                 o.receiver)
                                 and since < o.start < arrived for o in rungs):
            result.append(None)
            continue
        back = sum(1 for o in rungs if o.receiver_credit is not None and o.receiver == port
                   and since < o.end + o.delay <= arrived)
        result.append(credit + back)
    return result


def ladder_text(rungs: list[Rung], out: IO[str]) -> None:
    """Write *rungs* as one line each, in the order they left their senders, with
    the credit of the port each changes (:func:`returned_credit`)."""
    out.write(f"{'start':>12}  {'sender':>14}      {'receiver':<14} {'arrives':>12} "
              f"{'credit':>6}  event\n")
    credits = returned_credit(rungs)
    for i in sorted(range(len(rungs)), key=lambda i: rungs[i].start):
        r, credit = rungs[i], credits[i]
        out.write(f"{format_time(r.start):>12}  {r.sender:>14} ---> {r.receiver:<14} "
                  f"{format_time(r.start + r.delay):>12} "
                  f"{'-' if credit is None else credit:>6}  {r.label}\n")


LABEL_POINTS = 7.0
"""Font size of the event labels, points."""
_LINE = 1.45
"""Height of a label's line, in font sizes."""


def ladder_figure(rungs: list[Rung], title: str) -> Figure:
    """*rungs* as a ladder diagram: a column per port, time running down to scale,
    each event a band from its sender's column to its receiver's; the labels in a
    column on the right, each level with the middle of its event's first edge
    (a dotted line joins them) unless the one above it is too close, when it
    goes just below that one. The page is tall enough for every label."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # only a drawing loads it
    from matplotlib.figure import Figure

    columns: list[str] = []
    for r in sorted(rungs, key=lambda r: r.start):
        for name in (r.sender, r.receiver):
            if name not in columns:
                columns.append(name)
    x = {name: i for i, name in enumerate(columns)}
    scale = 1e6  # microseconds
    texts = [r.label if c is None else f"{r.label}  (credit {c})"
             for r, c in zip(rungs, returned_credit(rungs), strict=True)]
    line = LABEL_POINTS * _LINE
    label_width = max(len(t) for t in texts) * LABEL_POINTS * 0.55 / 72 + 0.3  # inches
    ladder_width = max(3.5, 2.0 * len(columns))
    axes_height = max(3.5, 1.25 * len(rungs) * line / 72)  # inches: every label fits
    width, height = ladder_width + label_width + 1.0, axes_height + 1.2
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.8 / width, 0.35 / height, ladder_width / width, axes_height / height))
    for i in x.values():
        ax.axvline(i, color="grey", linewidth=0.8)
    middles = []
    for r in rungs:
        xs, xr = x[r.sender], x[r.receiver]
        top = (r.start * scale, (r.start + r.delay) * scale)
        bottom = (r.end * scale, (r.end + r.delay) * scale)
        colour = "tab:blue" if r.frame else "tab:orange"
        ax.fill([xs, xr, xr, xs], [top[0], top[1], bottom[1], bottom[0]], color=colour,
                alpha=0.35, linewidth=0)
        ax.plot([xs, xr], [top[0], top[1]], color=colour, linewidth=0.8)
        middles.append(((xs + xr) / 2, (top[0] + top[1]) / 2))
    first = min(r.start for r in rungs) * scale
    last = max(r.end + r.delay for r in rungs) * scale
    span = max(last - first, 1e-3)
    for _ in range(20):  # labels pushed down may lengthen the axis: until it holds them
        gap = span * line / (axes_height * 72)
        placed: list[float] = []
        for i in sorted(range(len(rungs)), key=lambda i: middles[i][1]):
            placed.append(max(middles[i][1], placed[-1] + gap) if placed else middles[i][1])
        needed = max(last, placed[-1] + gap) - first
        if needed <= span * 1.0001:
            break
        span = needed
    order = sorted(range(len(rungs)), key=lambda i: middles[i][1])
    right = len(columns) - 1 + 0.3
    for i, y in zip(order, placed, strict=True):
        ax.plot([middles[i][0], right], [middles[i][1], y], color="grey", linewidth=0.4,
                linestyle=":", clip_on=False)
        ax.text(right + 0.05, y, texts[i], fontsize=LABEL_POINTS, ha="left", va="center",
                clip_on=False)
    ax.set_xlim(-0.3, right)
    ax.set_ylim(first + span + gap / 2, first - gap / 2)  # time runs down
    ax.set_xticks(range(len(columns)), columns)
    ax.xaxis.tick_top()
    ax.set_ylabel("time (µs)")
    fig.suptitle(title, fontsize=9, x=0.8 / width, ha="left", y=1 - 0.12 / height, va="top")
    return fig


def draw_ladder(rungs: list[Rung], out: IO[bytes], suffix: str, title: str) -> None:
    """Draw *rungs* as a ladder diagram (:func:`ladder_figure`) into *out* as
    ``.svg`` or ``.png``."""
    ladder_figure(rungs, title).savefig(out, format=suffix.lstrip("."))
