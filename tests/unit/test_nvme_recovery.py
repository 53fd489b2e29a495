"""FC-NVMe error recovery in Class 3: the FC-NVMe-2 IUs and the REC ELS
against their layouts, SLER negotiated at PRLI only when both ends offer it,
and the recovery of one lost frame, with SLER (inside the exchange: at once
for a read's data, after REC_TOV and a REC for the rest) and without (the
NVMe layer's timeout, ABTS and a new exchange), each against its closed form
from the model's own parameters."""

from __future__ import annotations

import dataclasses
import struct
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.faults.config import FaultConfig
from fcsim.fc0.speed import speed_named
from fcsim.fc2 import header as h
from fcsim.fc2.frame import MAX_DATA_FIELD, frame_chars
from fcsim.fc2.login import R_A_TOV, ServiceParameters
from fcsim.fc2.port import Port
from fcsim.fc2.rec import (
    ESB_COMPLETE,
    ESB_RESPONDER,
    ESB_SEQUENCE_INITIATIVE,
    REC_ACC_SIZE,
    REC_SIZE,
    Rec,
    RecAnswer,
    answer_bytes,
    rec_bytes,
)
from fcsim.fc2.sequence import Exchange
from fcsim.fc4.nvme import (
    CMD_IU_SIZE,
    CREATE_ASSOCIATION_ACC_SIZE,
    CREATE_ASSOCIATION_SIZE,
    CREATE_CONNECTION_ACC_SIZE,
    CREATE_CONNECTION_SIZE,
    DISCONNECT_ASSOCIATION_ACC_SIZE,
    DISCONNECT_ASSOCIATION_SIZE,
    HOST_ABORTED,
    PRLI_SIZE,
    R_CTL_ERSP,
    R_CTL_LS_REQUEST,
    R_CTL_SR,
    R_CTL_SR_RSP,
    RSP_SIZE,
    SR_RSP_SIZE,
    SR_SIZE,
    XFER_RDY_SIZE,
    CreateAssociation,
    DisconnectAssociation,
    NvmeSr,
    NvmeSrResponse,
    PrliNvme,
    ersp_ratio,
)
from fcsim.fc4.nvme_bytes import SLER, nvme_sr, nvme_sr_rsp, prli_nvme
from fcsim.fc4.nvme_recovery import (
    COMMAND,
    CTRL_LOSS_TMO,
    IO_TIMEOUT,
    LS_TIMEOUT,
    MAX_RECOVERIES,
    MAX_RETRIES,
    RECONNECT_DELAY,
    rec_tov,
    reconnect_limit,
    retry_r_ctl,
)
from fcsim.runner import _run_once
from fcsim.storage.config import FioConfig, NvmeOptions
from fcsim.storage.device_model import RamDiskModel
from fcsim.workload.fio import FioOptions
from tests.builders import assert_refused, p2p

RAM = RamDiskModel("ram", 2**30, 10e-6, 1e9)
PROPAGATION = 5e-9
"""Propagation delay of the builders' 1 m link, s."""
SPEED = "4GFC"

# -- the IUs and the ELS against their layouts ------------------------------------


def test_the_sr_ius_are_eight_bytes_as_linux_nvme_fc_h_lays_them_out() -> None:
    assert (R_CTL_SR, R_CTL_SR_RSP, SR_SIZE, SR_RSP_SIZE) == (0x09, 0x0A, 8, 8)
    sr = nvme_sr(NvmeSr(h.R_CTL_SOLICITED_DATA))
    assert sr == bytes([0x28, 0x01, 0x00, 0x01, 0, 0, 0, 0])  # fc_id, opcode, rsvd, retry_rctl
    assert nvme_sr_rsp(NvmeSrResponse()) == bytes([0x28, 0x02, 0, 0x00, 0, 0, 0, 0])


