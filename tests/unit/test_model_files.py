"""Device models named by catalog name or by file path; names cannot leave the catalog."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import jsonschema
import pytest

from fcsim.catalog import MODELS_DIR
from fcsim.fabric.switch_model import load_switch_model
from fcsim.host.host_model import HostFile, load_host_model
from fcsim.scenario.loader import ScenarioError, load_scenario
from fcsim.scenario.reference import model_schema
from tests.fabric_text import one_switch_fabric

FABRIC = one_switch_fabric(("a", "b"), "1 ms", "1GFC", model="{model}")


def _scenario(folder: Path, model: str) -> Path:
    path = folder / "s.toml"
    path.write_text(FABRIC.format(model=model))
    return path


def test_a_model_file_is_found_beside_the_scenario(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    shutil.copy(MODELS_DIR / "switches" / "ancor-fcs-266-16.toml",
                tmp_path / "mine" / "my-switch.toml")
    by_path = load_scenario(_scenario(tmp_path, "mine/my-switch.toml")).switches[0].model
    by_name = load_scenario(_scenario(tmp_path, "ancor-fcs-266-16")).switches[0].model
    assert by_path.sources == by_name.sources
    assert by_path.routing_latency == by_name.routing_latency


@pytest.mark.parametrize(("model", "says"), [
    ("../hosts/workstation-120mhz", "is not a switch model name"),
    ("missing.toml", "no switch model file"),
    ("nonesuch", "no switch model 'nonesuch'; known: ancor-fcs-266-16"),
])
def test_bad_model_names_are_one_line_errors(tmp_path: Path, model: str, says: str) -> None:
    with pytest.raises(ScenarioError) as info:
        load_scenario(_scenario(tmp_path, model))
    message = str(info.value)
    assert "\n" not in message and says in message and "switches[0].model" in message


def test_a_model_file_that_is_not_toml_is_a_scenario_error(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("routing_latency = [")
    with pytest.raises(ScenarioError, match="not a valid TOML model file"):
        load_scenario(_scenario(tmp_path, "bad.toml"))


# -- model files are typed as scenario files are --------------------------------------------

FOLDERS = {"host": "hosts", "adapter": "adapters", "switch": "switches", "disk": "disks",
           "ramdisk": "ramdisks", "array": "arrays", "ssd": "ssds", "flash-array": "flash-arrays",
           "ethernet-switch": "ethernet-switches", "disk-channel": "disk-channels",
           "myrinet-switch": "myrinet-switches"}


@pytest.mark.parametrize("path", sorted(MODELS_DIR.glob("*/*.toml")),
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_model_file_follows_its_schema(path: Path) -> None:
    kind = next(k for k, folder in FOLDERS.items() if folder == path.parent.name)
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(model_schema(kind)).validate(document)
    assert all(isinstance(entry, dict) and entry["source"].strip()
               for name, entry in document.items() if name != "description")


def _host_file(folder: Path, text: str) -> Path:
    (folder / "hosts").mkdir(exist_ok=True)
    path = folder / "hosts" / "x.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("key", sorted(set(HostFile.model_fields) - {"description", "type"}))
def test_a_bad_value_in_a_host_file_names_file_and_key(tmp_path: Path, key: str) -> None:
    path = _host_file(tmp_path, f'{key} = {{ value = {{ x = 1 }}, source = "test" }}\n')
    with pytest.raises(ValueError) as info:
        load_host_model("x", tmp_path / "hosts")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: {key}.value: given "), message


@pytest.mark.parametrize(("text", "says"), [
    ('syscall = { value = "5 furlongs", source = "s" }\n',
     "syscall.value: given '5 furlongs'; a time with a unit"),
    ('syscall = { value = "5 us" }\n', "syscall.source: missing; a non-empty string"),
    ('syscall = "5 us"\n', "syscall: given '5 us'; a table { value = ..., source"),
    ('syscal = { value = "5 us", source = "s" }\n',
     "syscal: unknown key; did you mean 'syscall'? allowed keys in a host model file"),
    ('syscall = { value = "5 us", source = "s", unit = "us" }\n',
     "syscall.unit: unknown key; allowed keys in a { value, source } table: value, source"),
    ('syscall = { value = "-5 us", source = "s" }\nbus = { value = "NuBus-X", source = "s" }\n',
     "(and 1 more problem)"),
])
def test_model_file_problems_are_one_line(tmp_path: Path, text: str, says: str) -> None:
    path = _host_file(tmp_path, text)
    with pytest.raises(ValueError) as info:
        load_host_model("x", tmp_path / "hosts")
    assert str(info.value).startswith(f"{path}: ") and says in str(info.value), info.value
    assert "\n" not in str(info.value)


def test_a_switch_file_without_its_required_values_is_refused(tmp_path: Path) -> None:
    (tmp_path / "switches").mkdir()
    (tmp_path / "switches" / "s.toml").write_text('ports = { value = 8, source = "s" }\n')
    with pytest.raises(ValueError, match=r"s.toml: bb_credit: missing; a table"):
        load_switch_model("s", tmp_path / "switches")
    message = str(pytest.raises(ScenarioError, load_scenario,
                                _scenario(tmp_path, "switches/s.toml")).value)
    assert "switches[0].model: given 'switches/s.toml'" in message
    assert "bb_credit: missing" in message and "\n" not in message


LMBENCH_LAT_TCP_735 = (222.0, 257.0, 245.0, 248.0)
"""lmbench's 1-byte TCP round trips of four HP 9000/735s, us (McVoy and Staelin,
USENIX 1996; doc/lat_tcp.tbl of lmbench 3)."""
LMBENCH_LAT_TCP_770 = 186.0
"""... and of the J-class 9000/770, us (the same table)."""


def test_the_735s_per_call_and_per_packet_costs_are_the_c110s_scaled_by_lmbench() -> None:
    """Each of the 735's seven per-call and per-packet costs is the C110's times
    the ratio of lmbench's mean 735 TCP round trip to the 770's (1.31, within
    the 1.19-1.38 of the four 735s), to the 3 digits the model file gives."""
    c110, m735 = load_host_model("hp-c110"), load_host_model("hp-9000-735")
    mean_735 = sum(LMBENCH_LAT_TCP_735) / len(LMBENCH_LAT_TCP_735)
    factor = mean_735 / LMBENCH_LAT_TCP_770
    assert min(LMBENCH_LAT_TCP_735) / LMBENCH_LAT_TCP_770 < factor \
        < max(LMBENCH_LAT_TCP_735) / LMBENCH_LAT_TCP_770
    for cost in ("syscall", "tcp_output_per_packet", "tcp_input_per_packet", "interrupt",
                 "driver_per_frame", "context_switch", "timer_tick"):
        assert getattr(m735, cost) == pytest.approx(getattr(c110, cost) * factor, rel=5e-3), cost
        assert "lmbench" in m735.sources[cost]
