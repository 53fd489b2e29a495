"""Invariants of disk channels and the block layer's request queue under random
commands: the channel is never held by two devices at once, every command
completes exactly once, bytes are conserved, and merging never changes the
bytes read or written."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import example, given, settings
from hypothesis import strategies as st

from fcsim.engine.simulation import Simulation
from fcsim.host.bus import BUS_TYPES, IoBus
from fcsim.host.request_queue import RequestQueue
from fcsim.storage.channel import Channel
from fcsim.storage.channel_model import load_channel_model
from fcsim.storage.device_model import load_disk_model
from fcsim.storage.disk import Disk

DISKS = [load_disk_model(n) for n in ("ibm-deskstar-22gxp", "seagate-medalist-pro-st39140w")]
CHANNELS = {n: load_channel_model(n) for n in ("ultra-scsi", "ultra-wide-scsi", "ultra-ata-33")}


@st.composite
def traffic(draw: st.DrawFn):
    model = CHANNELS[draw(st.sampled_from(sorted(CHANNELS)))]
    disks = draw(st.integers(1, min(model.devices, 4)))
    commands = draw(st.lists(st.tuples(
        st.integers(0, disks - 1), st.booleans(), st.integers(0, 10**6),
        st.sampled_from([512, 4096, 65536, 131072]), st.floats(0, 0.05)),
        min_size=1, max_size=25))
    return model, disks, commands, draw(st.booleans())


@settings(max_examples=40, deadline=None)
@given(traffic())
def test_one_holder_at_a_time_each_command_once_bytes_conserved(case) -> None:
    model, count, commands, with_host = case
    sim = Simulation(1)
    bus = IoBus(sim, "pci", BUS_TYPES["PCI-32/33"], 120e6, 2e-6) if with_host else None
    channel = Channel(sim, "c", model, bus)
    channel.log = []
    disks = [Disk(sim, f"d{i}", DISKS[i % 2]) for i in range(count)]
    finished: dict[int, int] = {}

    def send(k: int, address: int, write: bool, block: int, length: int) -> None:
        def done(_channel_s: float) -> None:
            finished[k] = finished.get(k, 0) + 1
        channel.command(address, disks[address], write, block * 512, length, done)
    for k, (address, write, block, length, at) in enumerate(commands):
        sim.call_later(at, lambda _e, k=k, a=address, w=write, b=block, n=length:
                       send(k, a, w, b, n))
    sim.run(30.0)
    assert finished == {k: 1 for k in range(len(commands))}
    spans = sorted(channel.log)
    assert all(a[1] <= b[0] + 1e-15 for a, b in zip(spans, spans[1:], strict=False))
    assert sum(d.stats.bytes for d in disks) == sum(c[3] for c in commands)
    assert sum(d.stats.commands for d in disks) == len(commands)
    tenures = len(commands) * (2 if model.disconnect else 1)
    assert len(spans) == tenures


class _Recorder:
    """A device that records the commands it gets and answers each after *delay*."""

    def __init__(self, sim: Simulation, delay: float) -> None:
        self.sim, self.delay = sim, delay
        self.commands: list[tuple[bool, int, int]] = []

    def login(self, then: Callable[[], None]) -> None:
        then()

    def submit(self, write: bool, offset: int, length: int, done: Callable[[int], None]) -> None:
        self.commands.append((write, offset, length))
        self.sim.call_later(self.delay, lambda _e: done(0))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 40), st.integers(1, 8),
                          st.floats(0, 1e-3)), min_size=1, max_size=40),
       st.integers(1, 3), st.sampled_from([None, 4096, 8192, 65536]), st.booleans(),
       st.booleans())
# a back merge that makes a waiting request touch the next one joins the two: that
# request merged into another counts as a merge too
@example([(False, 0, 1, 0.0), (False, 0, 1, 0.0), (True, 3, 8, 0.0),
          (True, 11, 5, 0.00029476286435648066), (True, 16, 1, 0.0)], 1, None, True, False)
def test_merging_never_changes_the_bytes(requests, depth, largest, merge, elevator) -> None:
    sim = Simulation(1)
    device = _Recorder(sim, 2e-4)
    queue = RequestQueue(sim, "q", device, depth, largest, merge, elevator)
    answered: dict[int, int] = {}
    wanted: dict[bool, list[int]] = {False: [], True: []}
    for k, (write, block, blocks, at) in enumerate(requests):
        offset, length = block * 1024, blocks * 1024
        wanted[write] += range(offset, offset + length, 512)

        def issue(_e: object, k: int = k, w: bool = write, o: int = offset,
                  n: int = length) -> None:
            queue.submit(w, o, n, lambda _s: answered.__setitem__(k, answered.get(k, 0) + 1))
        sim.call_later(at, issue)
    sim.run(1.0)
    assert answered == {k: 1 for k in range(len(requests))}
    got: dict[bool, list[int]] = {False: [], True: []}
    for write, offset, length in device.commands:
        assert largest is None or length <= largest
        got[write] += range(offset, offset + length, 512)
    assert sorted(got[False]) == sorted(wanted[False])
    assert sorted(got[True]) == sorted(wanted[True])
    assert queue.commands == len(device.commands)
    assert queue.commands + queue.merges >= len(requests)
    assert merge or queue.merges == 0