def test_the_prli_page_carries_the_sler_bit_in_word_3_bit_8() -> None:
    """Linux lpfc's NVMe PRLI: command word 0x20140018 (page length 0x14, 24
    bytes), the page's word 3 the flags (first burst allowed bit 0,
    initiator bit 5, SLER bit 8), word 4 the first burst size in 512 bytes."""
    plain = prli_nvme(False, True)
    sler = prli_nvme(False, True, PrliNvme(8192, sler=True))
    assert len(plain) == len(sler) == PRLI_SIZE == 24
    assert struct.unpack(">I", sler[:4])[0] == 0x20140018
    word3, word4 = struct.unpack(">II", sler[4 + 12:4 + 20])
    assert word3 == 0x20 | SLER | 0x01 and SLER == 1 << 8
    assert word4 == 8192 // 512
    assert struct.unpack(">II", plain[4 + 12:4 + 20]) == (0x20, 0)
    accept = prli_nvme(True, False, PrliNvme(0, sler=True))
    assert struct.unpack(">I", accept[:4])[0] == 0x02140018
    assert struct.unpack(">I", accept[4 + 12:4 + 16])[0] == 0x10 | SLER


def test_rec_and_its_answers_are_fc_ls_payloads() -> None:
    exchange = Exchange(0x1234, SimpleNamespace(port_id=0x010200), 0x020300)
    exchange.rx_id = 0x0042
    request = rec_bytes(Rec(exchange), 0x010200)
    assert len(request) == REC_SIZE == 12
    assert request == bytes([0x13, 0, 0, 0, 0x00, 0x01, 0x02, 0x00, 0x12, 0x34, 0x00, 0x42])
    accept = answer_bytes(RecAnswer(exchange, True, 4096, True, False), 0x010200, 0x020300)
    assert len(accept) == REC_ACC_SIZE == RecAnswer(exchange, True).size == 24
    assert accept[0] == 0x02 and accept[4:8] == bytes([0x12, 0x34, 0x00, 0x42])
    fc4value, e_stat = struct.unpack(">II", accept[16:24])
    assert fc4value == 4096 and e_stat == ESB_RESPONDER | ESB_SEQUENCE_INITIATIVE
    assert ESB_COMPLETE == 1 << 29
    reject = answer_bytes(RecAnswer(exchange, False), 0x010200, 0x020300)
    assert len(reject) == RecAnswer(exchange, False).size == 8
    assert reject == bytes([0x01, 0, 0, 0, 0, 0x09, 0x17, 0])  # unable; invalid OX_ID-RX_ID


def test_the_timers_and_counts_are_linux_s() -> None:
    assert rec_tov(2.0) == 3.0  # libfc: E_D_TOV + 1 s
    assert (IO_TIMEOUT, MAX_RETRIES, MAX_RECOVERIES) == (30.0, 5, 3)


@pytest.mark.parametrize(("write", "answer", "received", "expected"), [
    (True, RecAnswer(None, False), 0, COMMAND),  # type: ignore[arg-type]
    (True, RecAnswer(None, True, 0, False, False), 0, h.R_CTL_DATA_DESCRIPTOR),  # type: ignore
    (True, RecAnswer(None, True, 4096, True, False), 0, None),  # type: ignore[arg-type]
    (True, RecAnswer(None, True, 4096, False, True), 0, h.R_CTL_COMMAND_STATUS),  # type: ignore
    (False, RecAnswer(None, True, 0, True, False), 0, None),  # type: ignore[arg-type]
    (False, RecAnswer(None, True, 4096, False, True), 0, h.R_CTL_SOLICITED_DATA),  # type: ignore
    (False, RecAnswer(None, True, 4096, False, True), 4096, h.R_CTL_COMMAND_STATUS),  # type: ignore
])
def test_the_iu_asked_again_follows_from_the_exchange_state(
        write: bool, answer: RecAnswer, received: int, expected: int | None) -> None:
    assert retry_r_ctl(write, 4096, received, answer) == expected


# -- runs ---------------------------------------------------------------------------


class _Frames:
    """Every frame sent: (start, end, frame)."""

    def __init__(self) -> None:
        self.rows: list[tuple[float, float, Any]] = []

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        self.rows.append((start, end, frame))

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        pass

    def state(self, time: float, port: Any, change: str) -> None:
        pass

    def of(self, r_ctl: int, s_id: int | None = None) -> list[tuple[float, float, Any]]:
        return [r for r in self.rows if r[2].sequence is not None
                and r[2].sequence.r_ctl == r_ctl and (s_id is None or r[2].s_id == s_id)]


