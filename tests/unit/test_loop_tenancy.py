"""One loop tenancy step by step, overruns, initialisation, the FL_Port hook, the CLI."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from fcsim.cli import main
from fcsim.engine.simulation import Simulation
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import CATALOG
from fcsim.fc2.frame import frame_chars
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.nport import NPort
from fcsim.loop.config import LoopPortConfig
from fcsim.loop.initialisation import lip_arrival, timeline
from fcsim.loop.loop import Loop
from fcsim.loop.lport import LPort
from fcsim.loop.ring import Ring
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from fcsim.trace.timeline import Timeline
from fcsim.workload.stream import Stream
from tests.builders import loop

ROOT = Path(__file__).resolve().parents[2]


def test_trace_shows_arb_opn_frames_r_rdy_and_cls_in_order() -> None:
    out = io.StringIO()
    seq = StreamConfig("seq", "p0", "p2", 3 * 2112, count=1, start=1e-3)
    run_scenario(loop(4, (seq,), duration=2e-3), [Timeline(out)])
    events = [line.split()[1:3] for line in out.getvalue().splitlines()[1:]]
    assert events[0] == ["p0->?", "LIP(F7,F7)"]
    opener = [what.split("(")[0] for who, what in events[1:] if who.startswith("p0")]
    opened = [what.split("(")[0] for who, what in events[1:] if who.startswith("p2")]
    # IDLEs reset the access window: when the owner's first ARB(F0) comes back
    # unchanged, and when the tenancy ends with no port arbitrating
    assert opener == ["ARB", "OPN", "SOFi3", "IDLE", "SOFn3", "SOFn3", "CLS", "IDLE"]
    assert opened[:16] == ["R_RDY"] * 16  # one per free buffer, answering the OPN
    assert opened[16:] == ["R_RDY"] * 3 + ["CLS"]  # one per frame received, then CLS
    assert events[2][0] == "p0->p2" and events[3][0] == "p2->p0"


def test_initialisation_phases_follow_each_other_round_the_ring() -> None:
    speed = CATALOG["1GFC"]
    ring = Ring([12 * speed.word_time] * 5, [10e-9] * 5)
    plan = timeline(ring, speed.word_time, speed.char_time, 1.0, 0, 2, True)
    names = [name for name, _ in plan.phases]
    assert names == ["LIP", "LISM", "LIFA", "LIPA", "LIHA", "LISA", "LIRP", "LILP", "CLS"]
    ends = dict(plan.phases)
    circuit = ring.path(2, 2)
    assert ends["LIP"] == pytest.approx(1.0 + lip_arrival(ring, speed.word_time, 0, 2))
    assert ends["LISM"] - ends["LIP"] == pytest.approx(circuit + 5 * frame_chars(12)
                                                       * speed.char_time)
    assert ends["LIFA"] - ends["LISM"] == pytest.approx(circuit + 5 * frame_chars(20)
                                                        * speed.char_time)
    assert ends["LILP"] - ends["LIRP"] == pytest.approx(circuit + 5 * frame_chars(132)
                                                        * speed.char_time)
    assert plan.end == pytest.approx(ends["LILP"] + speed.word_time + circuit)
    assert plan.monitoring_at[3] < plan.end and plan.cut_at[0] == 1.0
    short = timeline(ring, speed.word_time, speed.char_time, 1.0, 0, 2, False)
    assert short.duration < plan.duration


def test_login_credit_beyond_free_buffers_overruns_and_is_counted() -> None:
    slow = {"p1": ServiceParameters(bb_credit=2, rx_frame_time=300e-6)}
    ports = {"p1": LoopPortConfig(login_credit=2)}
    streams = tuple(StreamConfig(f"s{i}", f"p{i}", "p1", 4 * 2112, outstanding=1, count=2)
                    for i in (0, 2))
    rep = run_scenario(loop(3, streams, duration=0.02, ports=ports, params=slow))
    target = rep["repetitions"][0]["nodes"]["p1"]
    assert target["overruns"] > 0 and target["dropped_frames"] == target["overruns"]
    sent = sum(rep["repetitions"][0]["nodes"][f"p{i}"]["payload_tx"] for i in (0, 2))
    assert sent == target["payload_rx"] + target["dropped_payload"] + target["discarded_payload"]


def test_fl_port_hook_is_master_wins_and_takes_off_loop_ids() -> None:
    sim = Simulation(1)
    nl = [LPort(sim, f"nl{i}", 8, port_name=i) for i in range(3)]
    fl = LPort(sim, "fl", 8, fair=False, port_name=0xFFFF)
    for port, al_pa in zip(nl, (0x01, 0x02, 0x04), strict=True):
        port.al_pa = port.port_id = al_pa
    fl.al_pa, fl.port_id = 0x00, 0x0A0B00
    nodes = [NPort(sim, p.name, p.port_id, ServiceParameters(), port=p) for p in (*nl, fl)]
    for a in nodes:
        for b in nodes:
            if a is not b:
                a.login(b)
    ring = Loop(sim, "public", [nl[0], fl, nl[1], nl[2]], CATALOG["1GFC"], Cable(1.0))
    assert ring.master == 1 and ring.port_for(0x0A0B00) is fl and ring.port_for(0x02) is nl[1]
    to_fabric = Stream(sim, "up", nodes[2], 0x0A0B00, 2112, count=3, start=1e-3)
    from_fabric = Stream(sim, "down", nodes[3], 0x000001, 2112, count=3, start=1e-3)
    sim.run(5e-3)
    assert to_fabric.stats.sequences == from_fabric.stats.sequences == 3
    assert fl.loop_stats.tenancies >= 1  # first: it has the highest priority
    assert fl.loop_stats.arbitration_wait < nl[2].loop_stats.arbitration_wait


def test_cli_prints_loop_and_per_port_results(tmp_path: Path, capsys) -> None:
    text = (ROOT / "scenarios" / "loop-fairness.toml").read_text()
    short = tmp_path / "loop.toml"
    short.write_text(text.replace('duration = "50 ms"', 'duration = "3 ms"')
                     .replace('warmup = "5 ms"', 'warmup = "1 ms"'))
    assert main(["run", str(short)]) == 0
    out = capsys.readouterr().out
    assert "loop loop (first repetition): 5 ports" in out and "initialisations:" in out
    for name in ("backup (AL_PA 01, unfair)", "host_a (AL_PA 02, fair)", "array (AL_PA 0F"):
        assert name in out
    assert "tenancies won" in out and "arbitration wait" in out
