"""The scenario loader: examples load and run; every kind of bad input is one precise line."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from fcsim.build import BUILDERS
from fcsim.fc0.cable import DEFAULT_PROPAGATION
from fcsim.fc0.speed import CODING_8B10B, CODING_64B66B
from fcsim.fc2.login import ServiceParameters
from fcsim.runner import run_scenario
from fcsim.scenario.loader import ScenarioError, load_scenario
from fcsim.scenario.sections.document import TOPOLOGIES
from fcsim.scenario.sections.nodes import NodeSection
from fcsim.scenario.workload_model import (
    GeneratorConfig,
    IperfConfig,
    NetperfConfig,
    StreamConfig,
    TransferConfig,
)
from fcsim.storage.config import FioConfig
from fcsim.trapeze.config import SliceJobConfig
from fcsim.workload.distributions import Constant, Exponential, Uniform

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "scenarios").glob("*.toml"))

BASE = """\
topology = "point-to-point"

[run]
duration = "1 ms"

[[nodes]]
name = "host"

[[nodes]]
name = "disk"

[[links]]
ends = ["host", "disk"]
speed = "1GFC"

[[workloads]]
type = "stream"
from = "host"
to = "disk"
size = "8 KiB"
"""

GENERATOR = """
[[workloads]]
name = "gen"
type = "generator"
from = "disk"
to = "host"
size = "1 KiB"
interarrival = "10 us"
"""


def write(tmp_path: Path, text: str, name: str = "case.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def edited(*edits: tuple[str, str], extra: str = "") -> str:
    """BASE with each (old, new) replaced once (old must be there), plus *extra*."""
    text = BASE + extra
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def error_of(path: Path) -> str:
    """The first line of the error loading *path*; every line names the file."""
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    lines = str(info.value).splitlines()
    assert all(line.startswith(f"{path}: ") for line in lines), lines
    assert "Traceback" not in str(info.value) and len(lines) == len(info.value.problems)
    return lines[0]


# -- good files ---------------------------------------------------------------------


def test_all_examples_are_there() -> None:
    assert [p.name for p in EXAMPLES] == [
        "das2-vlan-loopback.toml", "fabric-16-port-switch.toml", "fabric-239-domains.toml",
        "fabric-core-edge-isls.toml", "fabric-fat-tree-permutation.toml",
        "fabric-fspf-flap.toml", "fabric-hard-zoning.toml", "fabric-isl-failure.toml",
        "fabric-isl-trunk.toml", "fabric-long-distance-isl.toml", "fabric-npiv.toml",
        "fabric-rscn-storm.toml", "fabric-rscn-zoning.toml",
        "fabric-slow-drain-credit-loss.toml", "fabric-slow-drain-dirl.toml",
        "fabric-slow-drain-fencing.toml", "fabric-slow-drain-fpin.toml",
        "fabric-slow-drain-isolation.toml", "fabric-slow-drain-vc.toml",
        "fabric-slow-drain.toml", "fabric-storage-on-core.toml", "fc3-hunt-group.toml",
        "fc3-multicast.toml", "fc3-striping.toml", "fcp-abts-after-loss.toml",
        "fcp-link-down-held.toml", "fcp-read-and-write.toml", "gige-mtu-1500.toml",
        "gige-mtu-9000.toml", "gige-pulled-cable.toml", "gige-udp-phase-effects.toml",
        "loop-32-ports.toml", "loop-fairness.toml", "loop-lip-busy.toml", "loop-two-sites.toml",
        "multipath-dual-fabric.toml", "multipath-link-failure.toml",
        "multipath-marginal-isl-no-fpin.toml", "multipath-marginal-isl.toml",
        "myrinet-slice-storage.toml", "myrinet-switch-failure.toml", "myrinet-two-hosts.toml",
        "netperf-tcp-rr.toml", "netperf-tcp-stream-sweep.toml", "nvme-link-fault.toml",
        "nvme-multipath-ana.toml", "nvme-namespaces.toml", "nvme-vs-fcp-nvme.toml",
        "nvme-vs-fcp-scsi.toml", "nvme-vs-fcp-sweep-nvme.toml", "nvme-vs-fcp-sweep-scsi.toml",
        "p2p-1gfc-class3.toml", "p2p-266-open-loop.toml", "p2p-32gfc-fec.toml",
        "p2p-bb-credit-recovery.toml", "p2p-class1-connections.toml",
        "p2p-class2-bidirectional.toml", "p2p-error-bursts.toml", "p2p-flapping-cable.toml",
        "p2p-long-link-credit.toml", "p2p-one-way-errors.toml", "p2p-pulled-cable.toml",
        "p2p-udp-pulled-cable.toml", "relay-gige-to-fc.toml", "san-array.toml",
        "san-fabric-disks.toml", "san-jbod-loop.toml", "san-ramdisk.toml",
        "san-striped-client.toml", "server-local-disks.toml", "ssd-garbage-collection.toml",
        "tcp-noisy-link.toml", "vlan-trunk.toml"]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_load_and_run(path: Path) -> None:
    scenario = load_scenario(path)
    assert scenario.source == str(path) and scenario.description
    # short runs: netperf tests of 10 ms, a sweep cut to its first two points
    has_netperf = any(isinstance(w, NetperfConfig) for w in scenario.workloads)
    loads = tuple(dataclasses.replace(w, start=0.0, send_sizes=w.send_sizes[:2],
                                      sockets=w.sockets[:1],
                                      options=dataclasses.replace(w.options, length=10e-3))
                  if isinstance(w, NetperfConfig) else
                  dataclasses.replace(w, start=0.0, options=dataclasses.replace(
                      w.options, duration=10e-3)) if isinstance(w, IperfConfig) else w
                  for w in scenario.workloads)
    has_netperf = has_netperf or any(isinstance(w, IperfConfig) for w in scenario.workloads)
    has_storage = any(isinstance(w, FioConfig | TransferConfig | SliceJobConfig)
                      for w in scenario.workloads)
    duration = (15e-3 if has_netperf else scenario.run.duration if has_storage
                else min(scenario.run.duration, 3e-3))  # disk commands, files take longer
    short = dataclasses.replace(scenario, workloads=loads, run=dataclasses.replace(
        scenario.run, duration=duration, warmup=0.0, repetitions=1))
    result = run_scenario(short)
    # a stream between N_Ports that share no zone, in a hard-zoned fabric, has
    # every frame dropped (docs/fabric-services.md): it delivers nothing
    stray = {w.name for w in scenario.workloads if scenario.zone_enforcement == "hard"
             and not any({w.source, w.destination} <= set(members)  # type: ignore[union-attr]
                         for _, members in scenario.zones)}
    for rep in [p["repetitions"][0] for p in result.get("points", [])] or result["repetitions"]:
        if stray:
            assert all(rep["workloads"][name]["payload_bytes"] == 0 for name in stray)
            assert sum(rep["zoning"]["dropped"].values()) > 0
        delivered = [w["payload_bytes"] for name, w in rep["workloads"].items()
                     if name not in stray]
        delivered += [n.get("bytes", n.get("transactions")) for n in rep.get("netperf", {})
                      .values()]
        delivered += [j["bytes"] for j in rep.get("storage", {}).get("jobs", {}).values()]
        delivered += [i["throughput_mbit_s"] for i in rep.get("iperf", {}).values()]
        delivered += [t["bytes"] for t in rep.get("transfers", {}).values()]
        assert delivered and all(d > 0 for d in delivered)


def test_defaults_fill_in_what_is_left_out(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, BASE + GENERATOR, "minimal.toml"))
    assert scenario.name == "minimal" and scenario.description == ""
    assert (scenario.run.duration, scenario.run.warmup, scenario.run.seed,
            scenario.run.repetitions) == (1e-3, 0.0, 1, 1)
    assert all(n.params == ServiceParameters() and n.port_id is None for n in scenario.nodes)
    link = scenario.links[0]
    assert (link.name, link.ends, link.speed.name, link.speed.coding) == (
        "link0", ("host", "disk"), "1GFC", CODING_8B10B)
    assert (link.cable.length, link.cable.propagation, link.bit_error_rate) == (
        0.0, DEFAULT_PROPAGATION, 0.0)
    stream, gen = scenario.workloads
    assert stream == StreamConfig("workload0", "host", "disk", 8192)
    assert gen == GeneratorConfig("gen", "disk", "host", Constant(1e-5), Constant(1024))


def test_every_key_is_read(tmp_path: Path) -> None:
    text = """
