"""Credit is conserved with BB credit recovery over random loss patterns: it
never rises above its login value, and once the losses stop every lost
frame's and R_RDY's credit is back (docs/faults.md, "BB credit recovery")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.credit_link import credit_link

FRAME_TIME = 5e-6
"""A full frame and its fill words at 4GFC, about 4.96 us: losses drawn this
far apart times the checkpoint interval fall in different intervals."""


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 4),
       losses=st.lists(st.tuples(st.integers(1, 6), st.booleans()), min_size=1, max_size=12))
def test_credit_never_exceeds_its_login_value_and_every_loss_comes_back(
        n: int, losses: list[tuple[int, bool]]) -> None:
    """*losses*: (gap in checkpoint intervals after the one before, True for
    an R_RDY lost on its way to the host, False for a frame lost on its way to
    the disk); at most one of each kind per interval, so each is recovered."""
    m = 1 << n
    sim, net, line = credit_link(n, count=3000)
    host, disk = net.nodes["host"].port, net.nodes["disk"].port
    seen: list[int] = []

    def sample(_: object) -> None:
        seen.append(host.credit_now())
        if sim.now < 20e-3:
            sim.call_later(1e-6, sample)

    sim.call_later(0.0, sample)
    at = 0.1e-3
    lost_r_rdys = lost_frames = 0
    for gap, r_rdy in losses:
        at += (gap + 1) * (m + 2) * FRAME_TIME
        sim.run(at)
        if r_rdy:
            pending = [a for a in host._r_rdys if a > sim.now]
            if pending:
                host.lose_r_rdys(pending[0], pending[0])
                lost_r_rdys += 1
        else:
            start, _ = line.frames["host"][-1]
            if start + host.delay > sim.now:
                sim.call_later(start + host.delay - sim.now, lambda _: disk.lcf.corrupt(4))
                lost_frames += 1
    sim.run(20e-3)  # 3000 frames and their R_RDYs are done by about 15 ms
    assert max(seen) <= host.credit_login
    assert disk.lcf.stats.frames_lost == lost_frames
    assert host.lcf.stats.r_rdy_lost == lost_r_rdys
    assert host.current_credit() == host.credit_login
    assert disk.recovery.frames_recovered == lost_frames
    assert host.recovery.credit_recovered == lost_r_rdys