def _run(rw: str, count: int, faults: tuple[FaultConfig, ...] = (), sler: bool = True,
         timeout: float = IO_TIMEOUT, duration: float = 0.01, first_burst: int = 0,
         e_d_tov: float | None = None, bs: int = 4096,
         sinks: tuple[Any, ...] = (), iodepth: int = 1,
         **host: Any) -> tuple[dict[str, Any], _Frames]:
    """Host "a" runs *count* NVMe reads or writes (*rw*) of *bs* bytes at depth
    *iodepth* to "b", a RAM disk, over 1 m of 4GFC, with *faults* and the
    node keys *host* on "a"; the run's storage results and every frame sent
    (also handed to *sinks*)."""
    job = FioConfig("job", "a", "b", FioOptions(rw, bs, iodepth, count=count),
                    timeout=timeout, nvme=NvmeOptions(1, 128, first_burst))
    params = None if e_d_tov is None else ServiceParameters(e_d_tov=e_d_tov)
    base = p2p((job,), duration, speed=SPEED, a=params, b=params)
    a, b = base.nodes
    scenario = dataclasses.replace(
        base, nodes=(dataclasses.replace(a, nvme_sler=sler, **host),
                     dataclasses.replace(b, target=RAM)), faults=faults)
    frames = _Frames()
    result, _sim = _run_once(scenario, 1, [frames, *sinks], None, None)
    return result["storage"], frames


def _hit(frame_row: tuple[float, float, Any], receiver: str) -> FaultConfig:
    """One corrupted character in the middle of *frame_row*'s arrival at *receiver*."""
    start, end, _frame = frame_row
    return FaultConfig(start + PROPAGATION + (end - start) / 2, "corrupted-characters",
                       port=receiver, characters=1)


def _t(size: int) -> float:
    return frame_chars(size) * speed_named(SPEED).char_time


def _reconnect_s(queues: int = 1) -> float:
    """From the start of the Disconnect Association LS to the start of the
    first command sent again, in the builders' point-to-point run, s: the
    Disconnect's frame and the gap after it, then the Create Association and
    each Create I/O Connection exchanged in turn, each frame received with
    its propagation and the R_RDY the receiver sends before its answer."""
    rate = speed_named(SPEED)
    hop = PROPAGATION + rate.word_time
    return (_t(DISCONNECT_ASSOCIATION_SIZE) + Port.GAP_WORDS * rate.word_time
            + _t(CREATE_ASSOCIATION_SIZE) + hop + _t(CREATE_ASSOCIATION_ACC_SIZE) + hop
            + queues * (_t(CREATE_CONNECTION_SIZE) + hop
                        + _t(CREATE_CONNECTION_ACC_SIZE) + hop))


def _data(size: int) -> list[int]:
    full, rest = divmod(size, MAX_DATA_FIELD)
    return [MAX_DATA_FIELD] * full + ([rest] if rest else [])


def test_sler_is_used_only_when_both_ends_offer_it() -> None:
    for host_offers in (True, False):
        job = FioConfig("job", "a", "b", FioOptions("read", 4096, count=1),
                        nvme=NvmeOptions(1))
        base = p2p((job,), 1e-3)
        a, b = base.nodes
        for target_offers in (True, False):
            scenario = dataclasses.replace(base, nodes=(
                dataclasses.replace(a, nvme_sler=host_offers),
                dataclasses.replace(b, target=RAM, nvme_sler=target_offers)))
            sim = Simulation(1)
            from fcsim.build import BUILDERS
            from fcsim.storage.build import Storage
            net = BUILDERS[scenario.topology](sim, scenario)
            storage = Storage(sim, scenario, net)
            sim.run(1e-3)
            initiator = storage.nvme_initiators["a"]
            (d_id,) = initiator.targets()
            assert initiator.uses_sler(d_id) == (host_offers and target_offers)


