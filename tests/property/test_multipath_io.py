"""Every request given to a multipath device completes exactly once, however
its paths fail and come back: no request is lost in a failover and none
completes twice (sent again on another path, its first attempt is given
up by the transport, never answered as well). The paths here are stand-ins
that answer after a fixed time while their remote port is online and hold
what they have when it is blocked, until the transport fails it fast
(:meth:`PathDevice.terminate`), as Linux's FC transport does, or, *silent*
with their remote port online, answer nothing: a request then ends as sd
ends it, DID_TIME_OUT after its retries, and a TEST UNIT READY from the
path checker, DID_TIME_OUT after its one timeout and abort."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from fcsim.engine.simulation import Simulation
from fcsim.fc4.fcp import DID_TIME_OUT, DID_TRANSPORT_FAILFAST, GOOD, SD_MAX_RETRIES
from fcsim.storage.config import (
    FAILOVER,
    GROUP_BY_PRIO,
    MULTIBUS,
    MultipathConfig,
)
from fcsim.storage.multipath import Multipath, Path
from fcsim.storage.path_selector import SELECTORS
from fcsim.storage.remote_port import BLOCKED, FAIL_FAST, LOST, ONLINE

SERVICE = 1e-3
"""How long a working path takes over a request, s."""
TIMEOUT = 0.004
"""The command timeout, and the checker's, s."""
TICK = 0.001
"""The period of multipathd's checker loop, scaled down with the timeout, s."""
SD_GIVES_UP = (1 + SD_MAX_RETRIES) * 2 * TIMEOUT
"""When sd ends a command sent down a silent path, s after it was sent."""


class StandInPath:
    """A path device: answers GOOD after :data:`SERVICE` while *online*; a
    blocked one holds its requests (they are answered once it is back, or
    failed by :meth:`terminate`)."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.online = True
        self.silent = False
        self._open: dict[int, Callable[[int], None]] = {}
        self._held: list[int] = []
        self._next = 0
        self.turs: set[int] = set()  # the checker's TEST UNIT READYs, by tag

    def login(self, then: Callable[[], None]) -> None:
        then()

    def submit(self, write: bool, offset: int, length: int, done: Callable[[int], None],
               meter: Any = None) -> None:
        tag = self._next
        self._next += 1
        self._open[tag] = done
        if self.silent:
            self.sim.call_later(SD_GIVES_UP, self._answer, (tag, DID_TIME_OUT))
        elif self.online:
            self.sim.call_later(SERVICE, self._answer, (tag, GOOD))
        else:
            self._held.append(tag)

    def test_unit_ready(self, done: Callable[[int], None], timeout: float) -> None:
        tag = self._next
        self._next += 1
        self.turs.add(tag)
        self._open[tag] = done
        if self.silent:
            self.sim.call_later(2 * timeout, self._answer, (tag, DID_TIME_OUT))
        elif self.online:
            self.sim.call_later(SERVICE, self._answer, (tag, GOOD))
        else:
            self._held.append(tag)

    def _answer(self, value: tuple[int, int]) -> None:
        tag, status = value
        done = self._open.pop(tag, None)
        if done is not None:
            done(status)

    def back(self) -> None:
        self.online = True
        held, self._held = self._held, []
        for tag in held:
            self.sim.call_later(SERVICE, self._answer, (tag, GOOD))

    def terminate(self, status: int) -> int:
        doomed, self._open, self._held = self._open, {}, []
        for done in doomed.values():
            done(status)
        return len(doomed)


class StandInPort:
    """The remote port state a path's checker reads."""

    def __init__(self) -> None:
        self.state = ONLINE


outages = st.lists(st.tuples(st.floats(0.0, 0.2), st.floats(1e-4, 0.1), st.integers(0, 3),
                             st.sampled_from(["fail-fast", "lost", "silent"])), max_size=6)


@given(st.integers(1, 4), st.sampled_from([FAILOVER, MULTIBUS, GROUP_BY_PRIO]),
       st.sampled_from(SELECTORS), st.sampled_from(["fail", "queue", 2]),
       st.sampled_from(["immediate", "manual", 0.01]), outages,
       st.lists(st.floats(0.0, 0.3), min_size=1, max_size=60))
@settings(max_examples=120, deadline=None)
@example(1, FAILOVER, "round-robin", "fail", "immediate",  # a TUR in flight at the end
         [(0.0703125, 0.078125, 0, "fail-fast")], [0.0])
def test_every_request_completes_exactly_once(k: int, policy: str, selector: str,
                                               no_path_retry: Any, failback: Any,
                                               outages: list[tuple[float, float, int, str]],
                                               arrivals: list[float]) -> None:
    sim = Simulation(1)
    config = MultipathConfig(policy, selector, 1, failback, no_path_retry, 0.02, 0.005,
                             "off", 0.03, checker_timeout=TIMEOUT, checker_tick=TICK)
    devices = [StandInPath(sim) for _ in range(k)]
    paths = [Path(f"p{i}", f"h{i}", f"t{i}", d, 50 if i % 2 == 0 else 10)
             for i, d in enumerate(devices)]
    for path in paths:
        path.rport = StandInPort()  # type: ignore[assignment]
    device = Multipath(sim, "mp", paths, config)
    device.login(lambda: None)
    outcomes: dict[int, list[int]] = {}

    def submit(n: int) -> None:
        outcomes[n] = []
        device.submit(False, n * 4096, 4096, outcomes[n].append)

    def down(value: tuple[int, float, str]) -> None:
        index, length, kind = value
        path, port, stand_in = paths[index], paths[index].rport, devices[index]
        if port.state != ONLINE or stand_in.silent:  # type: ignore[union-attr]
            return
        if kind == "silent":  # frames dropped, the link up: the remote port stays online
            stand_in.silent = True

            def heal(_: object) -> None:
                stand_in.silent = False
            sim.call_later(length, heal)
            return
        lost = kind == "lost"
        stand_in.online = False
        port.state = BLOCKED  # type: ignore[union-attr]
        device.rport_changed(path, BLOCKED)
        ends = LOST if lost else FAIL_FAST
        fail_after = config.dev_loss_tmo if lost else config.fast_io_fail_tmo

        def expire(_: object) -> None:
            if port.state == BLOCKED:  # type: ignore[union-attr]
                port.state = ends  # type: ignore[union-attr]
                device.rport_changed(path, ends)
        sim.call_later(fail_after, expire)  # type: ignore[arg-type]

        def up(_: object) -> None:
            port.state = ONLINE  # type: ignore[union-attr]
            stand_in.back()
            device.rport_changed(path, ONLINE)
        sim.call_later(length, up)

    for n, at in enumerate(arrivals):
        sim.call_later(at, lambda _e, n=n: submit(n))
    for at, length, index, kind in outages:
        if index < k:
            sim.call_later(at, down, (index, length, kind))
    sim.run(2.0)
    assert sorted(outcomes) == list(range(len(arrivals)))
    for n, statuses in outcomes.items():
        assert len(statuses) == 1, (n, statuses)
        assert statuses[0] in (GOOD, DID_TRANSPORT_FAILFAST)
        if no_path_retry == "queue":
            assert statuses[0] == GOOD  # queued until a path came back, never failed
    assert device.ios == len(arrivals)
    # no request left on a path (a checker's TUR may be in flight as the run ends)
    assert not any(set(d._open) - d.turs or set(d._held) - d.turs for d in devices)
    assert device.failed_ios == sum(s == [DID_TRANSPORT_FAILFAST] for s in outcomes.values())
