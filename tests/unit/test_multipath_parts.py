"""The multipath layer's parts against Linux's rules: the path selectors'
choices (drivers/md/dm-queue-length.c, dm-service-time.c,
dm-round-robin.c), and each refused [nodes.multipath] or ALUA key in one
line."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.build import multipath_pairs
from fcsim.engine.simulation import Simulation
from fcsim.fc4.fcp import GOOD
from fcsim.scenario.loader import load_scenario
from fcsim.storage.config import CHECKER_TICK, MultipathConfig
from fcsim.storage.multipath import Multipath, first_tick_after
from fcsim.storage.multipath import Path as Path_
from fcsim.storage.path_selector import QueueLength, RoundRobin, ServiceTime
from tests.builders import assert_refused

SCENARIO = (Path(__file__).parents[2] / "scenarios" / "multipath-dual-fabric.toml").read_text()


@dataclass
class FakePath:
    """A path as a selector sees it."""

    name: str
    usable: bool = True
    in_flight: int = 0
    in_flight_bytes: int = 0
    relative_throughput: int = 1


def test_round_robin_takes_each_usable_path_in_turn_repeat_times() -> None:
    a, b, c = FakePath("a"), FakePath("b", usable=False), FakePath("c")
    rr = RoundRobin([a, b, c], repeat=2)
    assert [rr.select(4096).name for _ in range(6)] == ["a", "a", "c", "c", "a", "a"]


@given(st.integers(1, 6), st.integers(1, 4), st.integers(1, 30))
@settings(max_examples=50, deadline=None)
def test_round_robin_shares_n_times_k_requests_equally(k: int, repeat: int, rounds: int) -> None:
    paths = [FakePath(str(i)) for i in range(k)]
    rr = RoundRobin(paths, repeat)
    chosen = [rr.select(512).name for _ in range(k * repeat * rounds)]
    assert all(chosen.count(p.name) == repeat * rounds for p in paths)


def test_queue_length_picks_the_fewest_in_flight_ties_going_round() -> None:
    a, b, c = FakePath("a", in_flight=3), FakePath("b", in_flight=1), FakePath("c", in_flight=1)
    ql = QueueLength([a, b, c])
    assert ql.select(512).name == "b"  # after rotation: b, c, a: b first of the two
    assert ql.select(512).name == "c"  # c, a, b: c first
    b.usable = c.usable = False
    assert ql.select(512).name == "a"
    a.usable = False
    assert ql.select(512) is None


def test_service_time_weighs_bytes_in_flight_by_relative_throughput() -> None:
    slow = FakePath("slow", in_flight_bytes=0, relative_throughput=1)
    fast = FakePath("fast", in_flight_bytes=65536, relative_throughput=4)
    st_ = ServiceTime([slow, fast])
    # (0 + 64 KiB) / 1 > (64 KiB + 64 KiB) / 4: the fast path, busier, is sooner done
    assert st_.select(65536).name == "fast"
    fast.in_flight_bytes = 4 * 65536
    assert st_.select(65536).name == "slow"  # 64 KiB / 1 < 320 KiB / 4
    slow.relative_throughput = fast.relative_throughput = 1
    fast.in_flight_bytes = slow.in_flight_bytes = 8192
    assert {st_.select(512).name for _ in range(2)} == {"slow", "fast"}  # ties go round


@pytest.mark.parametrize(("edit", "key", "given", "allowed"), [
    (('path_selector = "round-robin"', 'path_selector = "random"'),
     "nodes[0].multipath.path_selector", "given 'random'", "'queue-length'"),
    (('path_grouping_policy = "multibus"', 'path_grouping_policy = "group_by_serial"'),
     "nodes[0].multipath.path_grouping_policy", "given 'group_by_serial'", "'failover'"),
    (('path_selector = "round-robin"', 'path_selector = "round-robin"\nrr_min_io_rq = 0'),
     "nodes[0].multipath.rr_min_io_rq", "given 0", "an integer >= 1"),
    (('path_selector = "round-robin"', 'path_selector = "round-robin"\nno_path_retry = 0'),
     "nodes[0].multipath.no_path_retry", "given 0", "'fail', 'queue'"),
    (('path_selector = "round-robin"', 'path_selector = "round-robin"\nfailback = "soon"'),
     "nodes[0].multipath.failback", "given 'soon'", "'immediate', 'manual'"),
    (('path_selector = "round-robin"', 'path_selector = "round-robin"\n'
      'fast_io_fail_tmo = "0 s"'), "nodes[0].multipath.fast_io_fail_tmo", "given '0 s'",
     "'off' or a time"),
    (('target = "tms-ramsan"', 'target = "tms-ramsan"\nnon_optimized_ports = ["array.2"]'),
     "nodes[1].non_optimized_ports[0]", "given 'array.2'", "one of the node's N_Ports"),
    (('[nodes.multipath]', 'non_optimized_ports = ["host.1"]\n[nodes.multipath]'),
     "nodes[0].non_optimized_ports", "given ['host.1']", "only for an FCP target"),
    (('ends = ["host.1", "swB:0"]', 'ends = ["host.1", "swA:2"]'),
     "workloads[0].to", "given 'array'", "needs a path"),
])
def test_bad_multipath_keys_are_refused_in_one_line(tmp_path: Path, edit: tuple[str, str],
                                                    key: str, given: str,
                                                    allowed: str) -> None:
    if key == "workloads[0].to":  # every host port on A, every array port on B
        base = SCENARIO.replace('ends = ["array", "swA:1"]', 'ends = ["array", "swB:2"]')
    else:
        base = SCENARIO
    assert_refused(tmp_path, base, edit, key, given, allowed)


def test_a_multipath_node_job_on_its_own_disks_has_no_paths(tmp_path: Path) -> None:
    channel = ('channels = [{name = "scsi0", model = "ultra-wide-scsi", '
               'disks = ["seagate-medalist-pro-st39140w"]}]\n')
    own = SCENARIO.replace('[nodes.multipath]', channel + '[nodes.multipath]') + '''
[[workloads]]
name = "local"
type = "dd"
from = "host"
to = "scsi0.0"
direction = "read"
count = 10
'''
    path = tmp_path / "own.toml"
    path.write_text(own, encoding="utf-8")
    pairs = multipath_pairs(load_scenario(path))
    assert pairs == {("host", "array"): {("host", "array"), ("host.1", "array.1")}}


def test_the_checker_loop_finds_a_tur_timed_out_a_second_after_a_whole_timeout() -> None:
    """tur.c's ``now.tv_sec > ct->time``: a TUR sent at a run of the loop with
    multipath.conf's 30 s timeout is found timed out 31 runs (31 s) later."""
    assert first_tick_after(30.0, CHECKER_TICK) == 31.0
    assert first_tick_after(0.003, 0.001) == pytest.approx(0.004, rel=1e-12)