def test_a_read_s_lost_data_frame_costs_one_nvme_sr_and_the_data_again() -> None:
    """SLER: the response comes with the data short, so the host asks for the
    data again at once (NVMe_SR, retry R_CTL 0x01); the controller answers
    NVMe_SR_RSP and sends the data and the response again. The read is late
    by exactly the NVMe_SR's frame and the data, response and SR_RSP frames
    again, with their gaps, the two R_RDYs each line returns first and a
    round trip of the link."""
    clean, frames = _run("read", 3)
    data = frames.of(h.R_CTL_SOLICITED_DATA)
    per = len(_data(4096))
    hit = _hit(data[per + 1], "a")  # the second frame of the second read's data
    lost, _ = _run("read", 3, (hit,))
    assert lost["jobs"]["job"]["errors"] == 0 and lost["jobs"]["job"]["ios"] == 3
    recovery = lost["nvme_initiators"]["a"]["recovery"]
    assert recovery["retransmission_requests"] == 1 and recovery["recs"] == 0
    assert lost["nvme_targets"]["b"]["recovery"]["retransmissions"] == 1
    rate = speed_named(SPEED)
    gap = Port.GAP_WORDS * rate.word_time
    extra = (rate.word_time + _t(SR_SIZE) + PROPAGATION  # R_RDY, then the NVMe_SR
             + rate.word_time + _t(SR_RSP_SIZE) + gap  # R_RDY, then the NVMe_SR_RSP
             + sum(_t(n) + gap for n in _data(4096)) + _t(RSP_SIZE) + PROPAGATION)
    before = clean["jobs"]["job"]["latency_s"]["max"]
    assert lost["jobs"]["job"]["latency_s"]["max"] == pytest.approx(before + extra, rel=1e-9)


def test_a_write_s_lost_data_frame_is_found_after_rec_tov_and_asked_again() -> None:
    """SLER: the write's data never arrives whole. REC_TOV after the last IU
    the host saw (the transfer ready, its data sent at once) it sends REC; the
    LS_ACC says the controller lacks data and the host holds the initiative,
    so the host asks for the transfer ready again with NVMe_SR; from there
    the write goes as a clean one from its command, with the NVMe_SR_RSP
    before the transfer ready. No error, no abort."""
    e_d_tov = 0.01
    clean, frames = _run("write", 1, e_d_tov=e_d_tov, duration=2.0)
    (command,) = frames.of(h.R_CTL_UNSOLICITED_COMMAND)
    (ready,) = frames.of(h.R_CTL_DATA_DESCRIPTOR)
    data = frames.of(h.R_CTL_SOLICITED_DATA)
    lost, lost_frames = _run("write", 1, (_hit(data[0], "b"),), e_d_tov=e_d_tov, duration=2.0)
    figures = lost["jobs"]["job"]
    assert figures["errors"] == 0 and figures["ios"] == 1
    recovery = lost["nvme_initiators"]["a"]["recovery"]
    assert recovery["recs"] == 1 and recovery["retransmission_requests"] == 1
    assert recovery["timeouts"] == recovery["aborts"] == 0
    rate = speed_named(SPEED)
    word, gap = rate.word_time, Port.GAP_WORDS * rate.word_time
    rec_start = ready[1] + PROPAGATION + rec_tov(e_d_tov)
    (rec,) = [r for r in lost_frames.of(h.R_CTL_ELS_REQUEST) if r[0] > ready[1]]
    assert rec[0] == pytest.approx(rec_start, abs=1e-12 * rec_start + 1e-12)
    # REC out, the controller's R_RDY and LS_ACC back, the host's R_RDY and NVMe_SR out
    sr_start = (rec_start + _t(REC_SIZE) + PROPAGATION + word + _t(REC_ACC_SIZE)
                + PROPAGATION + word)
    (sr,) = lost_frames.of(R_CTL_SR)
    assert sr[0] == pytest.approx(sr_start, rel=1e-12)
    expected = (clean["jobs"]["job"]["latency_s"]["max"]
                + (sr_start + _t(SR_SIZE)) - command[1] + _t(SR_RSP_SIZE) + gap)
    assert figures["latency_s"]["max"] == pytest.approx(expected, rel=1e-9)
    assert XFER_RDY_SIZE == 12


