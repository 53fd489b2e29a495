"""A transmitter's line timing, shared by every technology: a frame of *chars*
transmission characters takes ``chars x char_time`` on the line, after the
frame in progress and the technology's gap after it.

:class:`LineEnd` declares what :func:`launch` reads and writes of a port: every
port kind that transmits frames one after another (the Fibre Channel
:class:`~fcsim.fc2.port.Port`, the loop's L_Port, the Ethernet port)
implements it with plain attributes, so launching a frame costs the attribute
reads it did when the line state was the port's own. A frame implements
:class:`LineFrame`.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Protocol

from fcsim.engine.simulation import TraceSink
from fcsim.fc1.fec import FecLine


class LineStats(Protocol):
    """The transmit counters :func:`launch` keeps on a port."""

    frames_tx: int
    """Frames sent."""
    chars_tx: int
    """Their transmission characters."""
    busy_time: float
    """Time the line carried them, s."""


class LineFrame(Protocol):
    """What :func:`launch` reads and marks of a frame."""

    chars: int
    """Transmission characters on the line, delimiters included."""
    corrupt: bool
    """Set when a bit of it is received in error."""


class LineEnd(Protocol):
    """The transmitter of one end of a line, as :func:`launch` sees it.

    The link or loop sets the line times and error rate
    (:class:`fcsim.link.link.Link`, :class:`fcsim.loop.loop.Loop`); the port
    makes its random stream and takes the simulation's trace sinks when it is
    built. Ordered sets a port sends between frames (R_RDY, OPN, CLS, a
    primitive sequence) move :attr:`line_free` and :attr:`gap_end` too.
    """

    char_time: float
    """One transmission character on the line, s."""
    gap_time: float
    """The technology's gap after each frame, s (FC's fill words, Ethernet's
    inter-frame gap)."""
    bit_error_rate: float
    """Probability that one line bit of a frame this end sends is received in
    error (before FEC, on a line that has it)."""
    line_bits: float
    """Line bits one transmission character costs (10 for 8b/10b, 8.25 for
    64b/66b): the bits a frame exposes to bit errors per character."""
    fec: FecLine | None
    """The FEC of the line this end sends on (32GFC and faster), which decides
    which frames bit errors destroy; None: any bit in error destroys a frame."""
    line_free: float
    """When the line is free of frames and ordered sets, s."""
    gap_end: float
    """When the gap after the last frame ends, s (lengthened by ordered sets
    sent in it): the next frame starts no earlier."""
    stats: LineStats
    """The port's transmit counters."""
    rng: Random
    """The port's own random stream, from which transmission errors are drawn."""
    sinks: Sequence[TraceSink]
    """The simulation's trace sinks, told of each frame."""


def launch(port: LineEnd, frame: LineFrame, now: float,
           hops: int = 1) -> tuple[float, float, float]:
    """Put *frame* on *port*'s line at *now*: after the frame in progress and the
    gap that follows it (``port.gap_time``: FC's fill words, Ethernet's
    inter-frame gap; primitive signals sent in it may have lengthened it);
    count it, draw transmission errors over *hops* links' worth of bits
    (through the line's FEC if it has one), and tell the trace sinks.
    Returns (start, end, end of the gap), s. Shared by every transmitter of
    every technology.
    """
    start = port.gap_end
    if port.line_free > start:
        start = port.line_free
    if now > start:
        start = now
    duration = frame.chars * port.char_time
    end = start + duration
    port.line_free = end
    port.gap_end = gap_end = end + port.gap_time
    stats = port.stats
    stats.frames_tx += 1
    stats.chars_tx += frame.chars
    stats.busy_time += duration
    ber = port.bit_error_rate
    if ber:
        fec = port.fec
        if fec is None:
            if port.rng.random() < 1.0 - (1.0 - ber) ** (frame.chars * port.line_bits * hops):
                frame.corrupt = True
        elif fec.frame_lost(start, frame.chars * hops, ber, port.rng):
            frame.corrupt = True
    if port.sinks:
        for sink in port.sinks:
            sink.frame(now, port, frame, start, end)
    return start, end, gap_end
