"""Closed forms of the SSD's garbage collection under sustained uniform random
writes of whole pages: the write amplification of a greedy collector lies
between Agarwal and Marrow's (1 + rho) / (2 rho) (GLOBECOM 2010) and Xiang and
Kurkoski's Lambert-W expression (ICNC 2012, arXiv:1110.4245; the exact value
for many pages a block), with rho the spare factor of the blocks that can
hold data; and the drive's sustained write rate is its dies' time per host
page at that amplification: a program, A - 1 moves (page read and program)
and A / pages_per_block erases."""

from __future__ import annotations

import math

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.resources import DATA_ROOT
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.storage.device_model import SsdModel
from fcsim.storage.ssd import Ssd

PAGE = 4096
DIES = 2
BLOCKS = 64
PAGES_PER_BLOCK = 256
"""MQSim's Page_No_Per_Block; few blocks, so that steady state comes soon."""


def _drive(spare: float) -> SsdModel:
    """A preconditioned drive of two dies on one channel, *spare* of its flash
    beyond its capacity, MQSim's erase time and GC thresholds."""
    physical = DIES * BLOCKS * PAGES_PER_BLOCK
    return SsdModel("gc", int(physical * (1 - spare)) * PAGE, 0.0, 20e-6, 50e-6, 1, DIES,
                    PAGE, 400e6, 64 * PAGE, 1024, pages_per_block=PAGES_PER_BLOCK,
                    blocks_per_die=BLOCKS, gc_threshold=0.05, gc_hard_threshold=0.005,
                    erase_latency=3.8e-3, preconditioned=True)


def lambert_w(x: float) -> float:
    """The principal branch of Lambert's W at -1/e <= x < 0 (Newton's method)."""
    w = -0.5
    for _ in range(100):
        w -= (w * math.exp(w) - x) / (math.exp(w) * (w + 1))
    return w


def spare_factor(model: SsdModel, free: float) -> float:
    """rho = (physical pages that hold data) / (logical pages) - 1 on a die:
    its blocks but the *free* ones and, on average, one block's room in the
    host's and the collector's open blocks (each half written)."""
    usable = (model.blocks_per_die - free - 1) * model.pages_per_block
    return usable / model.logical_pages_per_die - 1


def greedy(rho: float) -> float:
    """Xiang and Kurkoski's write amplification at spare factor *rho*."""
    alpha = 1 + rho
    return alpha / (alpha + lambert_w(-alpha * math.exp(-alpha)))


def run(model: SsdModel, writes_per_page: float, depth: int = 16) -> dict:
    """Random page writes, *depth* outstanding, until the drive has taken
    *writes_per_page* x its logical pages; the figures of the second half."""
    sim = Simulation(7)
    ssd = Ssd(sim, "ssd", model)
    rng = sim.rng("writes")
    pages = model.logical_pages
    issued = [0]
    total = int(writes_per_page * pages)

    def write(_: object = None) -> None:  # on and on: no tail in the interval
        issued[0] += 1
        ssd.submit(True, rng.randrange(pages) * PAGE, PAGE, write)
    for _ in range(depth):
        write()
    while issued[0] < total // 2:
        sim.run(sim.now + 0.01)
    ssd.reset_stats()
    began = sim.now
    while issued[0] < total:
        sim.run(sim.now + 0.01)
    figures = ssd.results(sim.now - began)
    figures["interval"] = sim.now - began
    return figures


@pytest.mark.parametrize("spare", [0.2, 0.3])
def test_sustained_random_writes_slow_to_the_collectors_rate(spare: float) -> None:
    model = _drive(spare)
    figures = run(model, 6.0)
    amplification = figures["write_amplification"]
    assert figures["blocks_erased"] > 0
    # the free blocks the collector keeps lie between the reserve host writes
    # leave it and its threshold; the amplification between those two bounds
    free = figures["mean_free_blocks"]
    assert model.reserve_blocks - 1 <= free <= model.gc_blocks
    fewest = spare_factor(model, model.gc_blocks)
    most = spare_factor(model, model.reserve_blocks)
    assert (1 + most) / (2 * most) <= amplification <= greedy(fewest)
    # and at the free blocks it kept, Xiang and Kurkoski's value, the block
    # being collected holding its invalid pages (1 / A of a block) until its
    # erase: A = greedy(rho(free + 1 / A)), a fixed point. The expression is
    # asymptotic in blocks; with 64 a die it is within 3 %
    expected = 2.0
    for _ in range(50):
        expected = greedy(spare_factor(model, free + 1 / expected))
    assert amplification == pytest.approx(expected, rel=0.03)
    # the dies are the limit: their time per host page at the closed-form
    # amplification sets the rate
    die_time = (model.program_latency + (expected - 1) * (model.read_latency
                                                          + model.program_latency)
                + expected / model.pages_per_block * model.erase_latency)
    rate = figures["host_pages_programmed"] / figures["interval"]
    assert rate == pytest.approx(DIES / die_time, rel=0.05)
    # and at the measured amplification, to within the reads of pages the host
    # rewrote while they were being moved (read, then not programmed): < 1 %
    measured = (model.program_latency + (amplification - 1) * (model.read_latency
                                                               + model.program_latency)
                + amplification / model.pages_per_block * model.erase_latency)
    assert rate == pytest.approx(DIES / measured, rel=0.01)
    assert rate < DIES / measured


def test_a_fresh_drive_takes_writes_at_the_program_rate_until_it_fills() -> None:
    """Not preconditioned, no block is collected while free ones last: the
    dies program one page each per program time."""
    model = _drive(0.2)
    model = SsdModel(**{**model.__dict__, "preconditioned": False})
    figures = run(model, 0.4)
    assert figures["blocks_erased"] == 0 and figures["gc_pages_moved"] == 0
    assert figures["write_amplification"] == 1.0
    rate = figures["host_pages_programmed"] / figures["interval"]
    assert rate == pytest.approx(DIES / model.program_latency, rel=2e-3)


def test_the_example_reaches_the_collectors_steady_state() -> None:
    """scenarios/ssd-garbage-collection.toml: random 8 KiB writes over NVMe/FC
    to mqsim-mlc-small; after its warm-up the amplification is the fixed point
    above at the free blocks kept, and the rate the dies' at it."""
    scenario = load_scenario(DATA_ROOT / "scenarios" / "ssd-garbage-collection.toml")
    storage = run_scenario(scenario)["repetitions"][0]["storage"]
    model = scenario.nodes[1].target
    target = storage["targets"]["ssd"]
    assert target["limit"] == "flash dies"
    expected = 2.0
    for _ in range(50):
        expected = greedy(spare_factor(model, target["mean_free_blocks"] + 1 / expected))
    assert target["write_amplification"] == pytest.approx(expected, rel=0.03)
    die_time = (model.program_latency + (expected - 1) * (model.read_latency
                                                          + model.program_latency)
                + expected / model.pages_per_block * model.erase_latency)
    dies = model.channels * model.dies_per_channel
    assert storage["jobs"]["writes"]["iops"] == pytest.approx(dies / die_time, rel=0.03)
