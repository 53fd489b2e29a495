"""How often the SCSI initiator sends a failed command again, and what the FC
transport does with the commands to a remote port whose link is down, against
Linux's rules: sd's SD_MAX_RETRIES (5) retries, consumed by a timeout after
its abort and by an error (DID_ERROR: read data short) but not by TASK SET
FULL, which is requeued uncounted until the command has been around
(retries + 1) x its timeout (``scsi_cmd_runtime_exceeded``); a remote port
blocked while the local link is down holds its commands, their timers
restarted (``fc_eh_timed_out``), and fails them at fast_io_fail_tmo
(DID_TRANSPORT_FAILFAST) or dev_loss_tmo (DID_NO_CONNECT). Each timing is
checked against its closed form from the model's own parameters; a
hypothesis property checks that every command ends exactly once."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.build import BUILDERS
from fcsim.engine.simulation import Simulation
from fcsim.faults.config import DEV_LOSS_TMO, FaultConfig
from fcsim.faults.injector import install as install_faults
from fcsim.fc2 import header as h
from fcsim.fc2.port_states import LOS_ASSERT
from fcsim.fc4.fcp import (
    DID_ERROR,
    DID_NO_CONNECT,
    DID_TIME_OUT,
    DID_TRANSPORT_FAILFAST,
    DID_TRANSPORT_MARGINAL,
    GOOD,
    QUEUE_FULL_DELAY,
    SD_MAX_RETRIES,
    TASK_SET_FULL,
    TEST_UNIT_READY,
    Command,
    Response,
)
from fcsim.fc4.fcp_initiator import DEFAULT_TIMEOUT, PRLI, FcpInitiator
from fcsim.host.block import FcpLun
from fcsim.resources import DATA_ROOT
from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario
from fcsim.storage.build import Storage
from fcsim.storage.config import FioConfig, MultipathConfig
from fcsim.storage.device_model import RamDiskModel
from fcsim.storage.multipath import Multipath
from fcsim.storage.multipath import Path as Path_
from fcsim.workload.fio import FioOptions
from tests.builders import assert_refused, p2p

RAM = RamDiskModel("ram", 2**30, 10e-6, 1e9)
SLOW = RamDiskModel("slow", 2**30, 1e-3, 1e9)
"""A device slow enough that a command sent just before the link goes down is
answered after the N_Port has found it down (its answer is then held)."""

# -- the initiator alone, before a target that answers as told ------------------------


@dataclass
class _Seq:
    """What the initiator reads of a received sequence."""

    exchange: object
    r_ctl: int
    ulp: Any = None
    size: int = 0


class _Exchange:
    """An exchange as the initiator reads it: the N_Port it was opened to."""

    def __init__(self, responder_id: int) -> None:
        self.responder_id = responder_id


class _Port:
    """An N_Port stand-in: records what the initiator sends, and lets *answer*
    (called with the sequence's R_CTL and ULP, and the port) reply."""

    name = "host"

    def __init__(self, sim: Simulation, answer: Callable[[int, Any, _Port, object], None]
                 ) -> None:
        self.sim, self.answer = sim, answer
        self.sent: list[tuple[float, int]] = []
        self.handler: Any = None
        self.open = 0

    def register(self, types: Any, handler: Any) -> None:
        self.handler = handler

    def when_ready(self, then: Callable[[], None]) -> None:
        then()

    def open_exchange(self, d_id: int) -> object:
        self.open += 1
        return _Exchange(d_id)

    def close_exchange(self, exchange: object, abnormal: bool = False) -> None:
        self.open -= 1

    def take_back(self, exchange: object, meter: Any) -> None:
        pass

    def send(self, exchange: object, size: int, cls: int, **kw: Any) -> None:
        self.sent.append((self.sim.now, kw["r_ctl"]))
        self.answer(kw["r_ctl"], kw.get("ulp"), self, exchange)

    def reply(self, delay: float, exchange: object, r_ctl: int, ulp: Any = None,
              size: int = 0) -> None:
        """Deliver a sequence of *exchange* to the initiator *delay* s from now."""
        self.sim.call_later(delay, lambda _e: self.handler(_Seq(exchange, r_ctl, ulp, size),
                                                           self.sim.now))


def _initiator(answer: Callable[[int, Any, _Port, object], None], timeout: float,
               **kw: Any) -> tuple[Simulation, _Port, FcpInitiator, list[Command]]:
    sim = Simulation(1)
    port = _Port(sim, answer)
    initiator = FcpInitiator(sim, port, 3, timeout, **kw)  # type: ignore[arg-type]
    return sim, port, initiator, []


def _count(sent: list[tuple[float, int]], r_ctl: int) -> list[float]:
    return [t for t, r in sent if r == r_ctl]


def test_the_limits_are_linux_s() -> None:
    """sd.h: SD_MAX_RETRIES 5, SD_TIMEOUT 30 s; scsi_transport_fc: dev_loss_tmo
    60 s, fast_io_fail_tmo off (-1); the host bytes of include/scsi/scsi_status.h."""
    assert (SD_MAX_RETRIES, DEFAULT_TIMEOUT, DEV_LOSS_TMO) == (5, 30.0, 60.0)
    assert (DID_NO_CONNECT, DID_TIME_OUT, DID_ERROR, DID_TRANSPORT_FAILFAST,
            DID_TRANSPORT_MARGINAL) == (0x01 << 16, 0x03 << 16, 0x07 << 16, 0x0F << 16,
                                        0x14 << 16)
    from fcsim.scenario.model import NodeConfig
    assert NodeConfig("n").fast_io_fail_tmo is None


@pytest.mark.parametrize("failfast", [False, True])
def test_a_command_never_answered_fails_after_one_try_and_five_retries(failfast: bool) -> None:
    """Nothing comes back, not even the BA_ACC: each try is aborted at the
    timeout, its ABTS given up a timeout later, and the command sent again
    while retries remain; after 1 + SD_MAX_RETRIES tries it fails with
    DID_TIME_OUT at (1 + SD_MAX_RETRIES) x 2 x the timeout. The same for a
    multipath path's command (*failfast*: REQ_FAILFAST_TRANSPORT), which
    ``scsi_noretry_cmd`` does not stop from being retried after a timeout."""
    timeout = 0.5
    sim, port, initiator, done = _initiator(lambda *a: None, timeout, failfast=failfast)
    sim.call_later(0.0, lambda _e: initiator.submit(1, False, 0, 4096, done.append))
    sim.run(100.0)
    (command,) = done
    tries = 1 + SD_MAX_RETRIES
    assert command.status == DID_TIME_OUT and command.attempts == tries
    assert command.completed == pytest.approx(tries * 2 * timeout, rel=1e-12)
    assert _count(port.sent, h.R_CTL_UNSOLICITED_COMMAND) == pytest.approx(
        [k * 2 * timeout for k in range(tries)], abs=1e-12)
    assert len(_count(port.sent, h.R_CTL_ABTS)) == tries
    stats = initiator.stats
    assert (stats.timeouts, stats.retries, stats.failed) == (tries, SD_MAX_RETRIES, 1)
    assert initiator.in_flight == 0 and port.open == 0


def test_a_test_unit_ready_never_answered_fails_after_one_timeout_and_its_abort() -> None:
    """multipathd's TUR goes through SG_IO, a passthrough request:
    ``scsi_noretry_cmd`` makes its DID_TIME_OUT final, so it is tried once,
    aborted at the timeout and fails when the ABTS has gone unanswered as
    long, at 2 x the timeout. It is TEST UNIT READY (operation code 00h,
    SPC-4) and moves no data."""
    timeout = 0.5
    sim, port, initiator, done = _initiator(lambda *a: None, timeout, failfast=True)
    sim.call_later(0.0, lambda _e: initiator.test_unit_ready(1, done.append))
    sim.run(100.0)
    (command,) = done
    assert command.opcode == TEST_UNIT_READY == 0x00 and command.length == 0
    assert command.status == DID_TIME_OUT and command.attempts == 1
    assert command.completed == pytest.approx(2 * timeout, rel=1e-12)
    assert len(_count(port.sent, h.R_CTL_ABTS)) == 1
    assert (initiator.stats.timeouts, initiator.stats.retries) == (1, 0)
    assert initiator.in_flight == 0 and port.open == 0


def test_a_test_unit_ready_waits_the_timeout_it_was_sent_with() -> None:
    """multipathd's TUR goes through SG_IO with the checker's timeout
    (tur.c: ``io_hdr.timeout = timeout * 1000``; the request's timeout,
    ``scsi_fill_sghdr_rq``), not sd's: never answered, it is aborted at that
    timeout and fails when its ABTS has gone unanswered as long; a read sent
    beside it keeps sd's."""
    timeout, checker = 0.5, 0.2
    sim, port, initiator, done = _initiator(lambda *a: None, timeout, failfast=True)
    reads: list[Command] = []
    sim.call_later(0.0, lambda _e: initiator.test_unit_ready(1, done.append, timeout=checker))
    sim.call_later(0.0, lambda _e: reads.append(initiator.submit(1, False, 0, 4096,
                                                                 done.append)))
    sim.run(2 * timeout + 1e-3)
    (tur,), (read,) = done, reads
    assert tur.test_unit_ready and tur.status == DID_TIME_OUT
    assert tur.completed == pytest.approx(2 * checker, rel=1e-12)
    assert _count(port.sent, h.R_CTL_ABTS) == pytest.approx([checker, timeout])
    assert read.attempts == 2  # its abort gone unanswered at 2 x sd's timeout, sent again


def _p2p_storage(model: RamDiskModel = RAM) -> tuple[Simulation, Storage, Any]:
    """Host "a" and RAM disk target "b" (*model*) over 1 m of 4GFC, built; the
    job from "a" starts only after the runs here. The simulation, storage and
    network."""
    job = FioConfig("job", "a", "b", FioOptions("read", 4096, count=1), start=1.0)
    base = p2p((job,), 1.0, speed="4GFC")
    a, b = base.nodes
    scenario = dataclasses.replace(base, nodes=(a, dataclasses.replace(b, target=model)))
    sim = Simulation(1)
    net = BUILDERS[scenario.topology](sim, scenario)
    return sim, Storage(sim, scenario, net), net


def test_a_test_unit_ready_to_a_working_target_is_answered_good_without_the_device() -> None:
    """Over a point-to-point link to a RAM disk target: the TUR's exchange
    is its FCP_CMND and the FCP_RSP, GOOD, one round trip; the target's
    device is not involved (no command counted on its logical unit)."""
    sim, storage, net = _p2p_storage()
    initiator, target, d_id = storage.initiators["a"], storage.targets["b"], net.address_of("b")
    done: list[Command] = []
    sent = [0.0]

    def go() -> None:
        sent[0] = sim.now
        initiator.test_unit_ready(d_id, done.append)
    initiator.login(d_id, go)
    sim.run(0.01)
    (command,) = done
    assert command.status == GOOD and command.attempts == 1
    assert command.device_s == 0.0 and sum(target.unit_commands) == 0
    assert 0 < command.completed - sent[0] < 1e-3  # a round trip


def test_a_test_unit_ready_enters_the_task_set_and_waits_when_it_is_full() -> None:
    """TEST UNIT READY is a command like any other: it enters the logical
    unit's task set, and a logical unit without room for it answers TASK SET
    FULL (SAM-2 5.2: "returned when the logical unit receives a command and
    does not have enough resources to enter the associated task in the task
    set"; Linux's LIO target runs it as a command, ``spc_emulate_testunitready``,
    behind its qla2xxx driver's check of the commands pending,
    ``qlt_chk_qfull_thresh_hold``). With a task set of one held by a read of
    the slow device, the TUR is refused, waits at the initiator (as any
    command refused TASK SET FULL) and goes again when the read completes:
    it completes GOOD a round trip after the read, without the device."""
    sim, storage, net = _p2p_storage(dataclasses.replace(SLOW, queue_depth=1))
    initiator, target, d_id = storage.initiators["a"], storage.targets["b"], net.address_of("b")
    done: list[Command] = []
    tur: list[Command] = []

    def go() -> None:
        initiator.submit(d_id, False, 0, 4096, done.append)
        sim.call_later(1e-4, lambda _e: initiator.test_unit_ready(d_id, tur.append))
    initiator.login(d_id, go)
    sim.run(0.05)
    (read,), (command,) = done, tur
    assert read.status == GOOD and read.completed is not None
    assert command.status == GOOD and command.attempts == 2 and command.device_s == 0.0
    assert target.queue_full == 1 and initiator.stats.queue_full == 1
    assert sum(target.unit_commands) == 1  # the read's: a TUR is not I/O to the unit
    assert 0 < command.completed - read.completed < 1e-4  # sent again at once: a round trip


def test_a_test_unit_ready_refused_for_ever_fails_after_one_timeout() -> None:
    """An SG_IO request has no retries (``allowed`` 0), so a TUR always
    answered TASK SET FULL is requeued until it has been around longer than
    (0 + 1) x its timeout (``scsi_cmd_runtime_exceeded``), then completes
    with TASK SET FULL, which tur.c takes for the path down: at the first
    refusal later than the timeout, k x (delay + SCSI_QUEUE_DELAY) + delay."""
    timeout, delay = 0.011, 1e-4

    def answer(r_ctl: int, ulp: Any, port: _Port, exchange: object) -> None:
        port.reply(delay, exchange, h.R_CTL_COMMAND_STATUS, Response(TASK_SET_FULL))
    sim, port, initiator, done = _initiator(answer, timeout, failfast=True)
    sim.call_later(0.0, lambda _e: initiator.test_unit_ready(1, done.append))
    sim.run(10.0)
    (command,) = done
    k = math.floor((timeout - delay) / (delay + QUEUE_FULL_DELAY)) + 1
    assert command.status == TASK_SET_FULL and command.retries == 0
    assert command.completed == pytest.approx(k * (delay + QUEUE_FULL_DELAY) + delay)


@pytest.mark.parametrize(("failfast", "marginal", "status", "attempts"), [
    (True, True, DID_TRANSPORT_MARGINAL, 1), (False, True, DID_TIME_OUT, 1 + SD_MAX_RETRIES),
    (True, False, DID_TIME_OUT, 1 + SD_MAX_RETRIES)])
def test_a_multipath_command_to_a_marginal_port_is_not_retried_after_its_abort(
        failfast: bool, marginal: bool, status: int, attempts: int) -> None:
    """While the remote port is marginal, a multipath path's command
    (*failfast*) that timed out is handed up after its abort, not retried
    (``fc_eh_should_retry_cmd``): DID_TRANSPORT_MARGINAL at 2 x the timeout
    (its ABTS unanswered as long), after one try; a command without failfast
    is retried as before; and once the port is back online (unblocked) the
    multipath command is retried again."""
    timeout = 0.5
    sim, port, initiator, done = _initiator(lambda *a: None, timeout, failfast=failfast)
    initiator.mark_marginal(1)
    if not marginal:
        initiator.block(1)
        initiator.unblock(1)  # online again: no longer marginal
    sim.call_later(0.0, lambda _e: initiator.submit(1, False, 0, 4096, done.append))
    sim.run(100.0)
    (command,) = done
    assert (command.status, command.attempts) == (status, attempts)
    assert command.completed == pytest.approx(attempts * 2 * timeout, rel=1e-12)
    assert initiator.in_flight == 0 and port.open == 0


def test_a_command_lost_every_time_whose_aborts_are_answered() -> None:
    """The command is lost each time, its ABTS answered BA_ACC after *rtt*:
    each try costs the timeout and the round trip; the command fails at
    (1 + SD_MAX_RETRIES) x (timeout + rtt)."""
    timeout, rtt = 0.25, 1e-4

    def answer(r_ctl: int, ulp: Any, port: _Port, exchange: object) -> None:
        if r_ctl == h.R_CTL_ABTS:
            port.reply(rtt, exchange, h.R_CTL_BA_ACC)
    sim, port, initiator, done = _initiator(answer, timeout, max_retries=SD_MAX_RETRIES)
    sim.call_later(0.0, lambda _e: initiator.submit(1, True, 0, 4096, done.append))
    sim.run(100.0)
    (command,) = done
    tries = 1 + SD_MAX_RETRIES
    assert command.status == DID_TIME_OUT and command.attempts == tries
    assert command.completed == pytest.approx(tries * (timeout + rtt), rel=1e-12)


def test_task_set_full_is_requeued_without_using_a_retry() -> None:
    """TASK SET FULL eight times (more than SD_MAX_RETRIES), then GOOD: the
    command completes GOOD, having used no retry (scsi_decide_disposition:
    QUEUE_FULL is ADD_TO_MLQUEUE)."""
    timeout, delay, refusals = 1.0, 1e-4, 8

    def answer(r_ctl: int, ulp: Any, port: _Port, exchange: object) -> None:
        if r_ctl == h.R_CTL_UNSOLICITED_COMMAND:
            status = TASK_SET_FULL if ulp.attempts <= refusals else GOOD
            port.reply(delay, exchange, h.R_CTL_COMMAND_STATUS, Response(status))
    sim, port, initiator, done = _initiator(answer, timeout)
    sim.call_later(0.0, lambda _e: initiator.submit(1, True, 0, 4096, done.append))
    sim.run(10.0)
    (command,) = done
    assert command.status == GOOD and command.retries == 0
    assert command.attempts == refusals + 1 and initiator.stats.queue_full == refusals
    assert command.completed == pytest.approx(refusals * (delay + QUEUE_FULL_DELAY) + delay)


def test_task_set_full_for_ever_fails_once_the_command_outlives_its_retries() -> None:
    """Always TASK SET FULL: the command is refused at k x (delay +
    SCSI_QUEUE_DELAY) + delay and fails at the first refusal later than
    (SD_MAX_RETRIES + 1) x the timeout after its first sending, with the
    status the target gave."""
    timeout, delay = 0.011, 1e-4

    def answer(r_ctl: int, ulp: Any, port: _Port, exchange: object) -> None:
        port.reply(delay, exchange, h.R_CTL_COMMAND_STATUS, Response(TASK_SET_FULL))
    sim, port, initiator, done = _initiator(answer, timeout)
    sim.call_later(0.0, lambda _e: initiator.submit(1, False, 0, 4096, done.append))
    sim.run(10.0)
    (command,) = done
    limit = (SD_MAX_RETRIES + 1) * timeout
    k = math.floor((limit - delay) / (delay + QUEUE_FULL_DELAY)) + 1
    assert command.status == TASK_SET_FULL and command.retries == 0
    assert command.completed == pytest.approx(k * (delay + QUEUE_FULL_DELAY) + delay)
    assert initiator.stats.failed == 1 and initiator.in_flight == 0


def test_a_multipath_request_given_up_after_task_set_full_fails_its_path() -> None:
    """A multipath device over two paths whose first target answers every
    command TASK SET FULL: sd gives the request up at the first refusal later
    than (SD_MAX_RETRIES + 1) x the timeout (as above); Linux completes it
    with BLK_STS_IOERR (``scsi_io_completion_action``: a status other than
    GOOD without sense data is ACTION_FAIL, ``scsi_result_to_blk_status``
    DID_OK and not good), which ``blk_path_error`` counts, so dm-multipath
    fails the path and sends the request down the other, whose target
    answers GOOD after *delay*."""
    timeout, delay = 0.011, 1e-4
    sim = Simulation(1)

    def answering(status: int) -> Callable[[int, Any, _Port, object], None]:
        def answer(r_ctl: int, ulp: Any, port: _Port, exchange: object) -> None:
            if r_ctl == h.R_CTL_ELS_REQUEST:  # PRLI
                port.reply(0.0, exchange, h.R_CTL_ELS_REPLY, PRLI)
            else:
                port.reply(delay, exchange, h.R_CTL_COMMAND_STATUS, Response(status))
        return answer
    paths = [Path_(name, "host", "array", FcpLun(FcpInitiator(  # type: ignore[arg-type]
        sim, _Port(sim, answer), 3, timeout, failfast=True), 1), 50)
        for name, answer in (("full", answering(TASK_SET_FULL)), ("good", answering(GOOD)))]
    device = Multipath(sim, "mpath", paths, MultipathConfig(
        path_grouping_policy="multibus", path_selector="round-robin",
        polling_interval=10.0))
    statuses: list[tuple[float, int]] = []
    device.login(lambda: device.submit(True, 0, 4096,
                                       lambda status: statuses.append((sim.now, status))))
    sim.run(1.0)
    limit = (SD_MAX_RETRIES + 1) * timeout
    k = math.floor((limit - delay) / (delay + QUEUE_FULL_DELAY)) + 1
    given_up = k * (delay + QUEUE_FULL_DELAY) + delay
    ((completed, status),) = statuses
    assert status == GOOD and completed == pytest.approx(given_up + delay)
    assert device.results()["requeued"] == 1
    assert [p.state for p in paths] == ["failed", "active"]
    assert device.events[-1] == (pytest.approx(given_up), "full",
                                 "failed (I/O error, SCSI status 0x28)")


def test_read_data_short_uses_a_retry_each_time() -> None:
    """A read answered GOOD with none of its data (a data frame lost each
    time): DID_ERROR, sent again at once while retries remain, then failed."""
    delay = 1e-4

    def answer(r_ctl: int, ulp: Any, port: _Port, exchange: object) -> None:
        port.reply(delay, exchange, h.R_CTL_COMMAND_STATUS, Response(GOOD))
    sim, port, initiator, done = _initiator(answer, 1.0)
    sim.call_later(0.0, lambda _e: initiator.submit(1, False, 0, 4096, done.append))
    sim.run(10.0)
    (command,) = done
    assert command.status == DID_ERROR and command.attempts == 1 + SD_MAX_RETRIES
    assert command.completed == pytest.approx((1 + SD_MAX_RETRIES) * delay)
    assert initiator.stats.short_data == 1 + SD_MAX_RETRIES


def test_a_blocked_remote_port_holds_commands_and_restarts_their_timers() -> None:
    """A command outstanding when the port blocks outlives its timeout twice
    without an abort (fc_eh_timed_out resets the timer while the port is
    blocked); its answer, held meanwhile, comes when the port is back. One
    submitted while blocked waits and goes then. Neither uses a retry."""
    timeout, delay, back = 1.0, 1e-4, 2.5
    held: list[object] = []

    def answer(r_ctl: int, ulp: Any, port: _Port, exchange: object) -> None:
        if r_ctl != h.R_CTL_UNSOLICITED_COMMAND:
            return
        if port.sim.now < back:
            held.append(exchange)  # its answer waits for the link
        else:
            port.reply(delay, exchange, h.R_CTL_COMMAND_STATUS, Response(GOOD))
    sim, port, initiator, done = _initiator(answer, timeout)
    sim.call_later(0.0, lambda _e: initiator.submit(1, True, 0, 4096, done.append))
    sim.call_later(0.1, lambda _e: initiator.block(1))
    sim.call_later(0.2, lambda _e: initiator.submit(1, True, 0, 4096, done.append))

    def unblock(_e: object) -> None:
        initiator.unblock(1)
        for exchange in held:
            port.reply(delay, exchange, h.R_CTL_COMMAND_STATUS, Response(GOOD))
    sim.call_later(back, unblock)
    sim.run(20.0)
    done.sort(key=lambda c: c.tag)
    assert [(c.tag, c.status, c.attempts) for c in done] == [(0, GOOD, 1), (1, GOOD, 1)]
    assert [c.completed for c in done] == pytest.approx([back + delay] * 2)
    assert _count(port.sent, h.R_CTL_UNSOLICITED_COMMAND) == pytest.approx([0.0, back])
    stats = initiator.stats
    assert (stats.timeouts, stats.retries, stats.failed) == (0, 0, 0)


@pytest.mark.parametrize("status", [DID_TRANSPORT_FAILFAST, DID_NO_CONNECT])
def test_a_failed_remote_port_fails_its_commands_and_refuses_new_ones(status: int) -> None:
    sim, port, initiator, done = _initiator(lambda *a: None, 1.0)
    sim.call_later(0.0, lambda _e: initiator.submit(1, True, 0, 4096, done.append))
    sim.call_later(0.1, lambda _e: initiator.block(1))
    sim.call_later(0.2, lambda _e: initiator.submit(1, True, 0, 4096, done.append))
    sim.call_later(0.5, lambda _e: initiator.fail_port(1, status))
    sim.call_later(0.7, lambda _e: initiator.submit(1, True, 0, 4096, done.append))
    sim.run(0.9)
    assert [(c.tag, c.status, c.completed) for c in done] == [
        (0, status, 0.5), (1, status, 0.5), (2, status, 0.7)]
    assert initiator.in_flight == 0 and initiator.stats.failed == 3


# -- every command ends once -----------------------------------------------------------

OUTCOMES = ("lost", "aborted", "full", "short", "good")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(OUTCOMES), min_size=1, max_size=9), min_size=1,
                max_size=6),
       st.lists(st.tuples(st.floats(0.0, 3.0), st.sampled_from(("block", "unblock", "fast",
                                                                 "lost"))), max_size=4),
       st.integers(0, 6))