@given(st.floats(1e-4, 10.0), st.floats(1e-4, 2.0), st.integers(0, 100))
@settings(max_examples=200, deadline=None)
def test_the_run_that_finds_a_timeout_is_the_first_after_it(span: float, tick: float,
                                                            whole: int) -> None:
    """The run found is a whole number of ticks after the sending, later than
    the timeout by at most a tick; a timeout of a whole number of ticks is
    found one tick after it."""
    ticks = first_tick_after(span, tick) / tick
    assert ticks == pytest.approx(round(ticks), abs=1e-9)
    n = round(ticks)
    assert span < n * tick * (1 + 1e-9) and (n - 1) * tick <= span * (1 + 1e-9)
    assert first_tick_after(whole * tick, tick) == pytest.approx((whole + 1) * tick, rel=1e-9)


class _HeldTurs:
    """A path's logical unit whose TEST UNIT READYs are answered only when
    the test says: each TUR sent is kept, (time sent, its done)."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.turs: list[tuple[float, Callable[[int], None]]] = []

    def login(self, then: Callable[[], None]) -> None:
        then()

    def submit(self, write: bool, offset: int, length: int, done: Callable[[int], None],
               meter: Any = None) -> None:
        raise AssertionError("no I/O in this test")

    def terminate(self, status: int) -> int:
        return 0

    def test_unit_ready(self, done: Callable[[int], None], timeout: float) -> None:
        self.turs.append((self.sim.now, done))


def test_a_stalled_tur_gets_one_new_tur_beside_it_then_the_path_is_down_without_one() -> None:
    """tur.c (``libcheck_check``, MAX_NR_TIMEOUTS 1): a check that finds the
    TUR of the last one still outstanding (its thread not responding) starts
    one new TUR beside it; the next that finds that one outstanding too
    returns PATH_TIMEOUT without a TUR, and so on while it is; once it is
    answered, checks send TURs again. polling_interval 1 s, checker_timeout
    1 s, the loop's 1 s tick: the first check at 1 s finds its TUR timed
    out at 3 s (the run after 1 + 1 s), the failed path is checked every
    polling_interval from the end of the last check: at 4 s a new TUR
    beside the stalled one, found timed out at 6 s; at 7, 8, 9, 10 s down
    without a TUR; the second TUR answered GOOD at 10.5 s, the check at
    11 s sends one, answered at once: reinstated at 11 s."""
    sim = Simulation(1)
    unit = _HeldTurs(sim)
    path = Path_("p", "host", "array", unit, 50)
    device = Multipath(sim, "m", [path], MultipathConfig(polling_interval=1.0,
                                                         checker_timeout=1.0))
    device.login(lambda: None)

    def answer_second(_event: object) -> None:
        unit.turs[1][1](GOOD)
    sim.call_later(10.5, answer_second)
    sim.run(10.9)
    assert [t for t, _done in unit.turs] == pytest.approx([1.0, 4.0])
    assert [(e[0], e[2]) for e in device.events] == [
        (pytest.approx(3.0), "failed (path checker: TUR timed out)")]
    sim.call_later(0.1 + 1e-9, lambda _e: unit.turs[-1][1](GOOD))  # the TUR of 11 s
    sim.run(11.5)
    assert [t for t, _done in unit.turs] == pytest.approx([1.0, 4.0, 11.0])
    assert device.events[-1][1:] == ("p", "reinstated (path checker)")
