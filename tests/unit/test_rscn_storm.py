"""An RSCN storm: one storage port flaps in an N-domain fabric with M
registered N_Ports (docs/fabric-services.md, "RSCN storms"). Its switch
tells the others by SW_RSCN (FC-SW-7), each switch sends an RSCN to each of
its registered N_Ports, every host that sends to the port asks the name
server (GID_FT) on each RSCN and logs in again (PLOGI) once it is back."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.runner import run_once
from fcsim.scenario.loader import scenario_from_document


def chain(domains: int, hosts_per_switch: int) -> dict[str, Any]:
    """*domains* switches in a chain, *hosts_per_switch* hosts on each, each
    sending a few sequences to one disk on the first switch, whose cable is
    pulled at 1 ms and put back at 1.5 ms. (With saturating streams a host's
    name-server query waits behind its data for credit on the shared ISLs: the
    storm's queries and logins are then spread over a longer time.)"""
    doc: dict[str, Any] = {
        "name": "storm", "topology": "fabric", "run": {"duration": "3 ms"},
        "switches": [{"name": f"s{i}", "model": "generic-nonblocking"}
                     for i in range(domains)],
        "nodes": [{"name": "disk"}], "links": [], "workloads": [],
        "faults": [{"at": "1 ms", "kind": "link-down", "link": "disk-cable"},
                   {"at": "1.5 ms", "kind": "link-up", "link": "disk-cable"}]}
    doc["links"].append({"name": "disk-cable", "ends": ["disk", "s0:0"], "speed": "4GFC",
                         "length": "5 m"})
    for i in range(domains - 1):
        doc["links"].append({"ends": [f"s{i}:15", f"s{i + 1}:14"], "speed": "4GFC",
                             "length": "5 m"})
    for i in range(domains):
        for j in range(hosts_per_switch):
            name = f"h{i}_{j}"
            doc["nodes"].append({"name": name})
            doc["links"].append({"ends": [name, f"s{i}:{j + 1}"], "speed": "4GFC",
                                 "length": "5 m"})
            doc["workloads"].append({"name": name, "type": "stream", "from": name,
                                     "to": "disk", "size": "2 KiB", "count": 4})
    return doc


def _storm(domains: int, hosts_per_switch: int) -> dict[str, Any]:
    result = run_once(scenario_from_document(chain(domains, hosts_per_switch), "storm.toml"), 1)
    return result["faults"]["fabric"]


def test_one_flap_in_a_four_domain_fabric() -> None:
    """N = 4 domains, M = 9 registered N_Ports (8 hosts and the disk): for the
    disk leaving and coming back, 2 (N - 1) SW_RSCNs, 2 (M - 1) RSCNs,
    2 (M - 1) name-server queries (every host sends to the disk) and M - 1
    PLOGIs (once it is back)."""
    domains, per = 4, 2
    m = domains * per + 1
    fabric = _storm(domains, per)
    assert fabric["sw_rscn_sent"] == 2 * (domains - 1)
    assert fabric["rscn_sent"] == 2 * (m - 1)
    assert fabric["rscn_queries"] == 2 * (m - 1)
    assert fabric["rscn_logins"] == m - 1


@settings(max_examples=5, deadline=None)
@given(st.integers(2, 6), st.integers(1, 3))
def test_the_storm_follows_the_closed_form(domains: int, per: int) -> None:
    m = domains * per + 1
    fabric = _storm(domains, per)
    assert (fabric["sw_rscn_sent"], fabric["rscn_sent"], fabric["rscn_queries"],
            fabric["rscn_logins"]) == (2 * (domains - 1), 2 * (m - 1), 2 * (m - 1), m - 1)


def test_one_flap_in_a_239_domain_fabric() -> None:
    """The most domains a fabric has (239, FC-SW), one host on each switch
    (M = 240 registered N_Ports): the same closed form, the SW_RSCNs crossing
    up to 238 ISLs of the chain."""
    domains, per = 239, 1
    m = domains * per + 1
    fabric = _storm(domains, per)
    assert (fabric["sw_rscn_sent"], fabric["rscn_sent"], fabric["rscn_queries"],
            fabric["rscn_logins"]) == (2 * (domains - 1), 2 * (m - 1), 2 * (m - 1), m - 1)
