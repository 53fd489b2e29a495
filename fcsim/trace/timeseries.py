"""Figures of a running network sampled at fixed simulated intervals, for run reports.

A :class:`TimeSeries` is attached to one repetition before it runs. It
schedules its own sampling events, which read counters and change nothing in
the model (the run's results are the same with or without it). At each
sample it records, for the interval since the previous one: each link
direction's utilisation (time sending frames / interval) and its transmitter's
BB credit; each switch output's queue length (frames); each workload's
throughput (bytes/s): the payload its recipient accepted in the interval,
frames of a sequence abandoned later included (the run's figure takes them
back, but they crossed the network in that interval); the queue depth of
block storage: each FCP target's task set and each block-layer request queue
(requests waiting or at the device), as the sample finds them; each
multipath device's paths: the requests sent down each in the interval, per
second (docs/multipath.md). Each switch port's congestion counters over the
interval, as its port monitor would poll them
(:class:`fcsim.fabric.congestion.PortWindow`): its TxWait, as a fraction of
the interval, and its transitions to zero transmit credit.

The samples are evenly spaced: *samples* over the run, or one every
*interval* s when given (``fcsim run --report DIR --report-interval TIME``).
A run is sampled only when a report is asked for.
"""

from __future__ import annotations

import math
from typing import Any

from fcsim.fabric.congestion import PortWindow
from fcsim.fabric.switch import Switch

_PortRow = tuple[Any, bool, str, list[float], list[int]]
"""A port's peer, whether it is a loop port, the key of its busy time, and its
utilisation and credit series (:meth:`TimeSeries._port_row`)."""


class TimeSeries:
    """*samples* evenly spaced samples over a run, or one every *interval* s
    if given (times in s)."""

    def __init__(self, samples: int = 200, interval: float | None = None) -> None:
        self.samples = samples
        self.interval = interval
        self.time: list[float] = []
        self.utilisation: dict[str, list[float]] = {}
        self.credit: dict[str, list[int]] = {}
        self.queue: dict[str, list[int]] = {}
        self.throughput: dict[str, list[float]] = {}
        self.depth: dict[str, list[int]] = {}
        self.paths: dict[str, list[float]] = {}
        self.txwait: dict[str, list[float]] = {}
        """Per switch port (SWITCH:PORT->PEER), its TxWait over each interval, a fraction."""
        self.credit_zero: dict[str, list[int]] = {}
        """Per switch port, its transitions to zero transmit credit in each interval."""
        self._windows: list[tuple[str, PortWindow]] = []
        self._window_rows: list[tuple[PortWindow, list[float], list[int]]] | None = None
        """Per window, its TxWait and zero-credit series (from the first sample on)."""
        self._queue_rows: dict[str, dict[int, list[int]]] = {}
        """Per switch, per port index, its queue series."""
        self._last: dict[str, float] = {}
        self._rows: dict[int, _PortRow] = {}
        """Per port (by identity), its series while its peer is the same."""
        self._sources: tuple[Any, Any, Any] = ((), {}, ())
        self._storage: Any = None

    def attach(self, sim: Any, net: Any, workloads: Any, duration: float,
               storage: Any = None) -> None:
        """Sample the ports and switches of *net*, the *workloads* of *sim* and
        the targets and request queues of *storage* every *duration* / samples s
        from now on."""
        self._sources = (net.ports(), getattr(net, "switches", {}), workloads)
        self._storage = storage
        if self.interval is not None:
            self.samples = max(1, math.ceil(duration / self.interval - 1e-9))
        self._sim, self._step = sim, (duration / self.samples if self.interval is None
                                      else self.interval)
        for switch in self._sources[1].values():
            if not isinstance(switch, Switch):  # an Ethernet or Myrinet switch: no credit
                continue
            for sp in switch.ports.values():
                peer = sp.port.peer
                name = f"{sp.port.name}->{peer.name if peer is not None else '?'}"
                self._windows.append((name, PortWindow(sp.port)))
        for k in range(1, self.samples):
            sim.call_later(k * self._step, self._sample)

    def _delta(self, key: str, value: float) -> float:
        """*value* less its value at the last sample (a counter reset since: all of it)."""
        last = self._last.get(key, 0.0)
        self._last[key] = value
        return value - last if value >= last else value

    def _port_row(self, port: Any, peer: Any, loop: bool) -> _PortRow:
        """The series of *port* while its peer is *peer* and it is (*loop*) or
        is not a loop port: its name PORT->PEER ("loop" for a loop port or one
        with no peer), the key of its busy time and its utilisation and credit
        lists."""
        name = f"{port.name}->{'loop' if loop or peer is None else peer.name}"
        return (peer, loop, f"busy/{name}", self.utilisation.setdefault(name, []),
                self.credit.setdefault(name, []))

    def _sample(self, _event: object) -> None:
        ports, switches, workloads = self._sources
        step = self._step
        self.time.append(self._sim.now)
        rows, last = self._rows, self._last
        for port in ports:  # _delta and min(..., 1.0), inline: every port, every sample
            peer, loop = port.peer, hasattr(port, "circuit")
            row = rows.get(id(port))
            if row is None or row[0] is not peer or row[1] != loop:
                row = rows[id(port)] = self._port_row(port, peer, loop)
            _, _, busy_key, utilisation, credit = row
            busy = port.stats.busy_time
            before = last.get(busy_key, 0.0)
            last[busy_key] = busy
            share = (busy - before if busy >= before else busy) / step
            utilisation.append(share if share < 1.0 else 1.0)
            credit.append(port.credit)
        for switch_name, switch in switches.items():
            queues = self._queue_rows.get(switch_name)
            if queues is None:
                queues = self._queue_rows[switch_name] = {}
            for index, length in switch.queue_lengths().items():
                series = queues.get(index)
                if series is None:
                    series = queues[index] = self.queue.setdefault(f"{switch_name}:{index}", [])
                series.append(length)
        windows = self._window_rows
        if windows is None:
            windows = self._window_rows = [
                (window, self.txwait.setdefault(name, []), self.credit_zero.setdefault(name, []))
                for name, window in self._windows]
        for window, txwait, credit_zero in windows:
            wait, zeros = window.advance()
            share = wait / step
            txwait.append(share if share < 1.0 else 1.0)
            credit_zero.append(zeros)
        for w in workloads:
            moved = self._delta(f"payload/{w.name}", w.stats.payload + w.stats.taken_back)
            self.throughput.setdefault(w.name, []).append(moved / step)
        storage = self._storage
        if storage:
            for name, target in storage.targets.items():
                self.depth.setdefault(f"target {name}", []).append(target.depth)
            for node, queues in storage.queues.items():
                for device, queue in queues.items():
                    self.depth.setdefault(f"{node} -> {device}", []).append(queue.depth_now)
            for name, multipath in storage.multipaths.items():
                for path in multipath.paths:
                    key = f"{name} {path.name}"
                    sent = self._delta(f"path/{key}", path.ios)
                    self.paths.setdefault(key, []).append(sent / step)
