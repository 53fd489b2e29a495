"""A host multipathed to one logical unit (docs/multipath.md): how its
multipath layer shares the I/O among the paths, against closed forms
computed from the scenario's own figures."""

from __future__ import annotations

import math
import tomllib
from typing import Any

import pytest

from fcsim.build import BUILDERS
from fcsim.engine.simulation import Simulation
from fcsim.faults.injector import FaultRun
from fcsim.faults.injector import install as install_faults
from fcsim.fc2.els_payload import port_name as wwpn
from fcsim.fc2.fpin import LinkIntegrity
from fcsim.fc2.port_states import LOS_ASSERT
from fcsim.fc4.fcp import SD_MAX_RETRIES
from fcsim.runner import run_once
from fcsim.scenario.loader import scenario_from_document
from fcsim.storage.build import Storage
from fcsim.trace.timeseries import TimeSeries
from tests.fabric_text import dual_fabric, table

DUAL = (dual_fabric("dual fabrics", {"path_grouping_policy": "multibus",
                                       "path_selector": "round-robin"}, "100 ms")
        + table("[[workloads]]", {"name": "job", "type": "fio", "from": "host", "to": "array",
                                  "rw": "randread", "bs": "8 KiB", "iodepth": 4, "numjobs": 2,
                                  "count": 600}))


def document(one_fabric: bool = False) -> dict[str, Any]:
    """The dual-fabric scenario, or (*one_fabric*) every port on swA."""
    doc = tomllib.loads(DUAL)
    if one_fabric:
        doc["switches"] = doc["switches"][:1]
        doc["links"][2]["ends"] = ["host.1", "swA:2"]
        doc["links"][3]["ends"] = ["array.1", "swA:3"]
    return doc


def multipath(doc: dict[str, Any]) -> dict[str, Any]:
    """The one multipath device's results of a run of *doc*."""
    out = run_once(scenario_from_document(doc, "multipath.toml"), 1)
    (device,) = out["storage"]["multipath"].values()
    return device | {"job": out["storage"]["jobs"]["job"]}


