"""A transmitter's line timing, shared by every technology: a frame of *chars*
transmission characters takes ``chars x char_time`` on the line, after the
frame in progress and the technology's gap after it.

The port object carries the line state: ``_line_free`` (the line is free of
frames from then), ``_gap_end`` (and of the gap after the last one),
``char_time``, ``gap_time``, ``bit_error_rate``, ``stats`` (``frames_tx``,
``chars_tx``, ``busy_time``), ``_rng`` and ``_sinks``; a frame has ``chars``
and ``corrupt``.
"""

from __future__ import annotations

from typing import Any


def launch(port: Any, frame: Any, now: float, hops: int = 1) -> tuple[float, float, float]:
    """Put *frame* on *port*'s line at *now*: after the frame in progress and the
    gap that follows it (``port.gap_time``: FC's fill words, Ethernet's
    inter-frame gap; primitive signals sent in it may have lengthened it);
    count it, draw transmission errors over *hops* links' worth of bits, and
    tell the trace sinks. Returns (start, end, end of the gap), s. Shared by
    every transmitter of every technology.
    """
    start = port._gap_end
    if port._line_free > start:
        start = port._line_free
    if now > start:
        start = now
    duration = frame.chars * port.char_time
    end = start + duration
    port._line_free = end
    port._gap_end = gap_end = end + port.gap_time
    stats = port.stats
    stats.frames_tx += 1
    stats.chars_tx += frame.chars
    stats.busy_time += duration
    if port.bit_error_rate and port._rng.random() < 1.0 - (
            1.0 - port.bit_error_rate) ** (frame.chars * 10 * hops):
        frame.corrupt = True
    if port._sinks:
        for sink in port._sinks:
            sink.frame(now, port, frame, start, end)
    return start, end, gap_end