def test_every_command_completes_once_or_fails_once_with_an_error(
        scripts: list[list[str]], events: list[tuple[float, str]], retries: int) -> None:
    """Each command's tries meet the outcomes of its script in turn (the last
    repeated), with the remote port blocked, unblocked and failed at random
    times: each is handed back exactly once, GOOD or with an error status,
    after at most 1 + max_retries counted tries; nothing stays outstanding."""
    timeout, delay = 0.2, 1e-3
    script_of: dict[int, list[str]] = {}
    silent: set[object] = set()  # exchanges whose ABTS is lost too

    def answer(r_ctl: int, ulp: Any, port: _Port, exchange: object) -> None:
        if r_ctl == h.R_CTL_ABTS:
            if exchange not in silent:
                port.reply(delay, exchange, h.R_CTL_BA_ACC)
            return
        if r_ctl != h.R_CTL_UNSOLICITED_COMMAND:
            return
        script = script_of[ulp.tag]
        outcome = script[min(ulp.attempts, len(script)) - 1]
        if outcome == "aborted":
            return  # lost, its abort answered
        if outcome == "lost":
            silent.add(exchange)  # lost, and its abort too
            return
        status = TASK_SET_FULL if outcome == "full" else GOOD
        if outcome == "good" and not ulp.write:
            port.reply(delay / 2, exchange, h.R_CTL_SOLICITED_DATA, size=ulp.length)
        port.reply(delay, exchange, h.R_CTL_COMMAND_STATUS, Response(status))
    sim, port, initiator, done = _initiator(answer, timeout, max_retries=retries)
    for tag, script in enumerate(scripts):
        script_of[tag] = script
        sim.call_later(tag * 0.01, lambda _e, w=tag % 2 == 0: initiator.submit(
            1, w, 0, 4096, done.append))
    actions = {"block": lambda: initiator.block(1), "unblock": lambda: initiator.unblock(1),
               "fast": lambda: initiator.fail_port(1, DID_TRANSPORT_FAILFAST),
               "lost": lambda: initiator.fail_port(1, DID_NO_CONNECT)}
    for at, what in sorted(events):
        sim.call_later(at, lambda _e, a=actions[what]: a())
    if events:
        sim.call_later(3.5, lambda _e: initiator.unblock(1))
    sim.run(1000.0)
    assert sorted(c.tag for c in done) == list(range(len(scripts)))
    for command in done:
        assert command.status is not None and command.completed is not None
        assert command.retries <= retries
    assert initiator.stats.failed == sum(c.status != GOOD for c in done)
    assert initiator.in_flight == 0 and port.open == 0


