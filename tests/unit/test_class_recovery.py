"""Recovery from errors by class under faults: Class 2 finds a lost frame by a
sequence count gap or an ACK timeout, aborts the sequence with ABTS and sends
it again; Class 3 leaves it to the upper layer, where TCP retransmits and the
SCSI initiator times out, aborts and retries."""

from __future__ import annotations

import dataclasses
import tomllib

from fcsim.build import BUILDERS, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.faults.config import FaultConfig
from fcsim.faults.injector import install as install_faults
from fcsim.fc2.login import R_A_TOV, ServiceParameters
from fcsim.fc2.sequence_recovery import KEPT_FOR_R_A_TOVS
from fcsim.runner import run_once
from fcsim.scenario.loader import scenario_from_document
from fcsim.scenario.workload_model import GeneratorConfig, StreamConfig
from fcsim.workload.distributions import Constant
from tests.builders import p2p


def run(cls: int, faults: tuple[FaultConfig, ...], params: ServiceParameters | None = None,
        duration: float = 0.03, count: int | None = 400):
    stream = (StreamConfig("w", "a", "b", 21120, cls=cls, outstanding=2, count=count),)
    scenario = dataclasses.replace(p2p(stream, duration, length=1000.0, a=params, b=params),
                                   faults=faults)
    return run_once(scenario, 1)


def test_a_class_2_gap_is_aborted_with_abts_and_sent_again_at_once() -> None:
    result = run(2, (FaultConfig(0.005, "loss-of-sync", port="b", duration=30e-6),))
    recovery = result["faults"]["sequences"]
    assert recovery["b"]["gaps_detected"] >= 1  # the recipient saw the SEQ_CNT gap
    assert recovery["a"]["abts_sent"] >= 1 and recovery["a"]["given_up"] == 0
    assert recovery["a"]["bytes_retransmitted"] == 21120 * recovery["a"][
        "sequences_retransmitted"] > 0
    record = result["faults"]["schedule"][0]
    assert record["bytes_retransmitted"] == recovery["a"]["bytes_retransmitted"]
    w = result["workloads"]["w"]
    # long before E_D_TOV (2 s): every sequence handed over was delivered, none aborted
    assert w["sender"]["aborted"] == 0 and w["sequences"] == w["sender"]["completed"] > 50


def test_a_lost_ack_is_found_by_timeout_and_not_sent_again() -> None:
    fast = ServiceParameters(e_d_tov=1e-3)
    result = run(2, (FaultConfig(0.005, "loss-of-sync", port="a", duration=30e-6),), fast,
                 duration=0.05, count=60)
    recovery = result["faults"]["sequences"]["a"]
    assert recovery["abts_sent"] >= 1  # ACK timeout (E_D_TOV): ABTS
    assert recovery["sequences_retransmitted"] == 0  # BA_ACC: the recipient had it all
    w = result["workloads"]["w"]
    assert w["sequences"] == w["sender"]["completed"] == 60


def test_class_3_has_no_recovery_at_fc_2() -> None:
    result = run(3, (FaultConfig(0.005, "loss-of-sync", port="b", duration=30e-6),))
    recovery = result["faults"]["sequences"]
    assert all(r["abts_sent"] == r["gaps_detected"] == 0 for r in recovery.values())
    assert result["nodes"]["b"]["sequences_incomplete"] >= 1


TCP = """\
topology = "point-to-point"
[run]
duration = "3 s"
[[nodes]]
name = "client"
host = "hp-c110"
[[nodes]]
name = "server"
host = "hp-c110"
[[links]]
name = "fibre"
ends = ["client", "server"]
speed = "266M"
length = "100 m"
[[workloads]]
name = "stream"
type = "netperf"
test = "TCP_STREAM"
from = "client"
to = "server"
send_size = "32 KiB"
socket = "64 KiB"
length = "2.9 s"
[[faults]]
at = "300 ms"
kind = "loss-of-sync"
port = "server"
duration = "20 ms"
"""