@pytest.mark.parametrize("one_fabric", [False, True])
def test_round_robin_gives_each_of_k_equal_paths_one_kth_of_the_io(one_fabric: bool) -> None:
    doc = document(one_fabric)
    device = multipath(doc)
    job = doc["workloads"][0]
    total = job["count"] * job["numjobs"]
    k = len(device["paths"])
    assert k == (4 if one_fabric else 2)  # every host port with every target port it reaches
    assert total % k == 0
    assert device["ios"] == device["job"]["ios"] == total
    assert [p["ios"] for p in device["paths"].values()] == [total // k] * k


def test_group_by_prio_sends_everything_down_the_optimised_paths() -> None:
    doc = document(one_fabric=True)
    doc["nodes"][0]["multipath"]["path_grouping_policy"] = "group_by_prio"
    doc["nodes"][1]["non_optimized_ports"] = ["array.1"]
    device = multipath(doc)
    total = doc["workloads"][0]["count"] * doc["workloads"][0]["numjobs"]
    optimised = {n: p for n, p in device["paths"].items() if p["remote"] == "array"}
    assert all(p["prio"] == 50 for p in optimised.values())
    assert [p["ios"] for p in optimised.values()] == [total // len(optimised)] * len(optimised)
    assert sum(p["ios"] for p in device["paths"].values()) == total
    assert device["groups"] == [list(optimised), [n for n in device["paths"]
                                                  if n not in optimised]]


def test_failover_uses_one_path_while_it_works() -> None:
    doc = document()
    doc["nodes"][0]["multipath"]["path_grouping_policy"] = "failover"
    device = multipath(doc)
    first, second = device["paths"].values()
    assert (first["ios"], second["ios"]) == (device["ios"], 0)


FAST = 0.02
"""fast_io_fail_tmo of the failover runs, s (short, for a short run)."""
POLL = 0.05
"""polling_interval of the failover runs, s."""


def failover(fault: dict[str, Any] | list[dict[str, Any]], host: dict[str, Any] | None = None,
             job: dict[str, Any] | None = None, series: TimeSeries | None = None,
             target_non_optimised: tuple[str, ...] = (),
             **multipath_keys: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A 150 ms run of the dual fabrics with *fault* (or faults), two commands outstanding,
    fast_io_fail_tmo :data:`FAST` and polling_interval :data:`POLL` unless the
    multipath keys given say otherwise, and the *host* node's and *job*'s keys
    given, the target's N_Ports *target_non_optimised* in the ALUA
    active/non-optimised group (*series* samples it); the device's results (with its job's and the
    host's initiator's as "job" and "initiator") and the fault's record."""
    doc = document()
    doc["run"]["duration"] = "150 ms"
    fio = doc["workloads"][0]
    del fio["count"]
    fio.update(iodepth=2, numjobs=1, **(job or {}))
    doc["nodes"][0].update(host or {})
    if target_non_optimised:
        doc["nodes"][1]["non_optimized_ports"] = list(target_non_optimised)
    doc["nodes"][0]["multipath"].update(fast_io_fail_tmo=f"{FAST * 1e3:g} ms",
                                        polling_interval=f"{POLL * 1e3:g} ms")
    doc["nodes"][0]["multipath"].update(multipath_keys)
    doc["faults"] = fault if isinstance(fault, list) else [fault]
    out = run_once(scenario_from_document(doc, "failover.toml"), 1, series=series)
    (device,) = out["storage"]["multipath"].values()
    return (device | {"job": out["storage"]["jobs"]["job"],
                      "initiator": out["storage"]["initiators"]["host"]},
            out["faults"]["schedule"][0])


def when(device: dict[str, Any], path: str, event: str) -> float:
    """The time of *path*'s first event starting with *event*, s."""
    return next(e["time_s"] for e in device["events"]
                if e["path"] == path and e["event"].startswith(event))


PULL = {"at": "20 ms", "kind": "link-down", "link": "hostA", "duration": "60 ms"}
"""The host's cable in fabric A pulled at 20 ms, put back at 80 ms."""


def test_io_resumes_on_the_other_path_fast_io_fail_tmo_after_the_link_fails() -> None:
    device, fault = failover(PULL)
    blocked = when(device, "host-array", "remote port blocked")
    failed = when(device, "host-array", "failed (remote port fail-fast)")
    online = when(device, "host-array", "remote port online")
    assert blocked == fault["detected_s"]  # the N_Port left Active: the transport blocks
    assert failed - blocked == pytest.approx(FAST, abs=1e-12)
    # the requests held on the failed path went to the other when it failed: the oldest
    # waited the whole fast_io_fail_tmo, and no longer than from just before the pull
    # (a command's normal latency is some 50 us) to the failover and its service there
    latency = device["job"]["latency_s"]["max"]
    assert FAST <= latency <= failed - fault["at_s"] + 1e-3
    assert device["requeued"] == device["paths"]["host-array"]["errors"] > 0
    assert device["job"]["errors"] == device["failed_ios"] == 0
    # multipathd's checker looks at the failed path within a polling_interval of its failure
    # and every polling_interval after; the first look after the remote port is back sends a
    # TEST UNIT READY, and its answer (a round trip of some 50 us) reinstates the path
    reinstated = when(device, "host-array", "reinstated (path checker)")
    assert online <= reinstated <= online + POLL + 1e-3


def test_without_fast_io_fail_the_io_waits_for_dev_loss_tmo() -> None:
    dev_loss = 0.03
    device, _ = failover(PULL, host={"dev_loss_tmo": f"{dev_loss * 1e3:g} ms"},
                         fast_io_fail_tmo="off")
    blocked = when(device, "host-array", "remote port blocked")
    assert when(device, "host-array", "failed (remote port lost)") - blocked == pytest.approx(
        dev_loss, abs=1e-12)
    assert device["job"]["latency_s"]["max"] >= dev_loss
    # a lost remote port's path is added again as soon as the port is back
    assert when(device, "host-array", "reinstated (path device added again)") == when(
        device, "host-array", "remote port online")
    assert device["job"]["errors"] == 0


def test_a_dead_path_fails_after_sd_has_retried_its_command_on_it() -> None:
    """The target's port in fabric A stops at 20 ms for good; the host's link
    stays up, so its remote port stays online. A command lost on that path is
    retried on it as sd retries it (dm-multipath's REQ_FAILFAST_TRANSPORT
    does not stop the retry of a DID_TIME_OUT: ``scsi_noretry_cmd``): each
    of its 1 + SD_MAX_RETRIES tries waits the timeout and its ABTS as long
    unanswered, and only then does the path fail and the request go to the
    other path, (1 + SD_MAX_RETRIES) x 2 x the timeout after it was first sent."""
    timeout = 0.005
    tries = 1 + SD_MAX_RETRIES
    # (the path checker, which reads only the remote port's state, is kept from
    # reinstating the path within the run)
    device, _ = failover({"at": "20 ms", "kind": "port-failure", "port": "array"},
                         job={"timeout": f"{timeout * 1e3:g} ms"}, polling_interval="1 s")
    failed = when(device, "host-array", "failed (I/O error 0x03)")
    # the first command lost was sent at most a command's latency (some 50 us) before 20 ms
    assert 0.02 + tries * 2 * timeout - 1e-3 <= failed <= 0.02 + tries * 2 * timeout
    lost = device["requeued"]
    assert lost > 0 and device["paths"]["host-array"]["failures"] == 1
    # every command lost there was tried 1 + SD_MAX_RETRIES times on it, none elsewhere
    assert device["initiator"]["timeouts"] == tries * lost
    assert device["initiator"]["retries"] == SD_MAX_RETRIES * lost
    assert device["initiator"]["failed"] == lost
    assert tries * 2 * timeout <= device["job"]["latency_s"]["max"] <= (
        tries * 2 * timeout + 1e-3)
    assert device["job"]["errors"] == 0


@pytest.mark.parametrize("no_path_retry", ["fail", "queue"])
def test_with_no_path_left_io_fails_or_waits_as_no_path_retry_says(no_path_retry: str) -> None:
    both = [{"at": "20 ms", "kind": "port-failure", "port": port, "duration": "60 ms"}
            for port in ("host", "host.1")]
    device, _ = failover(both, no_path_retry=no_path_retry)
    assert all(p["failures"] >= 1 for p in device["paths"].values())
    if no_path_retry == "fail":  # every request while both are failed is an error
        assert device["failed_ios"] == device["job"]["errors"] > 0
        assert device["max_queued"] == 0
    else:  # they wait, none fails, and go when a path is reinstated
        assert device["failed_ios"] == device["job"]["errors"] == 0
        assert device["max_queued"] > 0


def built(doc: dict[str, Any]) -> tuple[Simulation, Storage]:
    """The scenario *doc* built (network, storage, faults), not yet run."""
    scenario = scenario_from_document(doc, "marginal.toml")
    sim = Simulation(scenario.run.seed)
    net = BUILDERS[scenario.topology](sim, scenario)
    storage = Storage(sim, scenario, net)
    install_faults(sim, scenario, net, {})
    return sim, storage


def link_integrity(*named: str) -> LinkIntegrity:
    """A Link Integrity descriptor naming the N_Ports *named* (invalid CRC
    counts past the threshold on the link between swA:0 and its N_Port)."""
    return LinkIntegrity(event_type=0x6, detecting=wwpn("swA:0"), attached=wwpn(named[0]),
                         threshold=10, count=25, affected=tuple(wwpn(n) for n in named))


def marginal_run(named: tuple[str, ...], marginal_pathgroups: str = "fpin",
                 faults: list[dict[str, Any]] | None = None,
                 job: dict[str, Any] | None = None) -> tuple[dict[str, Any], int]:
    """The dual fabrics, round robin, 100 ms, the *job* keys given; at 20 ms
    host's N_Port receives a Link Integrity FPIN naming *named*. The device's
    results and its path host-array's requests when the FPIN came."""
    doc = document()
    del doc["workloads"][0]["count"]
    doc["workloads"][0].update(job or {})
    doc["nodes"][0]["multipath"].update(marginal_pathgroups=marginal_pathgroups,
                                        fast_io_fail_tmo=f"{FAST * 1e3:g} ms")
    if faults:
        doc["faults"] = faults
    doc["fpin"] = {"link_integrity": True}  # its 60 s window sends nothing in the run
    sim, storage = built(doc)
    (device,) = storage.multipaths.values()
    at_fpin: list[int] = []

    def notify(_event: object) -> None:
        at_fpin.append(device.paths[0].ios)
        for listener in storage.fpin_listeners().get("host", [device]):
            listener.fpin_received(wwpn("host"), link_integrity(*named))
    sim.call_later(0.02, notify)
    sim.run(0.1)
    return device.results(), at_fpin[0]


def test_a_marginal_path_receives_no_new_io_after_the_fpin() -> None:
    device, before = marginal_run(("host",))
    marginal, healthy = device["paths"]["host-array"], device["paths"]["host.1-array.1"]
    assert marginal["marginal"] and not healthy["marginal"]
    assert marginal["ios"] == before > 0  # not one request more after 20 ms
    assert healthy["ios"] > 2 * before  # the other path carries everything after
    assert device["groups"] == [["host.1-array.1"], ["host-array"]]
    assert [e["event"] for e in device["events"] if e["path"] == "host-array"] == [
        "marginal (FPIN Link Integrity)"]


def test_a_command_lost_on_a_marginal_path_fails_it_after_one_timeout_and_abort() -> None:
    """The FPIN and the loss of the array's fabric-A port come together at
    20 ms: the commands then on the marginal path are lost. multipathd made
    the path's remote port marginal, so each is not retried after its abort
    (``fc_eh_should_retry_cmd``: DID_TRANSPORT_MARGINAL) and fails the path
    2 x the timeout (the timeout, then its unanswered abort) after it was
    sent, instead of (1 + SD_MAX_RETRIES) x that."""
    timeout = 0.005
    device, _ = marginal_run(("host",), faults=[
        {"at": "20 ms", "kind": "port-failure", "port": "array"}],
        job={"timeout": f"{timeout * 1e3:g} ms"})
    failed = when(device, "host-array", "failed (I/O error 0x14)")
    assert 0.02 + 2 * timeout - 1e-3 <= failed <= 0.02 + 2 * timeout
    assert device["requeued"] == device["paths"]["host-array"]["errors"] > 0
    assert device["failed_ios"] == 0


def test_the_fpin_changes_nothing_without_marginal_pathgroups_or_for_another_port() -> None:
    for named, setting in ((("host",), "off"), (("host.1", "array.1"), "fpin")):
        device, before = marginal_run(named, setting)
        assert not any(p["marginal"] for p in device["paths"].values())
        ios = [p["ios"] for p in device["paths"].values()]
        assert abs(ios[0] - ios[1]) <= 1 and ios[0] > before  # round robin goes on


def test_a_marginal_path_carries_the_io_when_no_other_path_is_usable() -> None:
    pull_b = [{"at": "40 ms", "kind": "link-down", "link": "hostB"}]
    device, before = marginal_run(("array",), faults=pull_b)
    # (the FPIN names the target port of host's path: it is marginal too)
    marginal = device["paths"]["host-array"]
    assert marginal["marginal"]
    failover = next(e["time_s"] for e in device["events"]
                    if e["event"].startswith("failed (remote port fail-fast)"))
    assert failover == pytest.approx(0.04 + LOS_ASSERT + FAST)  # loss of signal, then
    assert marginal["ios"] > before  # the marginal path took the I/O once alone
    assert [e["event"] for e in device["events"] if e["path"] == ""][-1].startswith(
        "path group 2 (host-array)")


def test_a_path_is_healthy_again_once_its_link_has_gone_down_and_come_back() -> None:
    bounce = [{"at": "40 ms", "kind": "link-down", "link": "hostA", "duration": "10 ms"}]
    device, before = marginal_run(("host",), faults=bounce)
    path = device["paths"]["host-array"]
    assert not path["marginal"] and path["ios"] > before
    events = [e["event"] for e in device["events"] if e["path"] == "host-array"]
    assert events == ["marginal (FPIN Link Integrity)", "remote port blocked",
                      "remote port online", "no longer marginal (link up)"]


def test_the_sampled_path_rates_show_the_outage_and_the_failover() -> None:
    series = TimeSeries(samples=150)  # one sample a millisecond
    device, _ = failover(PULL, series=series)
    failed = when(device, "host-array", "failed")
    back = when(device, "host-array", "reinstated")
    a, b = series.paths["host:array host-array"], series.paths["host:array host.1-array.1"]
    during = [i for i, t in enumerate(series.time) if failed + 1e-3 < t <= back]
    assert during and all(a[i] == 0 for i in during)  # not one request down the failed path
    assert all(b[i] > 0 for i in during)  # the other carries them all
    # round robin again once it is back; before the pull, both equally
    after = [i for i, t in enumerate(series.time) if t > back + 1e-3]
    assert all(a[i] > 0 for i in after)
    before = [i for i, t in enumerate(series.time) if 1e-3 < t < 0.02]
    assert all(abs(a[i] - b[i]) <= 1 / 1e-3 for i in before)  # one request a sample apart


@pytest.mark.parametrize("failback", ["immediate", "30 ms", "manual"])
def test_failback_returns_to_the_optimised_group_as_configured(failback: str) -> None:
    doc_keys = {"path_grouping_policy": "group_by_prio", "failback": failback}
    device, _ = failover(PULL, target_non_optimised=("array.1",), **doc_keys)
    switches = [(e["time_s"], e["event"].split(" (")[0]) for e in device["events"]
                if e["path"] == ""]
    failed = when(device, "host-array", "failed")
    back = when(device, "host-array", "reinstated")
    assert switches[0][1] == "path group 1" and switches[1] == (failed, "path group 2")
    if failback == "manual":  # stays on the non-optimised group while it works
        assert len(switches) == 2
        assert device["paths"]["host.1-array.1"]["ios"] > device["paths"]["host-array"]["ios"]
    else:
        delay = 0.0 if failback == "immediate" else 0.03
        assert switches[2][1] == "path group 1"
        assert switches[2][0] == pytest.approx(back + delay, abs=1e-12)


CHECKED = 0.01
"""polling_interval of the path checker runs, s."""
SD_TIMEOUT = 0.005
"""The command timeout of the path checker runs (and so their checker_timeout), s."""
TICK = 0.001
"""The period of multipathd's checker loop in the path checker runs (its
second scaled down as its polling_interval is), s."""


def noticed(timeout: float) -> float:
    """How long after its sending the checker loop, running every
    :data:`TICK` from the check that sent it, finds a TUR unanswered for
    *timeout* s timed out: at its first run strictly after the timeout."""
    ticks = timeout / TICK
    whole = round(ticks)
    return (whole + 1) * TICK if math.isclose(ticks, whole) else math.ceil(ticks) * TICK


def checker_run(fault: dict[str, Any], **multipath_keys: Any) -> dict[str, Any]:
    """The dual fabrics, round robin, two commands outstanding, command
    timeout :data:`SD_TIMEOUT`, polling_interval :data:`CHECKED` (and the
    multipath keys given), 150 ms with *fault*. The device's results, with
    "drop": (the time of the fault, the time its path's next check was due
    then, the checker's timeout), "ios_then": the path's requests at the
    due check plus the checker's timeout, "recovered": when the fault's
    service was restored (s) and "retries": the host initiator's retries."""
    doc = document()
    doc["run"]["duration"] = "150 ms"
    fio = doc["workloads"][0]
    del fio["count"]
    fio.update(iodepth=2, numjobs=1, timeout=f"{SD_TIMEOUT * 1e3:g} ms")
    doc["nodes"][0]["multipath"].update(polling_interval=f"{CHECKED * 1e3:g} ms",
                                        checker_tick=f"{TICK * 1e3:g} ms", **multipath_keys)
    doc["faults"] = [fault]
    scenario = scenario_from_document(doc, "checker.toml")
    sim = Simulation(scenario.run.seed)
    net = BUILDERS[scenario.topology](sim, scenario)
    storage = Storage(sim, scenario, net)
    faults = install_faults(sim, scenario, net, {})
    assert isinstance(faults, FaultRun)
    (device,) = storage.multipaths.values()
    path = device.paths[0]
    seen: dict[str, Any] = {}

    def at_drop(_event: object) -> None:
        assert not path.testing  # no TUR in flight at the fault
        timeout = device.config.checker_timeout
        assert timeout is not None
        seen["drop"] = (sim.now, path.next_check, timeout)
        sim.call_later(path.next_check + timeout - sim.now + 1e-9,
                       lambda _e: seen.setdefault("ios_then", path.ios))
    sim.call_later(float(fault["at"].split()[0]) * 1e-3, at_drop)
    sim.run(0.15)
    return device.results() | seen | {"recovered": faults.incidents.records[0].recovered,
                                      "retries": storage.initiators["host"].stats.retries}


DEAD = {"at": "20 ms", "kind": "port-failure", "port": "array"}
"""The target's N_Port in fabric A stops at 20 ms for good, its links up."""


def test_the_checker_fails_a_dead_path_checker_timeout_after_its_first_check() -> None:
    """A path that drops every frame while its link stays up: its remote
    port stays online, and the commands lost on it are retried there as sd
    retries them ((1 + SD_MAX_RETRIES) x 2 x the timeout), but multipathd's
    checker fails it at its first check after the drop, at the checker
    loop's first run after checker_timeout from then (its TEST UNIT READY
    unanswered: tur.c compares whole seconds, ``now.tv_sec > ct->time``);
    no new request goes down it after that."""
    device = checker_run(DEAD)
    drop, due, timeout = device["drop"]
    assert timeout == SD_TIMEOUT  # checker_timeout defaults to the command timeout
    # the first check after the drop is due within max_polling_interval (4 x polling_interval)
    assert drop < due <= drop + 4 * CHECKED
    failed = when(device, "host-array", "failed")
    assert failed == pytest.approx(due + timeout + TICK, abs=1e-12)  # 5 ticks: at the 6th
    assert device["events"][[e["path"] for e in device["events"]].index("host-array")][
        "event"] == "failed (path checker: TUR timed out)"
    assert failed < drop + (1 + SD_MAX_RETRIES) * 2 * SD_TIMEOUT  # before sd gives up
    assert device["paths"]["host-array"]["ios"] == device["ios_then"]
    assert device["paths"]["host-array"]["failures"] == 1
    # the requests lost at the drop were each tried 1 + SD_MAX_RETRIES times there (a TUR
    # is never retried), then sent down the other path
    assert device["requeued"] > 0
    assert device["retries"] == SD_MAX_RETRIES * device["requeued"]
    assert device["failed_ios"] == 0


@pytest.mark.parametrize("checker_timeout", [0.003, 0.0025])
def test_a_given_checker_timeout_sets_when_the_dead_path_fails(checker_timeout: float) -> None:
    """A whole number of ticks (3 ms of 1 ms) is found at the tick after it
    (4 ms); 2.5 ms at the first tick after it (3 ms)."""
    device = checker_run(DEAD, checker_timeout=f"{checker_timeout * 1e3:g} ms")
    _drop, due, timeout = device["drop"]
    assert timeout == checker_timeout
    assert when(device, "host-array", "failed") == pytest.approx(due + noticed(timeout),
                                                                 abs=1e-12)


def test_a_path_that_heals_is_reinstated_at_the_first_tur_answered() -> None:
    """The target's port in fabric A stops from 20 ms to 60 ms: the failed
    path is checked every polling_interval from its failure. The check in
    progress when the port comes back sent its TEST UNIT READY while the
    port was dead: the SCSI layer aborts it at its timeout, the abort is
    answered now, and the TUR completes with DID_TIME_OUT, an error of the
    HBA for tur.c, which sends it again (``retry_tur``) before the checker
    loop's run that would have found it timed out; answered GOOD, the path
    is reinstated then, a round trip later."""
    device = checker_run(DEAD | {"duration": "40 ms"})
    failed = when(device, "host-array", "failed (path checker: TUR timed out)")
    back = device["recovered"]  # the port serves again (logged in anew)
    assert back is not None and back >= 0.06
    # each check of the failed path comes a polling_interval after the last one's end: the
    # checker loop's run that found its TUR timed out while the port is dead
    period = CHECKED + noticed(SD_TIMEOUT)
    k = math.floor((back - SD_TIMEOUT - failed - CHECKED) / period) + 1
    check = failed + CHECKED + k * period  # the first whose TUR's abort finds the port back
    assert check < back < check + SD_TIMEOUT < check + noticed(SD_TIMEOUT)
    reinstated = when(device, "host-array", "reinstated (path checker)")
    # the abort's and the second TUR's round trips
    assert check + SD_TIMEOUT <= reinstated <= check + SD_TIMEOUT + 1e-3
    assert device["paths"]["host-array"]["state"] == "active"
    assert device["paths"]["host-array"]["failures"] == 1


def test_the_checker_s_defaults_are_multipath_tools_and_sd_s() -> None:
    """multipath-tools' defaults.h: DEFAULT_CHECKINT 5 s, MAX_CHECKINT(t) 4 x t;
    checker_timeout unset: the path's SCSI command timeout (sd's 30 s unless the
    job gives one), as multipath.conf(5) says."""
    doc = document()
    sim, storage = built(doc)
    (device,) = storage.multipaths.values()
    config = device.config
    assert (config.polling_interval, config.max_checkint) == (5.0, 20.0)
    assert config.checker_timeout == 30.0
    doc["nodes"][0]["multipath"].update(polling_interval="2 s")
    doc["workloads"][0]["timeout"] = "7 s"
    _sim, storage = built(doc)
    (device,) = storage.multipaths.values()
    assert (device.config.max_checkint, device.config.checker_timeout) == (8.0, 7.0)
    doc["nodes"][0]["multipath"].update(max_polling_interval="3 s", checker_timeout="1 s")
    _sim, storage = built(doc)
    (device,) = storage.multipaths.values()
    assert (device.config.max_checkint, device.config.checker_timeout) == (3.0, 1.0)