def test_a_lost_rec_answer_costs_another_rec_tov_and_rec() -> None:
    """SLER: a write's data and then the LS_ACC of the host's REC are lost;
    REC_TOV later the host ends that REC's exchange and sends another, whose
    answer leads to the NVMe_SR; the write completes, no abort."""
    e_d_tov = 0.01
    _clean, frames = _run("write", 1, e_d_tov=e_d_tov, duration=4.0)
    data = _hit(frames.of(h.R_CTL_SOLICITED_DATA)[0], "b")
    _once, frames = _run("write", 1, (data,), e_d_tov=e_d_tov, duration=4.0)
    (answer,) = frames.of(h.R_CTL_ELS_REPLY, frames.of(R_CTL_SR)[0][2].d_id)[-1:]
    lost, lost_frames = _run("write", 1, (data, _hit(answer, "a")), e_d_tov=e_d_tov,
                             duration=4.0)
    recovery = lost["nvme_initiators"]["a"]["recovery"]
    assert (recovery["recs"], recovery["retransmission_requests"], recovery["aborts"]) == (
        2, 1, 0)
    assert lost["jobs"]["job"]["ios"] == 1 and lost["jobs"]["job"]["errors"] == 0
    first, second = [r[0] for r in lost_frames.of(h.R_CTL_ELS_REQUEST) if r[0] > 1.0]
    assert second - first == pytest.approx(rec_tov(e_d_tov), rel=1e-9)


def test_a_write_s_lost_response_is_asked_again_after_rec_tov() -> None:
    """SLER: the response of a write is lost. REC_TOV after the transfer
    ready the host sends REC; the LS_ACC says the controller has answered
    (E_STAT complete), so the host asks for the response again with NVMe_SR
    (retry R_CTL 0x07) and gets it after the NVMe_SR_RSP."""
    e_d_tov = 0.01
    clean, frames = _run("write", 1, e_d_tov=e_d_tov, duration=2.0)
    (ready,) = frames.of(h.R_CTL_DATA_DESCRIPTOR)
    (response,) = frames.of(h.R_CTL_COMMAND_STATUS)
    lost, lost_frames = _run("write", 1, (_hit(response, "a"),), e_d_tov=e_d_tov,
                             duration=2.0)
    recovery = lost["nvme_initiators"]["a"]["recovery"]
    assert (recovery["recs"], recovery["retransmission_requests"]) == (1, 1)
    (sr,) = lost_frames.of(R_CTL_SR)
    assert sr[2].sequence.ulp == NvmeSr(h.R_CTL_COMMAND_STATUS)
    rate = speed_named(SPEED)
    word, gap = rate.word_time, Port.GAP_WORDS * rate.word_time
    sr_start = (ready[1] + PROPAGATION + rec_tov(e_d_tov) + _t(REC_SIZE) + PROPAGATION + word
                + _t(REC_ACC_SIZE) + PROPAGATION + word)
    assert sr[0] == pytest.approx(sr_start, rel=1e-12)
    done = sr_start + _t(SR_SIZE) + PROPAGATION + word + _t(SR_RSP_SIZE) + gap + _t(
        RSP_SIZE) + PROPAGATION
    expected = clean["jobs"]["job"]["latency_s"]["max"] + done - (response[1] + PROPAGATION)
    assert lost["jobs"]["job"]["latency_s"]["max"] == pytest.approx(expected, rel=1e-9)