name = "full"
description = "every key"
topology = "point-to-point"
[run]
duration = "10 ms"
warmup = "1 ms"
seed = 9
repetitions = 3
[[nodes]]
name = "host"
port_id = "0x010200"
bb_credit = 4
rx_data_field = "1 KiB"
ee_credit = 2
classes = [3, 2]
concurrent_sequences = 8
busy_retry = "50 us"
e_d_tov = "1 s"
rx_frame_time = "2 us"
[[nodes]]
name = "disk"
port_id = 0x010300
[[links]]
name = "fibre"
ends = ["disk", "host"]
speed = "265.625 Mbaud"
coding = "64b/66b"
length = "2 km"
propagation = "4.9 us/km"
bit_error_rate = 1e-9
[[workloads]]
name = "bulk"
type = "stream"
from = "host"
to = "disk"
class = 2
size = 4096
max_payload = "512 B"
outstanding = 3
start = "1 us"
count = 7
[[workloads]]
name = "gen"
type = "generator"
from = "disk"
to = "host"
class = 1
size = { distribution = "uniform", low = "1 KiB", high = "2 KiB" }
interarrival = { distribution = "exponential", mean = "100 us" }
"""
    s = load_scenario(write(tmp_path, text))
    assert (s.name, s.description, s.run.warmup, s.run.seed, s.run.repetitions) == (
        "full", "every key", 1e-3, 9, 3)
    host, disk = s.nodes
    assert (host.port_id, disk.port_id) == (0x010200, 0x010300)
    assert host.params == ServiceParameters(4, 1024, 2, frozenset({2, 3}), 8, 50e-6, 1.0, 2e-6)
    link = s.links[0]
    assert (link.speed.baud, link.speed.coding, link.cable.length) == (
        265.625e6, CODING_64B66B, 2000.0)
    assert link.cable.propagation == pytest.approx(4.9e-9) and link.bit_error_rate == 1e-9
    assert s.workloads[0] == StreamConfig("bulk", "host", "disk", 4096, 2, 512, 3, 1e-6, 7)
    assert s.workloads[1] == GeneratorConfig("gen", "disk", "host", Exponential(1e-4),
                                             Uniform(1024, 2048), 1)


def test_catalog_speed_keeps_its_coding(tmp_path: Path) -> None:
    s = load_scenario(write(tmp_path, edited(('"1GFC"', '"16GFC"'))))
    assert s.links[0].speed.coding == CODING_64B66B


# -- one line per error, naming file, key path, given value and what is allowed ------

CASES = {
    # name: (text, key path, given, fragment of what is allowed)
    "unknown top key": (edited(extra='colour = "red"\n'), "workloads[0].colour",
                        "unknown key", "allowed keys with type = 'stream': name, type"),
    "unknown run key": (edited(('[run]\n', '[run]\ndurration = "1 ms"\n')), "run.durration",
                        "unknown key", "allowed keys in [run]: duration, warmup, seed"),
    "unknown node key": (edited(('name = "host"', 'name = "host"\ncredit = 2')),
                         "nodes[0].credit", "unknown key", "bb_credit"),
    "unknown key at top": (edited(('topology', 'seeed = 1\ntopology')), "seeed", "unknown key",
                           "allowed keys at the top level: name, description, topology"),
    "stream key in generator": (BASE + GENERATOR + "outstanding = 2\n",
                                "workloads[1].outstanding", "unknown key",
                                "allowed keys with type = 'generator'"),
    "missing duration": (edited(('duration = "1 ms"', '')), "run.duration", "missing",
                         "a time with a unit such as '10 ms', > 0 s"),
    "missing speed": (edited(('speed = "1GFC"', '')), "links[0].speed", "missing",
                      "a speed name such as '1GFC'"),
    "missing run": (edited(('[run]\nduration = "1 ms"', '')), "run", "missing",
                    "a table, written [run]"),
    "missing type": (edited(('type = "stream"', '')), "workloads[0].type", "missing",
                     "one of 'stream', 'generator', 'netperf', 'iperf'"),
    "wrong type str for int": (edited(('[run]', '[run]\nseed = "1"')), "run.seed",
                               "given '1'", "an integer >= 0"),
    "wrong type int for name": (edited(('name = "host"', 'name = 7')), "nodes[0].name",
                                "given 7", "a non-empty string"),
    "nodes as names": (edited(('[[nodes]]\nname = "host"\n\n[[nodes]]\nname = "disk"\n', ''),
                              ('topology', 'nodes = ["host", "disk"]\ntopology')),
                       "nodes", "given ['host', 'disk']", "an array of tables, written [[nodes]]"),
    "bool for int count": (edited(extra="count = true\n"), "workloads[0].count",
                           "given true", "an integer >= 1"),
    "bool for int credit": (edited(('name = "disk"', 'name = "disk"\nbb_credit = true')),
                            "nodes[1].bb_credit", "given true", "an integer >= 1"),
    "bool for size": (edited(('size = "8 KiB"', 'size = false')), "workloads[0].size",
                      "given false", "a size with a unit"),
    "bad unit": (edited(extra='start = "1 mss"\n'), "workloads[0].start", "given '1 mss'",
                 "'1 mss' is not a time; use a number and one of: ps, ns, us"),
    "bare time": (edited(('"1 ms"', '5')), "run.duration", "given 5", "a unit is required"),
    "KB refused": (edited(('"8 KiB"', '"8 KB"')), "workloads[0].size", "given '8 KB'",
                   "kB, MB"),
    "payload over 2112": (edited(extra='max_payload = "4096 B"\n'), "workloads[0].max_payload",
                          "given '4096 B'", "a data field size of 1..2112 bytes"),
    "payload zero": (edited(extra="max_payload = 0\n"), "workloads[0].max_payload", "given 0",
                     "1..2112 bytes"),
    "credit below 1": (edited(('name = "disk"', 'name = "disk"\nbb_credit = 0')),
                       "nodes[1].bb_credit", "given 0", "an integer >= 1"),
    "ee credit below 1": (edited(('name = "disk"', 'name = "disk"\nee_credit = -3')),
                          "nodes[1].ee_credit", "given -3", "an integer >= 1"),
    "negative length": (edited(('speed = "1GFC"', 'speed = "1GFC"\nlength = "-1 km"')),
                        "links[0].length", "given '-1 km'", ">= 0 m"),
    "rx_data_field small": (edited(('name = "host"', 'name = "host"\nrx_data_field = 128')),
                            "nodes[0].rx_data_field", "given 128", "256..2112 bytes"),
    "rx_data_field big": (edited(('name = "host"', 'name = "host"\nrx_data_field = "4 KiB"')),
                          "nodes[0].rx_data_field", "given '4 KiB'", "256..2112 bytes"),
    "warmup >= duration": (edited(('[run]', '[run]\nwarmup = "1 ms"')), "run.warmup",
                           "given '1 ms'", "a time less than run.duration ('1 ms')"),
    "duration zero": (edited(('"1 ms"', '"0 s"')), "run.duration", "given '0 s'", "> 0 s"),
    "repetitions zero": (edited(('[run]', '[run]\nrepetitions = 0')), "run.repetitions",
                         "given 0", "an integer >= 1"),
    "class 4": (edited(extra="class = 4\n"), "workloads[0].class", "given 4", "1, 2 or 3"),
    "classes list": (edited(('name = "host"', 'name = "host"\nclasses = [1, 4]')),
                     "nodes[0].classes", "given [1, 4]", "distinct classes out of 1, 2, 3"),
    "outstanding zero": (edited(extra="outstanding = 0\n"), "workloads[0].outstanding",
                         "given 0", "an integer >= 1"),
    "count zero": (edited(extra="count = 0\n"), "workloads[0].count", "given 0",
                   "an integer >= 1"),
    "bit error rate one": (edited(('speed = "1GFC"', 'speed = "1GFC"\nbit_error_rate = 1')),
                           "links[0].bit_error_rate", "given 1", "a number in [0, 1)"),
    "bit error rate negative": (edited(('speed = "1GFC"', 'speed = "1GFC"\nbit_error_rate = '
                                        '-1e-9')), "links[0].bit_error_rate", "given -1e-09",
                                "[0, 1)"),
    "duplicate node": (edited(('name = "disk"', 'name = "host"')), "nodes[1].name",
                       "given 'host'", "a name not used by nodes[0]"),
    "duplicate link": (edited(extra='[[links]]\nname = "link0"\nends = ["host", "disk"]\n'
                              'speed = "1GFC"\n'), "links", "given 2 links",
                       "needs exactly 2 nodes and 1 link"),
    "duplicate workload": (BASE + GENERATOR.replace('"gen"', '"workload0"'),
                           "workloads[1].name", "given 'workload0'",
                           "a name not used by workloads[0] ('workload0' by default)"),
    "link end unknown": (edited(('["host", "disk"]', '["host", "dsk"]')), "links[0].ends[1]",
                         "given 'dsk'", "the name of a node: 'host', 'disk'"),
    "link ends same": (edited(('["host", "disk"]', '["host", "host"]')), "links[0].ends",
                       "given ['host', 'host']", "two different nodes"),
    "workload from unknown": (edited(('from = "host"', 'from = "hst"')), "workloads[0].from",
                              "given 'hst'", "the name of a node: 'host', 'disk'"),
    "workload to itself": (edited(('to = "disk"', 'to = "host"')), "workloads[0].to",
                           "given 'host'", "a node other than from ('host')"),
    "port_id format": (edited(('name = "host"', 'name = "host"\nport_id = "0x1234"')),
                       "nodes[0].port_id", "given '0x1234'", "'0x010200' (6 hex digits)"),
    "port_id range": (edited(('name = "host"', 'name = "host"\nport_id = 0xFFFFFE')),
                      "nodes[0].port_id", "given 16777214", "an integer 1..0xFFFFEF"),
    "duplicate port_id": (edited(('name = "host"', 'name = "host"\nport_id = "0x000005"'),
                                 ('name = "disk"', 'name = "disk"\nport_id = 5')),
                          "nodes[1].port_id", "given 5", "a port_id not used by nodes[0]"),
    "port_id equal to default": (edited(('name = "disk"', 'name = "disk"\nport_id = 1')),
                                 "nodes[1].port_id", "given 1",
                                 "not used by nodes[0] ('0x000001' by default)"),
    "topology unknown": (edited(('"point-to-point"', '"arbitrated-loop"')), "topology",
                         "given 'arbitrated-loop'", "one of 'point-to-point'"),
    "point-to-point three nodes": (edited(extra='[[nodes]]\nname = "tape"\n'), "nodes",
                                   "given 3 nodes",
                                   "topology 'point-to-point' needs exactly 2 nodes and 1 link"),
    "unknown distribution": (BASE + GENERATOR.replace('"10 us"', '{ distribution = "normal" }'),
                             "workloads[1].interarrival.distribution", "given 'normal'",
                             "one of 'constant', 'exponential', 'uniform'"),
    "uniform low above high": (BASE + GENERATOR.replace(
        '"1 KiB"', '{ distribution = "uniform", low = "2 KiB", high = "1 KiB" }'),
        "workloads[1].size.high", "given '1 KiB'", "not below low ('2 KiB')"),
    "zero interarrival": (BASE + GENERATOR.replace('"10 us"', '"0 s"'),
                          "workloads[1].interarrival", "given '0 s'", "mean > 0 s"),
    "bad propagation": (edited(('speed = "1GFC"', 'speed = "1GFC"\npropagation = "5 ns"')),
                        "links[0].propagation", "given '5 ns'", "a time per length"),
    "bad coding": (edited(('speed = "1GFC"', 'speed = "1GFC"\ncoding = "8b10b"')),
                   "links[0].coding", "given '8b10b'", "'8b/10b' or '64b/66b'"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_value_is_one_precise_line(tmp_path: Path, case: str) -> None:
    text, key_path, given, allowed = CASES[case]
    path = write(tmp_path, text)
    message = error_of(path)
    assert message.startswith(f"{path}: {key_path}: {given}; "), message
    assert allowed in message, message


def test_error_keeps_its_parts(tmp_path: Path) -> None:
    path = write(tmp_path, edited(extra='max_payload = "4096 B"\n'), "bad.toml")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    error = info.value
    assert (error.file, error.path, error.problem) == (
        str(path), "workloads[0].max_payload", "given '4096 B'")
    assert str(error) == (f"{path}: workloads[0].max_payload: given '4096 B'; "
                          "a data field size of 1..2112 bytes such as '2112 B'")


def test_toml_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, 'topology = "point-to-point"\n[run\nduration = "1 ms"\n')
    message = error_of(path)
    assert re.fullmatch(rf"{re.escape(str(path))}: line 2, column \d+: not valid TOML \(.+\); "
                        r"see https://toml.io/en/v1.0.0", message), message


def test_missing_file_and_directory_are_scenario_errors(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    assert error_of(missing) == f"{missing}: cannot read (No such file or directory); " \
                                "a scenario file in TOML"
    assert error_of(tmp_path) == f"{tmp_path}: is a directory; a scenario file in TOML"


def test_not_utf8_is_a_scenario_error(tmp_path: Path) -> None:
    path = tmp_path / "binary.toml"
    path.write_bytes(b"name = \"\xff\"\n")
    assert "not UTF-8 text" in error_of(path)


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    plain = load_scenario(write(tmp_path, BASE, "case.toml"))
    (tmp_path / "windows").mkdir()
    path = tmp_path / "windows" / "case.toml"
    path.write_bytes(b"\xef\xbb\xbf" + BASE.replace("\n", "\r\n").encode())
    assert dataclasses.replace(load_scenario(path), source=plain.source) == plain


# -- the tables, the runner and the docs agree ----------------------------------------


def test_topologies_match_the_runner() -> None:
    assert set(TOPOLOGIES) == set(BUILDERS)


def test_node_defaults_are_the_login_defaults() -> None:
    node = NodeSection.model_validate({"name": "n"})
    defaults = ServiceParameters()
    for name in ("bb_credit", "rx_data_field", "ee_credit", "concurrent_sequences",
                 "busy_retry", "e_d_tov"):
        assert getattr(node, name) == getattr(defaults, name), name
    # a time or a distribution of times: the default is the constant one
    assert node.rx_frame_time.distribution == "constant"
    assert node.rx_frame_time.value == defaults.rx_frame_time
    assert frozenset(node.classes) == defaults.classes


def test_docs_complete_example_loads_and_runs(tmp_path: Path) -> None:
    docs = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    example = docs.split("## A complete example", 1)[1].split("```toml\n", 1)[1].split("```")[0]
    scenario = load_scenario(write(tmp_path, example))
    assert [w.name for w in scenario.workloads] == ["bulk", "reads"]
    short = dataclasses.replace(scenario, run=dataclasses.replace(scenario.run, duration=2e-3))
    assert run_scenario(short)["repetitions"][0]["workloads"]["bulk"]["sequences"] > 0


HOSTS = """\
topology = "point-to-point"

