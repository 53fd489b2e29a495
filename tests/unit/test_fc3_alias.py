"""FC-3 alias groups: the alias server's frames, joining, and N_Ports of a node."""

from __future__ import annotations

import struct

import pytest

from fcsim.build import build_fabric
from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import ALIAS_SERVER
from fcsim.fc2 import header as h
from fcsim.fc2.els_payload import CT_ACCEPT, CT_REJECT
from fcsim.fc3.alias import (
    CT_JOIN_ALIAS_GROUP,
    FIRST_ALIAS_ID,
    GS_SUBTYPE_ALIAS_SERVER,
    GS_TYPE_ALIAS,
    alias_token,
    join_answer,
    join_request,
)
from fcsim.fc3.ports import port_names, ports_of
from fcsim.runner import run_once
from fcsim.scenario.model import AliasGroupConfig, NodeConfig
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric


class Frames:
    """Trace sink keeping every frame with the port that sent it."""

    def __init__(self) -> None:
        self.sent: list[tuple[float, str, object]] = []

    def frame(self, time, port, frame, start, end) -> None:
        self.sent.append((start, port.name, frame))

    def primitive(self, time, port, name, start) -> None:
        pass


def test_the_alias_server_is_ffffff8_of_the_alias_service() -> None:
    """FC-PH-2's alias server address; the alias service's CT type and the alias
    server's subtype (Linux fc_gs.h FC_FST_ALIAS, Wireshark FCCT_GSSUBTYPE_AS)."""
    assert ALIAS_SERVER == 0xFFFFF8
    assert (GS_TYPE_ALIAS, GS_SUBTYPE_ALIAS_SERVER) == (0xF8, 0x01)


def test_join_request_and_answer_bytes() -> None:
    request = join_request("servers", 0x010200)
    assert len(request) == 28
    rev, in_id, gs_type, subtype, code = struct.unpack_from(">B3sBBxxH", request)
    assert (rev, in_id, gs_type, subtype, code) == (1, b"\x01\x02\x00", 0xF8, 0x01,
                                                    CT_JOIN_ALIAS_GROUP)
    assert struct.unpack_from(">QI", request, 16) == (alias_token("servers"), 0x010200)
    accept = join_answer(FIRST_ALIAS_ID)
    assert struct.unpack_from(">H", accept, 8)[0] == CT_ACCEPT
    assert struct.unpack_from(">I", accept, 16)[0] == 0xFFFB00
    assert struct.unpack_from(">H", join_answer(None), 8)[0] == CT_REJECT


def test_port_names_of_a_node_with_several_n_ports() -> None:
    assert port_names("host", 3) == ["host", "host.1", "host.2"]
    nodes = [NodeConfig("a", ports=2), NodeConfig("b")]
    assert ports_of(nodes) == {"a": "a", "a.1": "a", "b": "b"}


def test_every_n_port_of_a_node_logs_in_with_its_own_address() -> None:
    nodes = {"h": "sw:0", "h.1": "sw:1", "h.2": "sw:2", "d": "sw:5"}
    scenario = fabric(nodes, (), 1e-3, ports={"h": 3})
    net = build_fabric(Simulation(1), scenario)
    assert sorted(net.nodes) == ["d", "h", "h.1", "h.2"]
    assert [net.address_of(p) for p in ("h", "h.1", "h.2")] == [0x010000, 0x010100, 0x010200]
    result = run_once(scenario, 1)
    assert all(result["login_s"][p] is not None for p in nodes)


def _multicast(registration: str, login: bool = True) -> tuple[dict, Frames]:
    nodes = {"src": "sw:0", "m0": "sw:1", "m1": "sw:2"}
    group = AliasGroupConfig("g", "multicast", ("m0", "m1"), registration)
    load = StreamConfig("s", "src", "g", 4096, 3, count=3)
    sink = Frames()
    result = run_once(fabric(nodes, (load,), 2e-3, login=login, alias_groups=(group,)), 1,
                      [sink])
    return result, sink


def test_members_join_through_the_alias_server_frame_by_frame() -> None:
    """Each member sends one join (a CT request to FFFFF8) once logged in; the
    switch answers after its service time; the group is ready at the last answer
    and the sender starts only then."""
    result, sink = _multicast("alias-server")
    joins = [(t, port, f) for t, port, f in sink.sent if f.d_id == ALIAS_SERVER]
    assert sorted(port for _, port, _ in joins) == ["m0", "m1"]
    assert all(f.type == h.TYPE_CT and f.cls == 3 for _, _, f in joins)
    group = result["fc3"]["multicast_groups"]["g"]
    assert result["fc3"]["alias_server_joins"] == 2
    assert group["alias_id"] == "FFFB00"
    assert group["ready_s"] > max(result["login_s"][m] for m in ("m0", "m1")) + 20e-6
    first_data = min(t for t, port, f in sink.sent if port == "src" and f.d_id == 0xFFFB00)
    assert first_data >= group["ready_s"]
    assert result["network_up_s"] == group["ready_s"]


def test_static_registration_sends_no_frame() -> None:
    result, sink = _multicast("static", login=False)
    assert not [f for _, _, f in sink.sent if f.d_id == ALIAS_SERVER]
    assert result["fc3"]["multicast_groups"]["g"]["ready_s"] == 0.0
    assert result["fc3"]["alias_server_joins"] == 0


def test_a_run_that_ends_before_the_group_is_joined_says_so() -> None:
    nodes = {"src": "sw:0", "m0": "sw:1", "m1": "sw:2"}
    group = AliasGroupConfig("g", "multicast", ("m0", "m1"))
    result = run_once(fabric(nodes, (), 10e-6, login=False, alias_groups=(group,)), 1)
    assert result["network_up_s"] is None
    assert result["warnings"] == ["not a result: the run ended before the network was up: "
                                  "alias group g had 0 of 2 members joined"]


@pytest.mark.parametrize("kind", ["hunt-group", "multicast"])
def test_a_frame_to_an_alias_of_no_group_is_refused(kind: str) -> None:
    """The switch refuses a D_ID it can route neither as a port nor as a group:
    F_RJT for Class 2 (the sender's sequence is rejected)."""
    nodes = {"src": "sw:0", "m0": "sw:1", "m1": "sw:2"}
    group = AliasGroupConfig("g", kind, ("m0", "m1"), "static")
    scenario = fabric(nodes, (), 1e-3, login=False, alias_groups=(group,))
    sim = Simulation(1)
    net = build_fabric(sim, scenario)
    src = net.nodes["src"]
    src.login(net.nodes["m0"])
    src.peers[FIRST_ALIAS_ID + 7] = src.peers[net.address_of("m0")]
    seq = src.send(src.open_exchange(FIRST_ALIAS_ID + 7), 1000, 2)
    sim.run(1e-3)
    assert seq.status == "rejected"
    assert net.switches["sw"].stats.f_rjt == 1