def test_without_sler_a_lost_frame_costs_the_timeout_an_abort_and_a_retry() -> None:
    """No SLER: the read whose data frame is lost completes with its data
    short (host path error), and is sent again at once in a new exchange;
    a lost command is found only by the NVMe layer's timeout: ABTS, BA_ACC,
    and the command again once the association is reset (Disconnect
    Association, Create Association, Create I/O Connection). The second
    read's latency is the timeout, the ABTS round trip, the reset's link
    services and a clean read."""
    timeout = 0.002
    clean, frames = _run("read", 2, sler=False, timeout=timeout)
    commands = frames.of(h.R_CTL_UNSOLICITED_COMMAND)
    lost, lost_frames = _run("read", 2, (_hit(commands[1], "b"),), sler=False,
                             timeout=timeout)
    figures = lost["jobs"]["job"]
    assert figures["errors"] == 0 and figures["ios"] == 2
    recovery = lost["nvme_initiators"]["a"]["recovery"]
    assert recovery == {"recs": 0, "retransmission_requests": 0, "commands_resent": 0,
                        "timeouts": 1, "aborts": 1, "retries": 1, "failed": 0,
                        "association_resets": 1, "reconnects": 1, "controllers_lost": 0,
                        "sler": []}
    (abts,) = lost_frames.of(h.R_CTL_ABTS)
    (ba_acc,) = lost_frames.of(h.R_CTL_BA_ACC)
    assert abts[0] == pytest.approx(commands[1][0] + timeout, abs=2e-7)
    rate = speed_named(SPEED)
    one = clean["jobs"]["job"]["latency_s"]["max"]
    # the timeout from the first send; the ABTS (an empty frame) and, after the
    # controller's R_RDY for it, its BA_ACC; the reset; then the read again as a
    # clean one
    expected = (timeout + (abts[1] - abts[0]) + PROPAGATION + rate.word_time
                + (ba_acc[1] - ba_acc[0]) + PROPAGATION + _reconnect_s() + one)
    assert figures["latency_s"]["max"] == pytest.approx(expected, rel=1e-6)
    assert HOST_ABORTED == 0x371 and R_A_TOV == 10.0 and CMD_IU_SIZE == 96


def test_without_sler_a_read_s_lost_data_frame_costs_the_read_again() -> None:
    """No SLER: the response comes with the data short; the read completes
    with a host path error, which resets the association (nothing else is
    outstanding: Disconnect Association and the reconnection at once), and
    the NVMe layer sends it again in a new exchange once connected: it takes
    exactly two clean reads and the reset's link services."""
    clean, frames = _run("read", 3, sler=False)
    per = len(_data(4096))
    lost, _ = _run("read", 3, (_hit(frames.of(h.R_CTL_SOLICITED_DATA)[per], "a"),),
                   sler=False)
    assert lost["jobs"]["job"]["errors"] == 0 and lost["jobs"]["job"]["ios"] == 3
    recovery = lost["nvme_initiators"]["a"]["recovery"]
    assert (recovery["retries"], recovery["timeouts"], recovery["aborts"]) == (1, 0, 0)
    assert (recovery["association_resets"], recovery["reconnects"]) == (1, 1)
    one = clean["jobs"]["job"]["latency_s"]["max"]
    assert lost["jobs"]["job"]["latency_s"]["max"] == pytest.approx(2 * one + _reconnect_s(),
                                                                   rel=1e-9)


def test_without_sler_a_command_failing_every_try_is_reported_as_an_error() -> None:
    """Every frame is lost from just after login: the read times out, its
    ABTS goes unanswered MAX_RECOVERIES times R_A_TOV and the try is given
    up; that resets the association, whose Create Association goes
    unanswered LS_TIMEOUT on each attempt, reconnect_delay apart, until the
    attempts ctrl_loss_tmo allows are spent: the controller is lost, the
    read (sent again after its first try, waiting) fails, and fio counts the
    error."""
    timeout, delay, loss = 1e-3, 1.0, 3.0
    _clean, frames = _run("read", 1, sler=False, timeout=timeout)
    (command,) = frames.of(h.R_CTL_UNSOLICITED_COMMAND)
    faults = (FaultConfig(command[0] - 1e-9, "bit-error-rate", link="link",
                          bit_error_rate=0.1),)
    wait, attempts = reconnect_limit(delay, loss)
    assert (wait, attempts) == (delay, 3)
    lost_at = (timeout + MAX_RECOVERIES * R_A_TOV + attempts * LS_TIMEOUT
               + (attempts - 1) * delay)
    lost, lost_frames = _run("read", 1, faults, sler=False, timeout=timeout,
                             duration=lost_at + 1.0, nvme_reconnect_delay=delay,
                             nvme_ctrl_loss_tmo=loss)
    recovery = lost["nvme_initiators"]["a"]["recovery"]
    assert recovery["timeouts"] == 1 and recovery["aborts"] == MAX_RECOVERIES
    assert recovery["association_resets"] == 1 and recovery["reconnects"] == attempts
    assert recovery["controllers_lost"] == 1
    assert recovery["retries"] == 1 and recovery["failed"] == 1
    assert lost["jobs"]["job"]["errors"] == 1 and lost["jobs"]["job"]["ios"] == 0
    creates = [r for r in lost_frames.of(R_CTL_LS_REQUEST)
               if isinstance(r[2].sequence.ulp, CreateAssociation)]
    assert len(creates) == 1 + attempts  # the first connection's, then each attempt's
    # each attempt's LS timer starts as its Create Association is queued; the
    # first one's frame went after the Disconnect Association's and the gap
    queued = _t(DISCONNECT_ASSOCIATION_SIZE) + Port.GAP_WORDS * speed_named(SPEED).word_time
    gaps = [b[0] - a[0] for a, b in zip(creates[1:], creates[2:], strict=False)]
    expected = [LS_TIMEOUT + delay - queued] + [LS_TIMEOUT + delay] * (attempts - 2)
    assert gaps == pytest.approx(expected, rel=1e-12)