[run]
duration = "60 ms"

[[nodes]]
name = "h1"
host = "ideal"

[[nodes]]
name = "h2"
host = "ideal"

[[links]]
ends = ["h1", "h2"]
speed = "1GFC"
"""


def test_iperf_and_netperf_run_side_by_side(tmp_path: Path) -> None:
    text = HOSTS + """
[[workloads]]
name = "load"
type = "iperf"
from = "h2"
to = "h1"
protocol = "udp"
bandwidth = "100 Mbit/s"
duration = "40 ms"

[[workloads]]
name = "measured"
type = "netperf"
from = "h1"
to = "h2"
test = "TCP_RR"
socket = "32 KiB"
nodelay = true
length = "40 ms"
"""
    result = run_scenario(load_scenario(write(tmp_path, text)))
    rep = result["repetitions"][0]
    assert rep["iperf"]["load"]["throughput_mbit_s"] == pytest.approx(100.0, rel=0.05)
    assert rep["netperf"]["measured"]["transactions"] > 0
    assert set(rep["hosts"]) == {"h1", "h2"}


def test_netperf_needs_hosts_and_room_in_the_run(tmp_path: Path) -> None:
    bare = HOSTS.replace('host = "ideal"\n', "", 1)
    message = error_of(write(tmp_path, bare + """
