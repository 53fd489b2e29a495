"""Per-port credit: a link's switch ports given their own receive buffers
(`bb_credit`) or buffers for a configured distance (`long_distance`, Brocade's
formula), in listed and generated fabrics; refused where it means nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.build import build_fabric
from fcsim.engine.simulation import Simulation
from fcsim.fabric.long_distance import long_distance_buffers, nominal_gbps
from fcsim.fc0.speed import speed_named
from fcsim.fc2.login import LOGIN_BB_CREDIT
from fcsim.scenario.loader import load_scenario
from tests.builders import assert_refused

EXAMPLE = Path(__file__).parents[2] / "scenarios" / "fabric-long-distance-isl.toml"


@pytest.mark.parametrize(("speed", "gbps", "reserved"), [
    ("1GFC", 1, 31), ("2GFC", 2, 56), ("4GFC", 4, 106), ("8GFC", 8, 206), ("16GFC", 16, 406)])
def test_brocade_reserve_for_50_km(speed: str, gbps: int, reserved: int) -> None:
    """Brocade's examples, 'If you have a distance of 50 km at 4 Gbps, then
    (50 km * 4 Gbps / 2) + 6 = 106 buffers': the data frames get all but the
    6 reserved for fabric services."""
    assert nominal_gbps(speed_named(speed)) == pytest.approx(gbps)
    assert long_distance_buffers(50_000.0, speed_named(speed)) + 6 == reserved


def test_a_fraction_of_a_buffer_is_rounded_up() -> None:
    assert long_distance_buffers(5_000.0, speed_named("1GFC")) == 3  # 2.5
    assert long_distance_buffers(1.0, speed_named("1GFC")) == 1
    with pytest.raises(ValueError):
        long_distance_buffers(0.0, speed_named("1GFC"))


def test_the_isl_ports_get_the_distance_s_buffers_and_f_ports_the_model_s() -> None:
    scenario = load_scenario(EXAMPLE)
    net = build_fabric(Simulation(1), scenario)
    isl = net.links["isl"]
    model = scenario.switches[0].model
    want = long_distance_buffers(50_000.0, speed_named("4GFC"))
    for port in (isl.a, isl.b):
        assert port.rx_buffers == want and port.credit_login == want
    f_port = net.switches["siteA"].ports[0].port
    assert f_port.rx_buffers == model.bb_credit
    _logged_in(net)
    assert net.nodes["host"].port.credit_login == model.bb_credit


def _logged_in(net) -> None:
    """Run *net*'s fabric logins to the end: an N_Port sends its FLOGI on the
    login BB credit and learns the F_Port's buffers from the LS_ACC."""
    host = net.nodes["host"]
    assert host.port.credit_login == LOGIN_BB_CREDIT and host.ready_at is None
    sim = host.sim
    while host.ready_at is None:
        sim.run(sim.now + 1e-4)


def test_bb_credit_sets_both_switch_ports_of_a_link(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8").replace('long_distance = "50 km"',
                                                       "bb_credit = 40")
    text = text.replace('ends = ["host", "siteA:0"]', 'ends = ["host", "siteA:0"]\nbb_credit = 3')
    path = tmp_path / "credit.toml"
    path.write_text(text, encoding="utf-8")
    net = build_fabric(Simulation(1), load_scenario(path))
    assert {net.links["isl"].a.rx_buffers, net.links["isl"].b.rx_buffers} == {40}
    assert net.switches["siteA"].ports[0].port.rx_buffers == 3
    _logged_in(net)
    assert net.nodes["host"].port.credit_login == 3  # an F_Port's buffers are its N_Port's credit


@pytest.mark.parametrize(("edit", "key", "given", "allowed"), [
    (('long_distance = "50 km"', "bb_credit = 0"), "links[2].bb_credit", "given 0",
     "an integer >= 1"),
    (('long_distance = "50 km"', 'long_distance = "0 km"'), "links[2].long_distance",
     "given '0 km'", "> 0 m"),
    (('long_distance = "50 km"', 'long_distance = "50 km"\nbb_credit = 8'),
     "links[2].long_distance", "given '50 km'", "not with bb_credit"),
])
def test_refused(tmp_path: Path, edit: tuple[str, str], key: str, given: str,
                 allowed: str) -> None:
    assert_refused(tmp_path, EXAMPLE.read_text(encoding="utf-8"), edit, key, given, allowed)


def test_refused_outside_a_fabric(tmp_path: Path) -> None:
    base = (Path(__file__).parents[2] / "scenarios" / "p2p-long-link-credit.toml").read_text(
        encoding="utf-8")
    assert_refused(tmp_path, base, ("[[links]]", "[[links]]\nbb_credit = 40"),
                   "links[0].bb_credit", "given 40", "only on a link of a fabric")


class _FlogiCredit:
    """Trace sink: for each FLOGI *port* sends, its credit and login credit after it."""

    def __init__(self, port: str) -> None:
        self.port, self.rows = port, []

    def frame(self, time, port, frame, start, end) -> None:
        if port.name == self.port and getattr(frame, "d_id", None) == 0xFFFFFE:
            self.rows.append((start, port.credit, port.credit_login))

    def primitive(self, *args) -> None:
        """Not needed."""

    def state(self, *args) -> None:
        """Not needed."""


def test_a_link_failure_logs_the_n_port_out_and_its_flogi_again_uses_one_credit(
        tmp_path: Path) -> None:
    """A Link Failure logs an N_Port out of the fabric (FC-FS): when its link
    is back it sends its FLOGI again on the login BB credit, not on the
    F_Port's buffers it had learned."""
    from fcsim.runner import run_once
    text = (Path(__file__).parents[2] / "scenarios" / "fabric-16-port-switch.toml").read_text(
        encoding="utf-8").replace('ends = ["h0", "ancor:0"]',
                                  'name = "h0link"\nends = ["h0", "ancor:0"]', 1)
    text = text.replace('duration = "50 ms"', 'duration = "8 ms"')
    text += ('\n[[faults]]\nat = "5 ms"\nkind = "link-down"\nlink = "h0link"\n'
             '\n[[faults]]\nat = "6 ms"\nkind = "link-up"\nlink = "h0link"\n')
    path = tmp_path / "relogin.toml"
    path.write_text(text, encoding="utf-8")
    scenario = load_scenario(path)
    sink = _FlogiCredit("h0")
    run_once(scenario, scenario.run.seed, [sink])
    assert [(credit, login) for _, credit, login in sink.rows] == [
        (LOGIN_BB_CREDIT - 1, LOGIN_BB_CREDIT)] * 2
    assert sink.rows[1][0] > 6e-3  # the second FLOGI, once the link is back