def test_a_reset_aborts_every_other_command_then_reconnects_and_sends_them_again() -> None:
    """No SLER, reads at depth 4: one read's data frame is lost, its
    response shows the data short. The association is reset: an ABTS for
    each of the other reads outstanding then; once the last BA_ACC is in,
    the Disconnect Association goes (after the R_RDY for that BA_ACC), then
    the Create Association and Create I/O Connection exchanges, and the
    first command sent again starts exactly _reconnect_s after the
    Disconnect's start. Every read completes, once, without error; each
    aborted one used a retry."""
    count, depth = 12, 4
    clean, frames = _run("read", count, sler=False, iodepth=depth)
    per = len(_data(4096))
    lost, lf = _run("read", count, (_hit(frames.of(h.R_CTL_SOLICITED_DATA)[2 * per], "a"),),
                    sler=False, iodepth=depth)
    figures = lost["jobs"]["job"]
    assert figures["errors"] == 0 and figures["ios"] == count
    recovery = lost["nvme_initiators"]["a"]["recovery"]
    abts = lf.of(h.R_CTL_ABTS)
    ba_accs = lf.of(h.R_CTL_BA_ACC)
    assert len(abts) == len(ba_accs) == recovery["aborts"] == depth - 1  # the other reads
    assert recovery["association_resets"] == recovery["reconnects"] == 1
    assert recovery["retries"] == 1 + len(abts)  # the short read and each aborted one
    (disconnect,) = [r for r in lf.of(R_CTL_LS_REQUEST)
                     if isinstance(r[2].sequence.ulp, DisconnectAssociation)]
    rate = speed_named(SPEED)
    assert disconnect[0] == pytest.approx(ba_accs[-1][1] + PROPAGATION + rate.word_time,
                                          rel=1e-12)
    resent = [r for r in lf.of(h.R_CTL_UNSOLICITED_COMMAND) if r[0] > disconnect[0]]
    assert resent[0][0] == pytest.approx(disconnect[0] + _reconnect_s(), rel=1e-12)
    # the other commands waited out the reset: the slowest read is slower than
    # a clean one by at least the reset's link services
    assert (figures["latency_s"]["max"]
            >= clean["jobs"]["job"]["latency_s"]["max"] + _reconnect_s())


def test_the_reconnection_limits_are_linux_s() -> None:
    """fabrics.h: reconnect_delay 10 s, ctrl_loss_tmo 600 s; nvme-fc turns the
    default delay into 2 s and keeps the loss time (300 attempts); a delay
    asked for is kept, with ctrl_loss_tmo / delay attempts rounded up;
    ctrl_loss_tmo off: no limit. The LS timeout is two R_A_TOV."""
    assert (RECONNECT_DELAY, CTRL_LOSS_TMO, LS_TIMEOUT) == (10.0, 600.0, 2 * R_A_TOV)
    assert reconnect_limit(RECONNECT_DELAY, CTRL_LOSS_TMO) == (2.0, 300)
    assert reconnect_limit(3.0, 10.0) == (3.0, 4)
    assert reconnect_limit(RECONNECT_DELAY, None) == (RECONNECT_DELAY, None)
    assert (DISCONNECT_ASSOCIATION_SIZE, DISCONNECT_ASSOCIATION_ACC_SIZE) == (48, 24)