[[workloads]]
type = "netperf"
from = "h1"
to = "h2"
length = "10 ms"
""", "bare.toml"))
    assert "workloads[0].from" in message and "host model" in message
    message = error_of(write(tmp_path, HOSTS + """
[[workloads]]
type = "iperf"
from = "h1"
to = "h2"
duration = "1 s"
""", "long.toml"))
    assert "workloads[0].duration" in message and "run.duration" in message


def test_background_load_loads_only_hosts_and_reaches_the_processor(tmp_path: Path) -> None:
    loaded = HOSTS.replace('host = "ideal"\n', 'host = "hp-c110"\nbackground_load = 0.3\n', 1)
    scenario = load_scenario(write(tmp_path, loaded + "\n"))
    assert [n.background_load for n in scenario.nodes] == [0.3, None]
    bare = HOSTS.replace('host = "ideal"\n', "background_load = 0.3\n", 1)
    message = error_of(write(tmp_path, bare, "bare.toml"))
    assert "nodes[0].background_load: given 0.3; a host model for the node" in message
    message = error_of(write(tmp_path, HOSTS.replace('host = "ideal"\n',
                                                     'host = "ideal"\nbackground_load = 1\n', 1),
                             "full.toml"))
    assert "nodes[0].background_load: given 1; a fraction of the processor in [0, 1)" in message


def test_tcp_rr_ignores_send_size_as_netperf_does(tmp_path: Path) -> None:
    """netperf 2.x's TCP_RR takes its sizes from -r (1 byte each by default) and
    ignores -m; rr_sizes = 'send-size' runs -r m,m."""
    rr = HOSTS + """
[[workloads]]
name = "rr"
type = "netperf"
from = "h1"
to = "h2"
test = "TCP_RR"
send_size = ["1 B", "4 KiB"]
length = "10 ms"
"""
    (workload,) = load_scenario(write(tmp_path, rr)).workloads
    options = workload.point(workload.sockets[0], 4096)
    assert (options.request, options.response) == (1, 1)
    sized = rr + 'rr_sizes = "send-size"\n'
    (workload,) = load_scenario(write(tmp_path, sized, "sized.toml")).workloads
    options = workload.point(workload.sockets[0], 4096)
    assert (options.request, options.response) == (4096, 4096)
    message = error_of(write(tmp_path, sized + 'request = "8 B"\n', "both.toml"))
    assert "workloads[0].rr_sizes" in message and "either rr_sizes" in message
    stream = rr.replace('"TCP_RR"', '"TCP_STREAM"') + 'rr_sizes = "send-size"\n'
    assert "no rr_sizes outside" in error_of(write(tmp_path, stream, "stream.toml"))
