"""NPIV on a generated fabric: ``[fabric] virtual_ports`` puts v virtual
N_Ports behind every generated N_Port; each logs in with FDISC and gets
domain / port / k, and each switch port accepts its model's npiv_logins L
and refuses the rest with LS_RJT (docs/fabric-services.md, "NPIV"). Counts
from the closed form: per switch port min(v, L) accepted and v - min(v, L)
refused, over the (switches - cores) x nodes_per_switch ports of a core-edge
fabric."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fcsim.catalog import MODELS_DIR
from fcsim.runner import run_once
from fcsim.scenario.loader import scenario_from_document
from fcsim.schema.errors import ScenarioError

SWITCHES, CORES, PER_EDGE = 5, 2, 3


def _doc(virtual: Any, model: str = "generic-nonblocking", **run: Any) -> dict[str, Any]:
    """A core-edge fabric with *virtual* virtual N_Ports behind each generated
    N_Port, edge switches of *model*, and one stream from a virtual N_Port on
    the first edge switch to one on the last (across a core)."""
    last = f"e{SWITCHES - CORES - 1}n0"
    return {"topology": "fabric", "name": "npiv-generated",
            "run": {"duration": "400 us", **run},
            "fabric": {"kind": "core-edge", "switches": SWITCHES, "cores": CORES,
                       "model": model, "core_model": "generic-nonblocking",
                       "nodes_per_switch": PER_EDGE, "speed": "4GFC",
                       "virtual_ports": virtual},
            "workloads": [{"name": "vm", "type": "stream", "from": "e0n0.v1",
                           "to": f"{last}.v1", "size": "8 KiB"}]}


def _limited(tmp_path: Path, limit: int) -> str:
    """The path of a switch model file: generic-nonblocking with npiv_logins = *limit*."""
    text = (MODELS_DIR / "switches" / "generic-nonblocking.toml").read_text()
    path = tmp_path / "npiv-limited.toml"
    path.write_text(text + f'npiv_logins = {{ value = {limit}, source = "test" }}\n')
    return str(path)


def _check(result: dict[str, Any], virtual: int, limit: int) -> None:
    accepted = min(virtual, limit)
    fdisc = result["npiv"]["fdisc"]
    ports = [f"e{e}n{n}" for e in range(SWITCHES - CORES) for n in range(PER_EDGE)]
    assert len(fdisc) == len(ports)
    assert all(counts == {"accepted": accepted, "refused": virtual - accepted}
               for counts in fdisc.values())
    assert sum(c["accepted"] for c in fdisc.values()) == len(ports) * accepted
    assert sum(c["refused"] for c in fdisc.values()) == len(ports) * (virtual - accepted)
    for port in ports:
        physical = int(result["nodes"][port]["port_id"], 16)
        assert physical & 0xFF == 0
        for k in range(1, accepted + 1):  # logged in by FDISC: domain / port / k
            assert result["nodes"][f"{port}.v{k}"]["port_id"] == f"{physical + k:06X}"
            assert result["login_s"][f"{port}.v{k}"] is not None
        for k in range(accepted + 1, virtual + 1):  # refused with LS_RJT: never logged in
            assert result["login_s"][f"{port}.v{k}"] is None
        assert result["npiv"]["ports"][port] == {
            "n_ports": 1 + virtual, "logged_in": 1 + accepted,
            "refused": [f"{port}.v{k}" for k in range(accepted + 1, virtual + 1)]}


def test_every_virtual_port_of_a_generated_fabric_logs_in_by_fdisc() -> None:
    virtual = 4
    result = run_once(scenario_from_document(_doc(virtual), "g.toml"), 1)
    _check(result, virtual, 255)  # generic-nonblocking: the default limit, 255
    assert result["workloads"]["vm"]["frames"] > 0  # a virtual N_Port sends across the fabric


def test_the_ports_over_the_limit_are_refused(tmp_path: Path) -> None:
    virtual, limit = 4, 2
    doc = _doc(virtual, _limited(tmp_path, limit))
    result = run_once(scenario_from_document(doc, str(tmp_path / "g.toml")), 1)
    _check(result, virtual, limit)
    assert result["workloads"]["vm"]["frames"] > 0  # v1 on each side is within the limit


@pytest.mark.parametrize(("virtual", "run", "extra", "says"), [
    (2, {"login": False}, {}, "run.login = true"),
    (2, {}, {"faults": [{"at": "1 ms", "kind": "link-down", "link": "e0n1"}]},
     "no virtual N_Ports in a run with faults"),
    (256, {}, {}, "0..255"),
    ("two", {}, {}, "0..255"),
])
def test_bad_virtual_ports_is_one_line_naming_the_key(virtual: Any, run: dict[str, Any],
                                                       extra: dict[str, Any], says: str) -> None:
    with pytest.raises(ScenarioError) as error:
        scenario_from_document({**_doc(virtual, **run), **extra}, "g.toml")
    assert len(error.value.problems) == 1
    line = str(error.value)
    assert "fabric.virtual_ports" in line and says in line