# -- over a link that goes down -------------------------------------------------------


def _link_down_run(down_for: float, dev_loss: float, fast_io_fail: float | None,
                   timeout: float, late: float, extra: tuple[float, ...] = (),
                   down: float = 5e-3
                   ) -> tuple[list[Command], FcpInitiator, float, dict[str, Any]]:
    """Host "a" reads from RAM disk "b" (1 ms an access) over 1 m of 4GFC,
    commands timing out after *timeout* s; the link goes down at *down* s
    (default 5 ms, after the job's own read) for *down_for* s. Reads go
    straight to the initiator: one just before the link goes down
    (outstanding then, its answer held at the target), one *late* s after,
    and one at each time in *extra* (s)."""
    job = FioConfig("job", "a", "b", FioOptions("read", 4096, count=1), timeout=timeout)
    base = p2p((job,), 1.0, speed="4GFC")
    a, b = base.nodes
    scenario = dataclasses.replace(
        base, nodes=(dataclasses.replace(a, dev_loss_tmo=dev_loss, fast_io_fail_tmo=fast_io_fail),
                     dataclasses.replace(b, target=SLOW)),
        faults=(FaultConfig(down, "link-down", link="link", duration=down_for),))
    sim = Simulation(1)
    net = BUILDERS[scenario.topology](sim, scenario)
    storage = Storage(sim, scenario, net)
    install_faults(sim, scenario, net, {})
    initiator = storage.initiators["a"]
    d_id = net.address_of("b")
    done: list[Command] = []
    sim.call_later(down - 2e-6, lambda _e: initiator.submit(d_id, False, 0, 4096, done.append))
    sim.call_later(down + late, lambda _e: initiator.submit(d_id, False, 0, 4096, done.append))
    for at in extra:
        sim.call_later(at, lambda _e: initiator.submit(d_id, False, 0, 4096, done.append))
    sim.run(down + down_for + dev_loss + 2 * (1 + SD_MAX_RETRIES) * timeout
            + max(extra, default=0.0))
    return done, initiator, down, storage.results(1.0)


