"""Timed fabric login: FLOGI, name server, GID_FT and PLOGI, frame by frame."""

from __future__ import annotations

from fcsim.build import build_fabric, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import FABRIC_LOGIN, NAME_SERVER
from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc2 import header as h
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric


class Frames:
    """Trace sink keeping (sender port, S_ID, D_ID, R_CTL, TYPE) of every data frame."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int, int, int, int]] = []

    def frame(self, time, port, frame, start, end) -> None:
        if not frame.is_link_control:
            self.seen.append((port.name, frame.s_id, frame.d_id, frame.r_ctl, frame.type))

    def primitive(self, time, port, name, start) -> None:
        """R_RDYs are not needed here."""


def _run(login: bool):
    scenario = fabric({"h": "sw:0", "d": "sw:1"},
                      (StreamConfig("s", "h", "d", 1024, count=1),), duration=0.01, login=login)
    sim = Simulation(1)
    frames = Frames()
    sim.sinks.append(frames)
    net = build_fabric(sim, scenario)
    workloads = build_workloads(sim, scenario, net)
    sim.run(scenario.run.duration)
    return net, workloads[0], frames.seen


def test_login_sequence_on_the_wire() -> None:
    net, workload, seen = _run(login=True)
    host = net.addresses["h"]
    disk = net.addresses["d"]
    from_host = [(s, d, r, t) for port, s, d, r, t in seen if port == "h"]
    assert from_host[:5] == [
        (0x000000, FABRIC_LOGIN, h.R_CTL_ELS_REQUEST, h.TYPE_ELS),  # FLOGI
        (host, NAME_SERVER, h.R_CTL_ELS_REQUEST, h.TYPE_ELS),  # PLOGI to the name server
        (host, NAME_SERVER, h.R_CTL_UNSOLICITED_CONTROL, h.TYPE_CT),  # GID_FT
        (host, disk, h.R_CTL_ELS_REQUEST, h.TYPE_ELS),  # PLOGI to the disk
        (host, disk, h.R_CTL_UNSOLICITED_DATA, h.TYPE_VENDOR),  # then the workload
    ]
    to_host = [(s, d, r) for port, s, d, r, t in seen if port == "sw:0"]
    assert (FABRIC_LOGIN, host, h.R_CTL_ELS_REPLY) in to_host  # the ACC carries the ID
    assert (disk, host, h.R_CTL_ELS_REPLY) in to_host  # the disk's PLOGI ACC
    assert workload.stats.sequences == 1


def test_login_takes_three_service_round_trips_and_can_be_off() -> None:
    service = load_switch_model("generic-nonblocking").service_time
    net, _, _ = _run(login=True)
    ready = net.nodes["h"].ready_at
    assert 3 * service < ready < 3 * service + 50e-6
    net, _, seen = _run(login=False)
    assert net.nodes["h"].ready_at == 0.0
    assert all(d not in (FABRIC_LOGIN, NAME_SERVER) for _, _, d, _, _ in seen)


def test_a_name_server_answer_longer_than_a_frame_spans_frames() -> None:
    """GID_FT of 600 N_Ports (16 + 4 x 600 bytes) is one sequence of two frames
    with relative offsets; every N_Port logs in and its workload runs."""
    import dataclasses

    model = dataclasses.replace(load_switch_model("generic-nonblocking"), ports=250)
    nodes = {f"n{i}": f"s{i // 200}:{i % 200}" for i in range(600)}
    scenario = fabric(nodes, (StreamConfig("s", "n0", "n599", 1024, count=1),),
                      duration=2e-3, switches={f"s{j}": model for j in range(3)},
                      isls=(("s0:240", "s1:241"), ("s1:240", "s2:241")))
    sim = Simulation(1)
    accepts = []

    class Accepts(Frames):
        def frame(self, time, port, frame, start, end) -> None:
            if frame.type == h.TYPE_CT and frame.r_ctl == h.R_CTL_SOLICITED_CONTROL:
                accepts.append((frame.seq_cnt, frame.parameter, frame.data_len))

    sim.sinks.append(Accepts())
    net = build_fabric(sim, scenario)
    (load,) = build_workloads(sim, scenario, net)
    sim.run(scenario.run.duration)
    assert all(node.ready_at is not None for node in net.nodes.values())
    assert load.stats.sequences == 1
    size = 16 + 4 * 600
    assert (0, 0, 2112) in accepts and (1, 2112, size - 2112) in accepts
