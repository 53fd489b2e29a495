"""A host multipathed to one logical unit (docs/multipath.md): how its
multipath layer shares the I/O among the paths, against closed forms
computed from the scenario's own figures."""

from __future__ import annotations

import math
import tomllib
from typing import Any

import pytest

from fcsim.runner import run_once
from fcsim.scenario.loader import scenario_from_document

DUAL = """\
topology = "fabric"
name = "dual fabrics"
[run]
duration = "100 ms"
[[switches]]
name = "swA"
model = "generic-nonblocking"
[[switches]]
name = "swB"
model = "generic-nonblocking"
[[nodes]]
name = "host"
ports = 2
[nodes.multipath]
path_grouping_policy = "multibus"
path_selector = "round-robin"
[[nodes]]
name = "array"
target = "tms-ramsan"
ports = 2
[[links]]
name = "hostA"
ends = ["host", "swA:0"]
speed = "4GFC"
[[links]]
name = "arrayA"
ends = ["array", "swA:1"]
speed = "4GFC"
[[links]]
name = "hostB"
ends = ["host.1", "swB:0"]
speed = "4GFC"
[[links]]
name = "arrayB"
ends = ["array.1", "swB:1"]
speed = "4GFC"
[[workloads]]
name = "job"
type = "fio"
from = "host"
to = "array"
rw = "randread"
bs = "8 KiB"
iodepth = 4
numjobs = 2
count = 600
"""


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
             job: dict[str, Any] | None = None,
             **multipath_keys: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A 150 ms run of the dual fabrics with *fault* (or faults), two commands outstanding,
    fast_io_fail_tmo :data:`FAST` and polling_interval :data:`POLL` unless the
    multipath keys given say otherwise, and the *host* node's and *job*'s keys
    given; the device's results (with its job's and the host's initiator's
    as "job" and "initiator") and the fault's record."""
    doc = document()
    doc["run"]["duration"] = "150 ms"
    fio = doc["workloads"][0]
    del fio["count"]
    fio.update(iodepth=2, numjobs=1, **(job or {}))
    doc["nodes"][0].update(host or {})
    doc["nodes"][0]["multipath"].update(fast_io_fail_tmo=f"{FAST * 1e3:g} ms",
                                        polling_interval=f"{POLL * 1e3:g} ms")
    doc["nodes"][0]["multipath"].update(multipath_keys)
    doc["faults"] = fault if isinstance(fault, list) else [fault]
    out = run_once(scenario_from_document(doc, "failover.toml"), 1)
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
    # multipathd's checker, every polling_interval from the failure, reinstates the path at
    # its first look after the remote port is back
    checks = math.ceil((online - failed) / POLL)
    assert when(device, "host-array", "reinstated (path checker)") == pytest.approx(
        failed + checks * POLL, abs=1e-12)


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


def test_an_unanswered_command_fails_over_after_its_timeout_and_its_abort() -> None:
    timeout = 0.01
    device, _ = failover({"at": "20 ms", "kind": "port-failure", "port": "array",
                          "duration": "60 ms"}, job={"timeout": f"{timeout * 1e3:g} ms"})
    # no link event at the host: the command times out, its ABTS goes unanswered as long,
    # and only then does the path fail and the request go to the other path
    assert 2 * timeout <= device["job"]["latency_s"]["max"] <= 2 * timeout + 1e-3
    assert device["initiator"]["timeouts"] == device["requeued"] > 0
    assert when(device, "host-array", "failed (I/O error 0x03)") >= 0.02 + 2 * timeout - 1e-3
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