def test_a_link_down_shorter_than_dev_loss_tmo_loses_no_command_and_no_retry() -> None:
    """The link is down three command timeouts, less than dev_loss_tmo: the
    command outstanding and the one submitted meanwhile both complete GOOD,
    with no timeout, abort or retry (Linux: the blocked remote port holds the
    I/O and fc_eh_timed_out restarts its timer)."""
    timeout = 0.05
    done, initiator, down, results = _link_down_run(3 * timeout, 1.0, None, timeout, timeout)
    assert [c.status for c in done] == [GOOD, GOOD]
    assert all(c.completed > down + 3 * timeout for c in done)  # type: ignore[operator]
    stats = initiator.stats
    assert (stats.timeouts, stats.retries, stats.failed) == (0, 0, 0)
    assert results["jobs"]["job"]["errors"] == 0


@settings(max_examples=12, deadline=None)
@given(st.floats(2e-3, 0.03), st.floats(1e-3, 0.4), st.sampled_from((0.05, 0.2)),
       st.sampled_from((None, 0.03)), st.lists(st.floats(0.0, 0.5), max_size=6))
def test_across_any_outage_every_command_ends_once_as_the_transport_says(
        down: float, down_for: float, dev_loss: float, fast: float | None,
        extra: list[float]) -> None:
    """Whatever the outage, its length against dev_loss_tmo and
    fast_io_fail_tmo, and the times reads are submitted: each read ends
    exactly once; GOOD unless the outage outlasted the transport's first
    timer, when only the transport's status (DID_TRANSPORT_FAILFAST or
    DID_NO_CONNECT) is an error; nothing is left outstanding or held."""
    timeout = 0.02
    done, initiator, _, _ = _link_down_run(down_for, dev_loss, fast, timeout, down_for / 2,
                                           tuple(extra), down)
    assert len(done) == len({c.tag for c in done}) == 2 + len(extra)
    first = dev_loss if fast is None else min(fast, dev_loss)
    allowed = {GOOD} if down_for < first else {GOOD, DID_TRANSPORT_FAILFAST, DID_NO_CONNECT}
    assert {c.status for c in done} <= allowed
    assert initiator.in_flight == 0
    assert initiator.stats.failed == sum(c.status != GOOD for c in done)


