"""NVMe native multipath (fcsim.storage.nvme_multipath): the path each I/O
policy chooses by ANA state, as Linux's drivers/nvme/host/multipath.c does;
failover of path errors; and the property that every command ends exactly
once, completed or failed with an error, across path losses."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.engine.simulation import Simulation
from fcsim.faults.config import FaultConfig
from fcsim.fc4.fcp import CHECK_CONDITION, GOOD
from fcsim.fc4.nvme import HOST_ABORTED, INVALID_NAMESPACE, SUCCESS, is_path_error
from fcsim.fc4.nvme_recovery import HOST_PATH_ERROR
from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario
from fcsim.storage.config import ANA_STATES, IOPOLICIES, NON_OPTIMIZED, OPTIMIZED
from fcsim.storage.nvme_multipath import AnaPath, NamespaceHead
from fcsim.storage.remote_port import BLOCKED, FAIL_FAST, LOST, ONLINE
from tests.builders import assert_refused


class StubInitiator:
    """An FC-NVMe host that completes each command *service* s after it is
    sent, with the status *statuses* gives in turn (SUCCESS when empty), and
    whose :meth:`terminate` ends the outstanding ones at once."""

    def __init__(self, sim: Simulation, service: float = 1e-3,
                 statuses: list[int] | None = None) -> None:
        self.sim, self.service = sim, service
        self.statuses = list(statuses or [])
        self.outstanding: dict[int, tuple[SimpleNamespace, Callable[[Any], None]]] = {}
        self.sent = 0
        self.listeners: list[Callable[[int, str], None]] = []
        self.states: dict[int, str] = {}  # a target's association: "live" unless set

    def live(self, d_id: int) -> bool:
        return self.states.get(d_id, "live") == "live"

    def coming_back(self, d_id: int) -> bool:
        return self.states.get(d_id, "live") in ("resetting", "connecting")

    def enter(self, d_id: int, state: str) -> None:
        """The association with *d_id* enters *state*; the listeners are told."""
        self.states[d_id] = state
        for listener in self.listeners:
            listener(d_id, state)

    def connect(self, d_id: int, then: Callable[[], None]) -> None:
        then()

    def submit(self, d_id: int, write: bool, offset: int, length: int,
               done: Callable[[Any], None], meter: Any = None, nsid: int = 1) -> None:
        key = self.sent
        self.sent += 1
        status = self.statuses.pop(0) if self.statuses else SUCCESS
        self.outstanding[key] = (SimpleNamespace(status=status, d_id=d_id), done)
        self.sim.call_later(self.service, self._complete, key)

    def _complete(self, key: int) -> None:
        entry = self.outstanding.pop(key, None)
        if entry is not None:
            entry[1](entry[0])

    def terminate(self, d_id: int, status: int) -> int:
        doomed = [k for k, (c, _) in self.outstanding.items() if c.d_id == d_id]
        for key in doomed:
            command, done = self.outstanding.pop(key)
            command.status = status
            done(command)
        return len(doomed)


def head_of(states: list[str], policy: str, sim: Simulation | None = None,
            initiator: StubInitiator | None = None) -> NamespaceHead:
    """A head over one path per ANA state in *states*, each with a remote port
    online, logged in."""
    sim = sim or Simulation()
    initiator = initiator or StubInitiator(sim)
    paths = [AnaPath(f"p{i}", f"h{i}", f"t{i}", initiator, i, 1, s)  # type: ignore[arg-type]
             for i, s in enumerate(states)]
    head = NamespaceHead(sim, "ns", paths, policy)
    for path in paths:
        path.rport = SimpleNamespace(state=ONLINE)  # type: ignore[assignment]
    head.login(lambda: None)
    return head


def choices(head: NamespaceHead, n: int) -> list[str]:
    """The paths of *n* commands sent one after another, none completing."""
    out = []
    for _ in range(n):
        path = head.find_path()
        assert path is not None
        path.in_flight += 1
        out.append(path.name)
    return out


def test_path_errors_are_the_path_related_status_code_type() -> None:
    """Status code type 3h, Path Related Status (NVMe Base Specification 2.0)."""
    for status in (0x301, 0x302, 0x303, HOST_PATH_ERROR, HOST_ABORTED):
        assert is_path_error(status)
    for status in (SUCCESS, INVALID_NAMESPACE, 0x281, 0x170):
        assert not is_path_error(status)


def test_numa_keeps_the_first_optimized_path() -> None:
    head = head_of([NON_OPTIMIZED, OPTIMIZED, OPTIMIZED], "numa")
    assert choices(head, 4) == ["p1"] * 4


def test_round_robin_takes_the_optimized_paths_in_turn() -> None:
    head = head_of([OPTIMIZED, NON_OPTIMIZED, OPTIMIZED, "inaccessible"], "round-robin")
    assert choices(head, 5) == ["p0", "p2", "p0", "p2", "p0"]


def test_queue_depth_takes_the_optimized_path_with_fewest_outstanding() -> None:
    head = head_of([OPTIMIZED, OPTIMIZED, NON_OPTIMIZED], "queue-depth")
    head.paths[0].in_flight = 3
    assert choices(head, 4) == ["p1", "p1", "p1", "p0"]  # 0/3, 1/3, 2/3, then the first on 3/3


@pytest.mark.parametrize("policy", IOPOLICIES)
def test_non_optimized_only_when_no_optimized_path_is_live(policy: str) -> None:
    head = head_of([NON_OPTIMIZED, OPTIMIZED, "change"], policy)
    assert set(choices(head, 3)) == {"p1"}
    head.paths[1].rport.state = BLOCKED  # type: ignore[union-attr]
    assert set(choices(head, 3)) == {"p0"}


@pytest.mark.parametrize("policy", IOPOLICIES)
def test_no_path_in_the_other_ana_states_is_ever_chosen(policy: str) -> None:
    head = head_of(["inaccessible", "persistent-loss", "change"], policy)
    assert head.find_path() is None


def test_a_path_error_fails_over_and_another_error_ends_the_command() -> None:
    sim = Simulation()
    initiator = StubInitiator(sim, statuses=[HOST_PATH_ERROR, SUCCESS, INVALID_NAMESPACE])
    head = head_of([OPTIMIZED, OPTIMIZED], "numa", sim, initiator)
    ended: list[int] = []
    head.submit(False, 0, 4096, ended.append)
    head.submit(False, 0, 4096, ended.append)
    sim.run(1.0)
    assert sorted(ended) == [GOOD, CHECK_CONDITION]
    assert head.failovers == 1 and head.paths[0].errors == 1
    # the current path cleared, __nvme_find_path finds the first optimized
    # live path again: a path error on a live controller may go down it again
    assert (head.paths[0].ios, head.paths[1].ios) == (3, 0)


def test_a_resetting_controller_carries_no_command_until_its_association_is_live() -> None:
    """A path whose association is reset (a command failed in the transport)
    is disabled as nvme_path_is_disabled does for a controller not live: the
    next commands go down the other path; with that one reset too they wait
    at the head while either may come back, go when one is live again, and
    fail once neither may."""
    sim = Simulation()
    initiator = StubInitiator(sim)
    head = head_of([OPTIMIZED, OPTIMIZED], "numa", sim, initiator)
    assert choices(head, 1) == ["p0"]
    initiator.enter(0, "resetting")
    assert head.current is None and choices(head, 2) == ["p1", "p1"]
    initiator.enter(1, "connecting")
    ended: list[int] = []
    head.submit(False, 0, 4096, ended.append)
    assert head.queued == 1 and head.paths[0].available
    initiator.enter(0, "live")  # made again: the waiting command goes down it
    assert head.queued == 0 and head.paths[0].ios == 1
    sim.run(1.0)
    assert ended == [GOOD]
    initiator.enter(0, "lost")
    assert not head.paths[0].available and head.paths[1].available
    head.submit(False, 0, 4096, ended.append)
    assert head.queued == 1  # p1 may still come back
    initiator.enter(1, "lost")  # nothing left that may come back: it fails
    assert head.queued == 0 and ended == [GOOD, CHECK_CONDITION]


@settings(max_examples=150, deadline=None)
@given(states=st.lists(st.sampled_from(ANA_STATES), min_size=1, max_size=3),
       policy=st.sampled_from(IOPOLICIES),
       commands=st.lists(st.floats(0, 10e-3), min_size=1, max_size=30),
       losses=st.lists(st.tuples(st.integers(0, 2), st.floats(0, 10e-3),
                                 st.sampled_from([ONLINE, FAIL_FAST, LOST]),
                                 st.floats(1e-4, 5e-3)), max_size=4),
       errors=st.lists(st.sampled_from([SUCCESS, SUCCESS, HOST_PATH_ERROR, INVALID_NAMESPACE]),
                       max_size=10))
def test_every_command_ends_exactly_once_across_path_losses(
        states: list[str], policy: str, commands: list[float],
        losses: list[tuple[int, float, str, float]], errors: list[int]) -> None:
    """Commands submitted at random times while paths are lost (blocked, then
    online again, fail-fast or lost) each end at most once: GOOD, or
    CHECK_CONDITION counted as failed for want of a path or ended by a
    non-path error. One that has not ended waits at the head, and only while
    no path is usable and one is available (live in an ANA state that
    carries no I/O, as Linux queues for an ANA change; the scenario checks
    refuse a target with no path that carries I/O)."""
    sim = Simulation()
    initiator = StubInitiator(sim, statuses=errors)
    head = head_of(states, policy, sim, initiator)
    ended: dict[int, list[int]] = {i: [] for i in range(len(commands))}
    for i, at in enumerate(commands):
        sim.call_later(at, lambda i: head.submit(False, 0, 4096, ended[i].append), i)
    for index, at, fate, after in losses:
        if index >= len(head.paths):
            continue
        path = head.paths[index]

        def lose(path: AnaPath = path, fate: str = fate, after: float = after) -> None:
            if path.rport.state != ONLINE:  # type: ignore[union-attr]
                return
            path.rport.state = BLOCKED  # type: ignore[union-attr]
            head.rport_changed(path, BLOCKED)

            def settle(_: Any) -> None:
                path.rport.state = fate  # type: ignore[union-attr]
                head.rport_changed(path, fate)
            sim.call_later(after, settle)
        sim.call_later(at, lambda _v, lose=lose: lose())
    sim.run(1.0)
    assert all(len(e) <= 1 for e in ended.values()), ended
    waiting = sum(not e for e in ended.values())
    assert waiting == head.queued
    if waiting:  # only while a path might serve again: the ANA state of a live one
        assert head.find_path() is None and any(p.available for p in head.paths)
    failed = sum(e == [CHECK_CONDITION] for e in ended.values())
    assert all(e[0] in (GOOD, CHECK_CONDITION) for e in ended.values() if e)
    non_path = errors.count(INVALID_NAMESPACE)
    assert head.failed_ios <= failed <= head.failed_ios + non_path
    if not any(s in (OPTIMIZED, NON_OPTIMIZED) for s in states):
        assert failed == head.failed_ios and failed + waiting == len(commands)


EXAMPLE = (Path(__file__).parents[2] / "scenarios" / "nvme-multipath-ana.toml").read_text()
ANA = 'ana_states = { "array.1" = "non-optimized" }'


def test_association_resets_on_one_path_fail_its_reads_over_to_the_other() -> None:
    """scenarios/nvme-multipath-ana.toml with bit errors on the optimized
    path's host link instead of the cable pull, and no SLER: each read that
    fails in the transport there resets that controller's association; its
    reads fail over (path errors) to the non-optimized path, which carries
    reads only then, and the optimized path is disabled from its reset to
    its reconnection, in that order each time. With 4-entry queues and 16
    reads outstanding, those waiting for an entry at a reset fail over too
    (nvmf_fail_nonready_command). No read fails."""
    base = load_scenario(Path(__file__).parents[2] / "scenarios" / "nvme-multipath-ana.toml")
    host, array = base.nodes
    fault = FaultConfig(0.004, "bit-error-rate", link="hostA", bit_error_rate=1e-6,
                        duration=0.004)
    (reads,) = base.workloads
    assert reads.options.iodepth == 16
    scenario = dataclasses.replace(base, faults=(fault,), nodes=(
        dataclasses.replace(host, nvme_sler=False), array), workloads=(
        dataclasses.replace(reads, nvme=dataclasses.replace(reads.nvme, queue_size=4)),))
    storage = run_once(scenario, 1)["storage"]
    assert storage["jobs"]["reads"]["errors"] == 0
    recovery = storage["nvme_initiators"]["host"]["recovery"]
    assert "recovery" not in storage["nvme_initiators"]["host.1"]
    resets = recovery["association_resets"]
    assert resets >= 1 and recovery["reconnects"] == resets
    (head,) = storage["nvme_multipath"].values()
    optimized, other = head["paths"]["host-array"], head["paths"]["host.1-array.1"]
    assert head["failed_ios"] == 0 and optimized["errors"] == recovery["failed"] > 0
    # each reset fails over its trigger, the reads it aborted and those waiting
    # for an entry (without these last, failed would be aborts + resets)
    assert recovery["failed"] > recovery["aborts"] + resets
    assert other["ios"] > 0 and other["errors"] == 0
    events = [e["event"] for e in head["events"] if e["path"] == "host-array"]
    assert events == ["controller resetting", "controller connecting",
                      "controller live"] * resets


@pytest.mark.parametrize(("edit", "key", "given", "allowed"), [
    (('iopolicy = "round-robin"', 'iopolicy = "service-time"'),
     "nodes[0].multipath.iopolicy", "given 'service-time'", "'queue-depth'"),
    ((ANA, 'ana_states = { "array.1" = "standby" }'),
     "nodes[1].ana_states", "given {array.1 = 'standby'}", "'persistent-loss'"),
    ((ANA, 'ana_states = { "array.2" = "inaccessible" }'),
     "nodes[1].ana_states.array.2", "given 'array.2'", "one of the node's N_Ports"),
    ((ANA, 'ana_states = { "array" = "inaccessible", "array.1" = "change" }'),
     "workloads[0].to", "given 'array'", "an optimized or non-optimized N_Port"),
    (('[nodes.multipath]\niopolicy = "round-robin"', ''),
     "workloads[0].to", "given 'array'", "or a host with [nodes.multipath]"),
    (('[nodes.multipath]', 'ana_states = { "host" = "optimized" }\n[nodes.multipath]'),
     "nodes[0].ana_states", "given {host = 'optimized'}", "only for a target"),
])
def test_bad_nvme_multipath_keys_are_refused_in_one_line(
        tmp_path: Path, edit: tuple[str, str], key: str, given: str, allowed: str) -> None:
    base = EXAMPLE
    if allowed.startswith("or a host"):  # a host without multipath, a port inaccessible
        base = base.replace(ANA, 'ana_states = { "array.1" = "inaccessible" }')
    assert_refused(tmp_path, base, edit, key, given, allowed)
