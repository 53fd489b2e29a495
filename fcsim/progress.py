"""Progress of long work (sweeps, validation, figures) on standard error."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """A progress display of *total* items on *stream* (default: standard error):
    one self-overwriting line on a terminal, a line per tenth of the work otherwise."""

    def __init__(self, total: int, stream: TextIO | None = None, title: str = "") -> None:
        self.total, self.title = total, title
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.monotonic()
        self.tty = self.stream.isatty()
        self._shown = -1

    def __call__(self, done: int, label: str) -> None:
        """Report that *done* items are finished, the last being *label*."""
        elapsed = time.monotonic() - self.start
        eta = elapsed / done * (self.total - done) if done else 0.0
        line = (f"{self.title}[{done:>{len(str(self.total))}}/{self.total}] "
                f"{100 * done // max(1, self.total):3d}%  elapsed {_clock(elapsed)}  "
                f"left ~{_clock(eta)}  {label}")
        if self.tty:
            self.stream.write("\r" + line[:120].ljust(120))
            _open_lines.add(self.stream)
            if done == self.total:
                self.stream.write("\n")
                _open_lines.discard(self.stream)
        elif done * 10 // max(1, self.total) > self._shown or done == self.total:
            self._shown = done * 10 // max(1, self.total)
            self.stream.write(line + "\n")
        self.stream.flush()


_open_lines: set[TextIO] = set()
"""Terminals whose last progress line has not been ended yet."""


def end_progress_line() -> None:
    """End a progress line left open on a terminal (work stopped before its end),
    so that what is printed next starts a line of its own."""
    while _open_lines:
        stream = _open_lines.pop()
        stream.write("\n")
        stream.flush()


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds + 0.5), 60)
    return f"{minutes}m{secs:02d}s"