def test_a_link_down_past_dev_loss_tmo_fails_the_commands_then() -> None:
    """The link stays down past dev_loss_tmo (fast_io_fail_tmo off): both
    commands fail with DID_NO_CONNECT dev_loss_tmo after the host port finds
    its link down (the loss of signal asserted, LOS_ASSERT after the cable is
    pulled), none sent again."""
    timeout, dev_loss = 0.05, 0.3
    done, initiator, down, _ = _link_down_run(1.0, dev_loss, None, timeout, timeout)
    assert [c.status for c in done] == [DID_NO_CONNECT, DID_NO_CONNECT]
    for command in done:
        assert command.completed == pytest.approx(down + LOS_ASSERT + dev_loss, abs=1e-9)
        assert command.retries == 0
    assert initiator.stats.timeouts == 0 and initiator.stats.failed == 2


def test_fast_io_fail_tmo_fails_them_sooner_and_refuses_the_next() -> None:
    """With fast_io_fail_tmo shorter than dev_loss_tmo the held commands fail
    with DID_TRANSPORT_FAILFAST fast_io_fail_tmo after the port finds its link
    down, and one submitted after fails at once."""
    timeout, dev_loss, fast = 0.05, 0.3, 0.1
    done, initiator, down, _ = _link_down_run(1.0, dev_loss, fast, timeout, 2 * fast)
    assert [c.status for c in done] == [DID_TRANSPORT_FAILFAST] * 2
    assert done[0].completed == pytest.approx(down + LOS_ASSERT + fast, abs=1e-9)
    assert done[1].completed == pytest.approx(down + 2 * fast, abs=1e-9)
    assert initiator.stats.timeouts == 0 and initiator.stats.retries == 0


