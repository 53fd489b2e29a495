"""Invariants of a disk array's read path with cut-through and read-ahead,
under random reads (runs of sequential ones among random ones) and writes:
every command completes once; a read hands over its bytes in order, the
pieces before its completion and the rest with it adding up to its length;
the bytes the members read are the reads' bytes not found in the cache plus
those read ahead (RAID 0, so no parity reads), and the cache never holds more
than its size."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.engine.simulation import Simulation
from fcsim.storage.array import DiskArray
from fcsim.storage.device_model import ArrayModel, load_disk_model

DISK = load_disk_model("fc-disk-10k")
BLOCK = 512


@st.composite
def workloads(draw: st.DrawFn):
    unit = BLOCK * draw(st.sampled_from([8, 32, 128]))
    block = BLOCK * draw(st.sampled_from([d for d in (1, 8, 32) if d * BLOCK <= unit]))
    disks = draw(st.integers(1, 5))
    disk = dataclasses.replace(DISK, queue_depth=draw(st.integers(1, 4)))
    model = ArrayModel("a", disk, disks, 0, unit, 1e-4,
                       cache=draw(st.sampled_from([unit, 16 * unit, 2**22])),
                       channel_rate=100e6, cache_block=draw(st.sampled_from([0, block])),
                       prefetch=draw(st.integers(0, 3)))
    span = unit * disks * 16
    commands = []
    offset = 0
    for _ in range(draw(st.integers(1, 25))):
        if draw(st.booleans()):  # a jump, else the next range
            offset = BLOCK * draw(st.integers(0, span // BLOCK - 2))
        length = BLOCK * draw(st.integers(1, max(1, (span - offset) // BLOCK // 2)))
        commands.append((draw(st.integers(0, 5)) == 0, offset, length,
                         draw(st.floats(0, 0.05, allow_nan=False))))
        offset = min(offset + length, span - BLOCK)
    return model, commands, draw(st.integers(1, 99))


@settings(max_examples=80, deadline=None)
@given(workloads())
def test_reads_hand_over_their_bytes_once_and_the_members_read_what_missed(case) -> None:
    model, commands, seed = case
    sim = Simulation(seed)
    array = DiskArray(sim, "a", model)
    completions = [0] * len(commands)
    handed = [0] * len(commands)

    def arrived(i: int, n: int) -> None:
        assert completions[i] == 0 and n > 0
        handed[i] += n

    def done(i: int) -> None:
        completions[i] += 1

    def start(i: int, write: bool, offset: int, length: int) -> None:
        if write:
            array.submit(True, offset, length, lambda: done(i))
        else:
            array.stream_read(offset, length, lambda n: arrived(i, n), lambda: done(i))
        assert array.cached <= model.cache
    for i, (write, offset, length, at) in enumerate(commands):
        sim.call_later(at, lambda _, i=i, w=write, o=offset, n=length: start(i, w, o, n))
    sim.run(100.0)
    assert completions == [1] * len(commands)
    assert array.queued == 0
    assert all(m.queued == 0 and m.max_queued <= model.disk.queue_depth
               for m in array.members)
    for i, (write, _, length, _) in enumerate(commands):
        assert handed[i] < length or write or length == 0
        if model.cache_block == 0 or write:
            assert handed[i] == 0
    reads = sum(n for w, _, n, _ in commands if not w)
    written = sum(n for w, _, n, _ in commands if w)
    assert sum(m.stats.written for m in array.members) == written
    member_reads = sum(m.stats.bytes - m.stats.written for m in array.members)
    assert member_reads == reads - array.read_ahead_hits + array.prefetched
    assert array.read_ahead_hits <= array.prefetched
    if model.prefetch == 0:
        assert array.prefetched == 0