def test_an_ersp_goes_as_r_ctl_0x08_and_a_shortened_response_as_0x07() -> None:
    """Linux nvme-fc.h: FCNVME_RS_RCTL_RSP 0x7, FCNVME_RS_RCTL_ERSP 0x8. With a
    queue of 128 entries every ersp_ratio-th response is an ERSP."""
    count = 2 * ersp_ratio(128) + 1
    result, frames = _run("read", count)
    assert result["jobs"]["job"]["ios"] == count
    plain = frames.of(h.R_CTL_COMMAND_STATUS)
    extended = frames.of(R_CTL_ERSP)
    assert len(extended) == 2 and len(plain) == count - 2
    assert all(r[2].sequence.ulp.ersp for r in extended)
    assert not any(r[2].sequence.ulp.ersp for r in plain)


LINK_FAULT = (Path(__file__).parents[2] / "scenarios" / "nvme-link-fault.toml").read_text(
    encoding="utf-8")


@pytest.mark.parametrize(("edit", "key", "given", "allowed"), [
    (('name = "host"\n', 'name = "host"\nnvme_reconnect_delay = "0 s"\n'),
     "nodes[0].nvme_reconnect_delay", "given '0 s'", "> 0 s"),
    (('name = "host"\n', 'name = "host"\nnvme_ctrl_loss_tmo = -1\n'),
     "nodes[0].nvme_ctrl_loss_tmo", "given -1", "'off'"),
])
def test_bad_reconnection_keys_are_refused_in_one_line(
        tmp_path: Path, edit: tuple[str, str], key: str, given: str, allowed: str) -> None:
    assert_refused(tmp_path, LINK_FAULT, edit, key, given, allowed)


def test_the_reconnection_keys_reach_the_host(tmp_path: Path) -> None:
    """nvme_reconnect_delay 3 s and nvme_ctrl_loss_tmo 10 s: 3 s apart, 4
    attempts; ctrl_loss_tmo 'off': no limit, and the default 10 s delay kept
    (nvme-fc shortens it only when the loss timeout is on)."""
    from fcsim.scenario.loader import load_scenario
    path = tmp_path / "case.toml"
    path.write_text(LINK_FAULT.replace(
        'name = "host"\n', 'name = "host"\nnvme_reconnect_delay = "3 s"\n'
        'nvme_ctrl_loss_tmo = "10 s"\n', 1), encoding="utf-8")
    host = load_scenario(path).nodes[0]
    assert (host.nvme_reconnect_delay, host.nvme_ctrl_loss_tmo) == (3.0, 10.0)
    assert reconnect_limit(host.nvme_reconnect_delay, host.nvme_ctrl_loss_tmo) == (3.0, 4)
    path.write_text(LINK_FAULT.replace('name = "host"\n',
                                       'name = "host"\nnvme_ctrl_loss_tmo = "off"\n', 1),
                    encoding="utf-8")
    host = load_scenario(path).nodes[0]
    assert host.nvme_ctrl_loss_tmo is None
    assert reconnect_limit(host.nvme_reconnect_delay, host.nvme_ctrl_loss_tmo) == (
        RECONNECT_DELAY, None)


def test_the_timeline_names_the_reset_s_link_services() -> None:
    """A read short of data without SLER: after it, the timeline shows the
    Disconnect Association of association 1 and its LS_ACC, then Create
    Association (association 2) and Create I/O Connection (connection 2)."""
    import io
    import re

    from fcsim.trace.timeline import Timeline
    _clean, frames = _run("read", 2, sler=False)
    out = io.StringIO()
    _run("read", 2, (_hit(frames.of(h.R_CTL_SOLICITED_DATA)[0], "a"),), sler=False,
         sinks=(Timeline(out),))
    labels = [m[1] for line in out.getvalue().splitlines()[1:]
              if (m := re.search(r"\d+\s{5}(\S.*)$", line))]
    at = labels.index("Disconnect Association 1")
    assert labels[at:at + 6] == [
        "Disconnect Association 1", "LS_ACC (Disconnect Association 1)",
        "Create Association sqsize 32", "LS_ACC association 2 connection 0",
        "Create I/O Connection qid 1 sqsize 128", "LS_ACC association 2 connection 2"]
