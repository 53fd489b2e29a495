"""NPIV: virtual N_Ports behind one physical port log in with FDISC after
the FLOGI (FC-LS-5), each gets its own N_Port ID (domain / port / k), a
switch port accepts its model's npiv_logins and refuses the next with LS_RJT
(docs/fabric-services.md, "NPIV")."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.fc2 import els
from fcsim.fc2 import header as h
from fcsim.runner import run_once
from fcsim.scenario.loader import read_document, scenario_from_document
from fcsim.scenario.model import Scenario

EXAMPLE = "scenarios/fabric-npiv.toml"


class Frames:
    """Trace sink keeping (sender port, S_ID, D_ID, R_CTL, first payload byte) of data frames."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int, int, int, int | None]] = []

    def frame(self, time, port, frame, start, end) -> None:
        if not frame.is_link_control:
            ulp = frame.sequence.ulp if frame.sequence is not None else None
            self.seen.append((port.name, frame.s_id, frame.d_id, frame.r_ctl,
                              ulp[0] if isinstance(ulp, bytes) and ulp else None))

    def primitive(self, time, port, name, start) -> None:
        """R_RDYs are not needed here."""


def _scenario(virtual: int, limit: int | None = None, duration: str = "2 ms") -> Scenario:
    doc: dict[str, Any] = copy.deepcopy(read_document(EXAMPLE))
    doc["run"]["duration"] = duration
    doc["nodes"][0]["virtual_ports"] = virtual
    doc["workloads"] = [{"name": f"vm{k}", "type": "stream", "from": f"server.v{k}",
                         "to": "disk", "size": "32 KiB"} for k in range(1, virtual + 1)]
    scenario = scenario_from_document(doc, EXAMPLE)
    if limit is not None:
        switches = tuple(dataclasses.replace(s, model=dataclasses.replace(s.model,
                                                                          npiv_logins=limit))
                         for s in scenario.switches)
        scenario = dataclasses.replace(scenario, switches=switches)
    return scenario


def test_n_virtual_ports_log_in_each_with_its_own_id_and_send_from_it() -> None:
    frames = Frames()
    result = run_once(_scenario(3), 1, [frames])
    assert not result["warnings"] or "not a result" not in result["warnings"][0]
    ids = {name: result["nodes"][name]["port_id"] for name in
           ("server", "server.v1", "server.v2", "server.v3")}
    assert ids == {"server": "010000", "server.v1": "010001", "server.v2": "010002",
                   "server.v3": "010003"}
    assert result["npiv"]["fdisc"] == {"switch:0": {"accepted": 3, "refused": 0}}
    assert result["npiv"]["ports"]["server"] == {"n_ports": 4, "logged_in": 4, "refused": []}
    # on the server's link: one FLOGI, then three FDISCs from S_ID 0, in turn
    logins = [(s, first) for port, s, d, r_ctl, first in frames.seen
              if port == "server" and d == 0xFFFFFE]
    assert logins == [(0, els.ELS_FLOGI)] + [(0, els.ELS_FDISC)] * 3
    # every frame to the disk (PLOGIs, then data) leaves with its VM's own N_Port ID
    to_disk = [s for port, s, d, r_ctl, _ in frames.seen if port == "server" and d == 0x010100]
    assert set(to_disk) == {0x010001, 0x010002, 0x010003}
    data = [s for port, s, d, r_ctl, _ in frames.seen
            if port == "server" and d == 0x010100 and r_ctl != h.R_CTL_ELS_REQUEST]
    assert all(data.count(s) > 10 for s in (0x010001, 0x010002, 0x010003))
    for k in (1, 2, 3):
        assert result["workloads"][f"vm{k}"]["frames"] > 0


def test_the_login_past_the_limit_is_refused_with_ls_rjt_and_counted() -> None:
    frames = Frames()
    result = run_once(_scenario(3, limit=2), 1, [frames])
    assert result["npiv"]["fdisc"] == {"switch:0": {"accepted": 2, "refused": 1}}
    assert result["npiv"]["ports"]["server"] == {"n_ports": 4, "logged_in": 3,
                                                 "refused": ["server.v3"]}
    rejects = [d for port, s, d, r_ctl, first in frames.seen
               if port == "switch:0" and s == 0xFFFFFE and first == els.ELS_LS_RJT]
    assert rejects == [0]  # to the FDISC's S_ID, 0
    assert result["login_s"]["server.v3"] is None
    assert result["workloads"]["vm3"]["frames"] == 0
    assert result["workloads"]["vm2"]["frames"] > 0
    assert result["network_up_s"] is not None  # a refused login is not waited for


@settings(max_examples=6, deadline=None)
@given(st.integers(1, 5), st.integers(0, 5))
def test_accepted_and_refused_follow_the_limit(virtual: int, limit: int) -> None:
    """accepted = min(v, limit), refused = v - accepted, and each accepted
    virtual N_Port k gets domain / port / k."""
    result = run_once(_scenario(virtual, limit, duration="300 us"), 1)
    accepted = min(virtual, limit)
    assert result["npiv"]["fdisc"]["switch:0"] == {"accepted": accepted,
                                                   "refused": virtual - accepted}
    for k in range(1, accepted + 1):
        assert result["nodes"][f"server.v{k}"]["port_id"] == f"0100{k:02X}"
    assert result["npiv"]["ports"]["server"]["refused"] == [
        f"server.v{k}" for k in range(accepted + 1, virtual + 1)]


def test_the_virtual_n_ports_share_the_link() -> None:
    """Three saturating streams from three virtual N_Ports on one link carry,
    together, what one stream carries alone (within 1 %: the link binds)."""
    together = run_once(_scenario(3), 1)
    alone = run_once(_scenario(1), 1)
    total = sum(together["workloads"][f"vm{k}"]["payload_bytes"] for k in (1, 2, 3))
    one = alone["workloads"]["vm1"]["payload_bytes"]
    assert abs(total - one) / one < 0.01


def test_virtual_ports_need_login_and_no_faults_and_are_no_link_end() -> None:
    import pytest

    from fcsim.schema.errors import ScenarioError

    doc = read_document(EXAMPLE)
    bad = copy.deepcopy(doc)
    bad["run"]["login"] = False
    with pytest.raises(ScenarioError, match="run.login = true"):
        scenario_from_document(bad, EXAMPLE)
    bad = copy.deepcopy(doc)
    bad["links"][0]["ends"] = ["server.v1", "switch:0"]
    with pytest.raises(ScenarioError, match="shares its node's link"):
        scenario_from_document(bad, EXAMPLE)
