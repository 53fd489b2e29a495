"""Invariants of disk arrays under random commands: every host command
completes once, no member ever holds more than its drive's queue depth, and
the bytes the members read and write are what the parity arithmetic says:
each write's data, plus for RAID 5 one parity update per stripe it touches
over the rows it spans, read by read-modify-write or reconstruct-write,
whichever reads fewer members."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.engine.simulation import Simulation
from fcsim.storage.array import DiskArray
from fcsim.storage.device_model import ArrayModel, load_disk_model

DISK = load_disk_model("fc-disk-10k")
BLOCK = 512


def _stripe_reads(unit: int, data: int, first: int, end: int) -> int:
    """Bytes a RAID 5 write of array bytes *first* .. *end* (inside one stripe of
    *data* data units of *unit* bytes) reads: the rows *lo* .. *hi* it spans
    within the units; read-modify-write reads its own bytes and the parity
    rows, reconstruct-write the rows' bytes it does not write on every data
    unit; the one with fewer member reads, reconstruct-write on a tie."""
    start = first % (unit * data)
    stop = start + end - first
    units = range(start // unit, (stop - 1) // unit + 1)
    spans = {u: (max(start, u * unit) - u * unit, min(stop, (u + 1) * unit) - u * unit)
             for u in units}
    lo = min(a for a, _ in spans.values())
    hi = max(b for _, b in spans.values())
    modify = (len(spans) + 1, end - first + hi - lo)
    count = size = 0
    for u in range(data):
        a, b = spans.get(u, (hi, hi))
        count += (a > lo) + (b < hi)
        size += max(0, a - lo) + max(0, hi - b)
    return modify[1] if modify[0] < count else size


def _expected(model: ArrayModel, commands: list[tuple[bool, int, int]]) -> tuple[int, int]:
    """Bytes the members write and read for *commands* (write, offset, length)."""
    unit, data = model.stripe_unit, model.data_disks
    written = read = 0
    for write, offset, length in commands:
        if not write:
            read += length
            continue
        written += length
        if model.raid == 0:
            continue
        at = offset
        while at < offset + length:
            end = min(offset + length, (at // (unit * data) + 1) * unit * data)
            rows = [(max(at, u) % unit, min(end, u + unit) - u)
                    for u in range(at // unit * unit, end, unit)]
            lo = min(a for a, _ in rows)
            hi = max(b for _, b in rows)
            written += hi - lo
            read += _stripe_reads(unit, data, at, end)
            at = end
    return written, read


@st.composite
def workloads(draw: st.DrawFn):
    raid = draw(st.sampled_from([0, 5]))
    disks = draw(st.integers(3 if raid == 5 else 1, 6))
    unit = BLOCK * draw(st.sampled_from([1, 8, 32]))
    disk = dataclasses.replace(DISK, queue_depth=draw(st.integers(1, 4)),
                               write_cache=draw(st.booleans()))
    cache = draw(st.sampled_from([0, 4 * unit, 2**20]))
    model = ArrayModel("a", disk, disks, raid, unit, 1e-4, cache, 100e6)
    span = unit * model.data_disks * 4
    commands = []
    for _ in range(draw(st.integers(1, 25))):
        offset = BLOCK * draw(st.integers(0, span // BLOCK - 1))
        length = BLOCK * draw(st.integers(1, (span - offset) // BLOCK))
        commands.append((draw(st.booleans()), offset, length,
                         draw(st.floats(0, 0.05, allow_nan=False))))
    return model, commands, draw(st.integers(1, 99))


@settings(max_examples=60, deadline=None)
@given(workloads())
def test_array_commands_complete_once_with_the_parity_arithmetic(case) -> None:
    model, commands, seed = case
    sim = Simulation(seed)
    array = DiskArray(sim, "a", model)
    completions = [0] * len(commands)

    def done(i: int) -> None:
        completions[i] += 1
    for i, (write, offset, length, at) in enumerate(commands):
        sim.call_later(at, lambda _, i=i, w=write, o=offset, n=length: array.submit(
            w, o, n, lambda: done(i)))
    sim.run(100.0)
    assert completions == [1] * len(commands)
    assert array.queued == 0
    assert all(m.queued == 0 and m.max_queued <= model.disk.queue_depth
               for m in array.members)
    written, read = _expected(model, [(w, o, n) for w, o, n, _ in commands])
    assert sum(m.stats.written for m in array.members) == written
    assert sum(m.stats.bytes - m.stats.written for m in array.members) == read
