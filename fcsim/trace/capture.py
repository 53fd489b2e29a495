"""Captures of a run: the trace sink that writes frames to a libpcap or pcapng
file, and the link types a scenario's frames need."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import IO, Any

from fcsim.output import close_quietly, open_append
from fcsim.scenario.model import Scenario
from fcsim.trace.pcap import (
    LINKTYPE_ETHERNET,
    LINKTYPE_FC_2_WITH_FRAME_DELIMS,
    LINKTYPE_RAW,
    PcapWriter,
)
from fcsim.trace.pcapng import PcapngWriter

LINKTYPES = {"ethernet": LINKTYPE_ETHERNET, "myrinet": LINKTYPE_RAW}
"""The link type of each LAN topology's frames (Myrinet's: the IP packet of each
packet, raw, Myrinet having no link type of its own); Fibre Channel's is FC-2
with its frame delimiters."""


def linktypes(scenario: Scenario) -> set[int]:
    """The link types of the frames *scenario*'s networks carry (an internetwork
    may need several: a libpcap file holds one, a pcapng file one per
    interface)."""
    topologies = [net.topology for net in scenario.networks] or [scenario.topology]
    return {LINKTYPES.get(t, LINKTYPE_FC_2_WITH_FRAME_DELIMS) for t in topologies}


class PcapSink:
    """Trace sink that stamps each frame with the time its EOF left the sender.

    *ports*: capture only the cables of these ports (frames they send or
    receive), as an analyzer is put on a cable; empty: every frame on every
    link (a frame crossing a switch is then written once per link).
    """

    def __init__(self, writer: PcapWriter | PcapngWriter,
                 ports: frozenset[str] = frozenset()) -> None:
        self.writer = writer
        self.ports = ports

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        ports = self.ports
        peer = port.peer.name if port.peer is not None else "loop"
        if ports and port.name not in ports and peer not in ports:
            return
        if isinstance(self.writer, PcapngWriter):
            self.writer.write(end, frame, f"{port.name}->{peer}")
        else:
            self.writer.write(end, frame)

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """Primitive signals have no libpcap form; they are left out."""

    def state(self, time: float, port: Any, change: str) -> None:
        """Link state changes have no libpcap form; they are left out."""


OPEN_FILES = 64
"""Cable files a :class:`CableCaptures` keeps open at once (a fabric may have
thousands of cables; the least recently written is closed and opened again
for appending when it next gets a frame)."""


class CableFile:
    """One cable's capture file *path*, written as a temporary file in the same
    folder (``.NAME.CABLE.`` and a random part, ending ``.tmp``, as
    :func:`fcsim.output.open_output` writes) that :meth:`finish` renames to
    *path*; opened by its *pool* only while it is written."""

    def __init__(self, path: Path, temporary_prefix: str, pool: CableCaptures) -> None:
        self.path = path
        self.pool = pool
        handle, name = tempfile.mkstemp(dir=path.parent, prefix=temporary_prefix, suffix=".tmp")
        os.close(handle)
        self.temporary = Path(name)
        self.handle: IO[bytes] | None = None

    def write(self, data: bytes) -> int:
        """Append *data* (bytes), opening the file if it was closed."""
        if self.handle is None:
            self.pool.opened(self)
            self.handle = open_append(self.temporary,
                                      f"--pcap: cannot write {os.fspath(self.path)!r}")
        return self.handle.write(data)

    def flush(self) -> None:
        """Flush what is written so far."""
        if self.handle is not None:
            self.handle.flush()

    def close(self) -> None:
        """Close the file (it opens again on the next write)."""
        if self.handle is not None:
            self.handle.close()
            self.handle = None

    def finish(self, path: Path) -> None:
        """Close the file and put it at *path*, readable as a new file would be."""
        self.close()
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(self.temporary, 0o644 & ~mask)
        os.replace(self.temporary, path)

    def discard(self) -> None:
        """Close and remove the temporary file (what it still holds unwritten)."""
        if self.handle is not None:
            close_quietly(self.handle)
            self.handle = None
        self.temporary.unlink(missing_ok=True)


class CableCaptures:
    """Trace sink that writes each cable's frames to a file of its own, as one
    analyzer on each cable records one trace.

    Wireshark reassembles a multi-frame FC sequence by its addresses, OX_ID
    and SEQ_ID, whatever interface it was captured on, so a file holding a
    frame once per cable it crossed reassembles it several times ("New
    fragment overlaps old data"). A cable is both directions of a link (an
    arbitrated loop is one cable); its file is *path*'s name with the cable's
    ports before the suffix (``fab.c110--ancor-0.pcapng``), and if the run
    captured one cable only, *path* itself; each is written as a temporary file
    until :meth:`close` (:meth:`discard` removes them). *pcapng* (else libpcap of
    *linktype*), *limit* and *ports* are as for :class:`PcapSink`, the limit
    per file.
    """

    def __init__(self, path: Path, pcapng: bool, linktype: int, limit: int | None,
                 ports: frozenset[str] = frozenset()) -> None:
        self.path = path
        self.pcapng = pcapng
        self.linktype = linktype
        self.limit = limit
        self.ports = ports
        self.writers: dict[str, PcapWriter | PcapngWriter] = {}
        self.files: dict[str, CableFile] = {}
        self._sinks: dict[Any, PcapSink | None] = {}  # per sending port: its cable's sink
        self._paths: dict[Any, Path] = {}  # per sending port: its cable's file
        self._open: dict[CableFile, None] = {}  # open files, least recently opened first
        self.closed = False

    def opened(self, file: CableFile) -> None:
        """*file* is opening: close the longest-open files past :data:`OPEN_FILES`."""
        while len(self._open) >= OPEN_FILES:
            oldest = next(iter(self._open))
            del self._open[oldest]
            oldest.close()
        self._open[file] = None

    def _sink(self, port: Any) -> PcapSink | None:
        peer = port.peer.name if port.peer is not None else None
        if self.ports and port.name not in self.ports and peer not in self.ports:
            self._sinks[port] = None  # a cable with no analyzer
            return None
        cable = "loop" if peer is None else "--".join(sorted((port.name, peer)))
        writer = self.writers.get(cable)
        if writer is None:
            name = "".join(c if c.isalnum() or c in "._-" else "-" for c in cable)
            file = self.files[cable] = CableFile(
                self.path.with_name(f"{self.path.stem}.{name}{self.path.suffix}"),
                f".{self.path.name}.{name}.", self)
            writer = self.writers[cable] = (
                PcapngWriter(file, self.limit) if self.pcapng  # type: ignore[arg-type]
                else PcapWriter(file, self.linktype, self.limit))  # type: ignore[arg-type]
        sink = self._sinks[port] = PcapSink(writer)
        self._paths[port] = self.files[cable].path
        return sink

    def path_of(self, port: Any) -> Path | None:
        """The file of the cable *port* sends on (None: not captured, or no
        frame sent on it yet)."""
        return self._paths.get(port)

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        try:
            sink = self._sinks[port]
        except KeyError:
            sink = self._sink(port)
        if sink is not None:
            sink.frame(time, port, frame, start, end)

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """Primitive signals have no libpcap form; they are left out."""

    def state(self, time: float, port: Any, change: str) -> None:
        """Link state changes have no libpcap form; they are left out."""

    @property
    def left_out(self) -> int:
        """Frames past the limit of their file, not written."""
        return sum(writer.left_out for writer in self.writers.values())

    def close(self) -> list[Path]:
        """Close every file; the files written (*path* itself if one cable had
        frames)."""
        for writer in self.writers.values():
            writer.close()
        self.closed = True
        files = list(self.files.values())
        if len(files) == 1:
            files[0].finish(self.path)
            return [self.path]
        for file in files:
            file.finish(file.path)
        return [file.path for file in files]

    def discard(self) -> None:
        """Close and remove every file (the run failed: no partial capture)."""
        for file in self.files.values():
            file.discard()