class _Commands:
    """A trace sink: the start of every FCP_CMND frame sent, s."""

    def __init__(self) -> None:
        self.starts: list[float] = []

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        if (frame.sequence is not None
                and frame.sequence.r_ctl == h.R_CTL_UNSOLICITED_COMMAND):
            self.starts.append(start)

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        pass

    def state(self, time: float, port: Any, change: str) -> None:
        pass


def test_fio_counts_a_command_that_fails_every_try_as_an_error() -> None:
    """Every frame is lost from the first command on (the first FCP_CMND's
    start taken from a clean run): the read is tried 1 + SD_MAX_RETRIES
    times, each try's ABTS lost too, and fio reports one error."""
    timeout = 1e-3
    job = FioConfig("job", "a", "b", FioOptions("read", 4096, count=1), timeout=timeout)
    base = p2p((job,), 1.0, speed="4GFC")
    a, b = base.nodes
    clean_scenario = dataclasses.replace(base, nodes=(a, dataclasses.replace(b, target=RAM)))
    commands = _Commands()
    clean = run_once(clean_scenario, 1, [commands])
    assert clean["storage"]["jobs"]["job"]["ios"] == 1
    scenario = dataclasses.replace(clean_scenario, faults=(
        FaultConfig(commands.starts[0] - 1e-9, "bit-error-rate", link="link",
                    bit_error_rate=0.1),))
    lost = _Commands()
    out = run_once(scenario, 1, [lost])["storage"]
    assert out["jobs"]["job"]["errors"] == 1 and out["jobs"]["job"]["ios"] == 0
    stats = out["initiators"]["a"]
    assert (stats["timeouts"], stats["retries"], stats["failed"]) == (
        1 + SD_MAX_RETRIES, SD_MAX_RETRIES, 1)
    # each try goes two timeouts (the command's, then its ABTS's) after the last
    assert lost.starts == pytest.approx(
        [commands.starts[0] + 2 * timeout * k for k in range(1 + SD_MAX_RETRIES)], abs=1e-6)


