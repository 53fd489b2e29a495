"""A host multipathed to one logical unit (docs/multipath.md): how its
multipath layer shares the I/O among the paths, against closed forms
computed from the scenario's own figures."""

from __future__ import annotations

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