def test_tcp_retransmits_after_a_link_reset_restores_the_lost_credit() -> None:
    result = run_once(scenario_from_document(tomllib.loads(TCP), "tcp.toml"), 1)
    record = result["faults"]["schedule"][0]
    assert record["detection"] == "client: link timeout: no R_RDY for E_D_TOV (2 s)"
    assert record["detected_s"] > 0.29 + 2.0  # E_D_TOV after the last R_RDY came
    assert record["bytes_retransmitted"] > 0
    rates = record["throughput_bytes_per_s"]
    assert rates["during"] == 0.0 and rates["after"] > 0.9 * rates["before"]


SCSI = """\
topology = "point-to-point"
[run]
duration = "400 ms"
[[nodes]]
name = "host"
[[nodes]]
name = "ramsan"
target = "tms-ramsan"
[[links]]
name = "fibre"
ends = ["host", "ramsan"]
speed = "1GFC"
length = "10 m"
[[workloads]]
name = "reads"
type = "fio"
from = "host"
to = "ramsan"
rw = "randread"
bs = "4 KiB"
iodepth = 8
timeout = "50 ms"
[[faults]]
at = "100 ms"
kind = "link-down"
link = "fibre"
[[faults]]
at = "110 ms"
kind = "link-up"
link = "fibre"
"""


def test_scsi_times_out_aborts_and_retries_across_a_pulled_cable() -> None:
    result = run_once(scenario_from_document(tomllib.loads(SCSI), "scsi.toml"), 1)
    initiator = result["storage"]["initiators"]["host"]
    assert initiator["timeouts"] >= 1 and initiator["retries"] >= 1
    job = result["storage"]["jobs"]["reads"]
    assert job["errors"] == 0
    assert result["faults"]["schedule"][1]["recovered_s"] is not None
    assert result["faults"]["schedule"][0]["throughput_bytes_per_s"]["after"] > 0


def test_a_recipient_forgets_deliveries_no_abts_can_ask_about() -> None:
    """Each Class 2 sequence of a generator is its own exchange: a recipient
    remembers its deliveries for E_D_TOV + 2 R_A_TOV (22 s), not for ever."""
    every = 0.05
    load = (GeneratorConfig("g", "a", "b", Constant(every), Constant(2048.0), cls=2),)
    scenario = dataclasses.replace(
        p2p(load, 40.0), faults=(FaultConfig(39.0, "loss-of-sync", port="b", duration=30e-6),))
    sim = Simulation(1)
    net = BUILDERS[scenario.topology](sim, scenario)
    workloads = build_workloads(sim, scenario, net)
    faults = install_faults(sim, scenario, net, {})
    recipient = faults.sequences["b"]
    kept_for = ServiceParameters().e_d_tov + KEPT_FOR_R_A_TOVS * R_A_TOV
    sim.run(kept_for - 1.0)  # nothing forgotten yet
    assert recipient.remembered == workloads[0].stats.sequences > 400
    sim.run(scenario.run.duration)
    delivered = workloads[0].stats.sequences
    assert delivered > 790
    assert abs(recipient.remembered - kept_for / every) <= 2  # only the last 22 s


def test_a_read_whose_data_lost_its_end_is_aborted_and_its_bytes_taken_back() -> None:
    """A cable pulled while a read's data is on the way: the data sequence arrives
    without its last frames, the BA_ACC that answers the command's ABTS ends it,
    and the bytes the job's meter counted of it are taken back (the meter has the
    counter a sequence meter has; the run failed with an AttributeError). The read
    is sent again and the job counts only whole reads."""
    from fcsim.scenario.loader import load_scenario

    result = run_once(load_scenario("scenarios/fcp-abts-after-loss.toml"), 1)
    initiator = result["storage"]["initiators"]["host"]
    assert initiator["timeouts"] == 1 and initiator["retries"] == 1
    job = result["storage"]["jobs"]["read"]
    assert job["errors"] == 0 and job["moved_bytes"] == job["read_ios"] * 8192