# -- the scenario keys ------------------------------------------------------------------

ABTS_EXAMPLE = DATA_ROOT / "scenarios" / "fcp-abts-after-loss.toml"


def test_a_node_s_fast_io_fail_tmo_is_read_and_a_bad_one_refused(tmp_path: Path) -> None:
    base = ABTS_EXAMPLE.read_text()
    edit = ('name = "host"\n', 'name = "host"\nfast_io_fail_tmo = "2 s"\n'
            'dev_loss_tmo = "10 s"\n')
    path = tmp_path / "ok.toml"
    path.write_text(base.replace(*edit, 1))
    host = next(n for n in load_scenario(path).nodes if n.name == "host")
    assert (host.fast_io_fail_tmo, host.dev_loss_tmo) == (2.0, 10.0)
    assert next(n for n in load_scenario(ABTS_EXAMPLE).nodes
                if n.name == "host").fast_io_fail_tmo is None
    assert_refused(tmp_path, base,
                   ('name = "host"\n', 'name = "host"\nfast_io_fail_tmo = "soon"\n'),
                   "nodes[0].fast_io_fail_tmo", "given 'soon'", "'off' or a time")


def test_a_burst_held_for_a_command_failed_at_fast_io_fail_tmo_is_not_sent_after() -> None:
    """A 1 MiB write's data burst is cut by the pulled cable (its rest held at
    FC-2); the command fails at fast_io_fail_tmo, and when the cable is back
    (before dev_loss_tmo) the rest of the burst is dropped, not sent for an
    exchange the host has given up: the burst (counted whole) is dropped
    while down, and the host sends no data frame after."""
    size, fast = 2**20, 0.05
    job = FioConfig("job", "a", "b", FioOptions("write", size, count=1), timeout=1.0)
    base = p2p((job,), 0.5)  # 1GFC: the MiB takes about 10 ms
    a, b = base.nodes
    down, back = 5e-3, 0.2
    scenario = dataclasses.replace(
        base, nodes=(dataclasses.replace(a, fast_io_fail_tmo=fast, dev_loss_tmo=1.0),
                     dataclasses.replace(b, target=RAM)),
        faults=(FaultConfig(down, "link-down", link="link", duration=back - down),))
    sent_after: list[float] = []

    class _After:
        def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
            if (start > back and frame.sequence is not None
                    and frame.sequence.r_ctl == h.R_CTL_SOLICITED_DATA):
                sent_after.append(start)

        def primitive(self, time: float, port: Any, name: str, start: float) -> None:
            pass

        def state(self, time: float, port: Any, change: str) -> None:
            pass
    result = run_once(scenario, 1, [_After()])
    figures = result["storage"]["jobs"]["job"]
    assert figures["errors"] == 1 and result["storage"]["initiators"]["a"]["failed"] == 1
    (dropped,) = result["faults"]["dropped_while_down"].values()
    assert (dropped["sequences"], dropped["bytes"]) == (1, size)  # the burst, begun
    assert sent_after == []
