"""Invariants of the SSD's flash translation under random writes and reads:
every command completes once; each die's valid pages are exactly the
distinct logical pages written to it (plus those preconditioned), no block
holds more than its pages; free blocks never go below zero; every host page
is programmed once."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.engine.simulation import Simulation
from fcsim.storage.device_model import SsdModel
from fcsim.storage.ssd import Ssd

PAGE = 4096


@settings(max_examples=30, deadline=None)
@given(dies=st.integers(1, 3), blocks=st.integers(24, 48), pages_per_block=st.integers(4, 16),
       spare=st.floats(0.25, 0.5), preconditioned=st.booleans(),
       writes=st.integers(1, 2000), depth=st.integers(1, 16), reads=st.floats(0, 0.5),
       seed=st.integers(1, 1000))
def test_the_map_holds_every_page_written_once(
        dies: int, blocks: int, pages_per_block: int, spare: float, preconditioned: bool,
        writes: int, depth: int, reads: float, seed: int) -> None:
    logical = int(dies * blocks * pages_per_block * (1 - spare))
    model = SsdModel("p", logical * PAGE, 1e-6, 20e-6, 50e-6, 1, dies, PAGE, 400e6,
                     8 * PAGE, 64, pages_per_block=pages_per_block, blocks_per_die=blocks,
                     gc_threshold=0.1, gc_hard_threshold=0.0, erase_latency=1e-3,
                     preconditioned=preconditioned)
    sim = Simulation(seed)
    ssd = Ssd(sim, "ssd", model)
    rng = sim.rng("io")
    written: set[int] = set(range(logical)) if preconditioned else set()
    issued, done = [0], [0]

    def one(_: object = None) -> None:
        if issued[0] < writes:
            issued[0] += 1
            page = rng.randrange(logical)
            write = rng.random() >= reads
            if write:
                written.add(page)
            ssd.submit(write, page * PAGE, PAGE, finished)

    def finished() -> None:
        done[0] += 1
        one()
    for _ in range(depth):
        one()
    sim.run(100.0)
    assert done[0] == issued[0] == writes
    assert ssd.buffered == 0  # every write's page programmed
    programmed = sum(f.host_pages for f in ssd.ftl)
    assert programmed == ssd.stats.as_dict(1.0)["bytes_written"] // PAGE
    for index, ftl in enumerate(ssd.ftl):
        assert 0 <= ftl.free_blocks <= blocks
        assert all(0 <= v <= pages_per_block for v in ftl.valid)
        assert sum(ftl.valid) == sum(1 for p in written if p % dies == index)
