"""A summary of a large fabric lists the busiest links, switches and ports, not all."""

from __future__ import annotations

from fcsim.report import summary_text
from fcsim.report_totals import FEW
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric


def test_a_large_fabric_summary_lists_the_busiest() -> None:
    nodes = {f"n{i}": f"s{i // 10}:{i % 10}" for i in range(60)}
    isls = tuple((f"s{j}:20", f"s{j + 1}:21") for j in range(5))
    scenario = fabric(nodes, (StreamConfig("w", "n0", "n59", 8192, count=20),),
                      duration=2e-3, switches={f"s{j}": "generic-nonblocking" for j in range(6)},
                      isls=isls)
    results = run_scenario(scenario)
    text = summary_text(results)
    assert len(text.splitlines()) < 150
    assert f"ports (first repetition): the {FEW} busiest of 60 (all in --json)" in text
    assert "  n0 (" in text and "  n59 (" in text  # the busy ones are listed
    assert len(results["repetitions"][0]["nodes"]) == 60
    first = results["repetitions"][0]
    isl_frames = sum(d["frames"] for name, link in first["links"].items() if name.startswith("isl")
                     for d in link["directions"].values())
    assert isl_frames > 0
    assert f"  inter-switch links: 5, {isl_frames} frames;" in text
    assert "  links to N_Ports and hosts: 60, " in text
    assert f"inter-switch links (first repetition): the {FEW} busiest" not in text  # 5 <= FEW
    tx = sum(n["data_frames_tx"] for n in first["nodes"].values())
    assert f"  all 60: data {tx} tx / " in text


def test_many_workloads_are_summed_and_the_slowest_listed() -> None:
    nodes = {f"n{i}": f"s0:{i}" for i in range(48)}
    loads = tuple(StreamConfig(f"w{i}", f"n{2 * i}", f"n{2 * i + 1}", 2048 * (i + 1), count=4)
                  for i in range(24))
    results = run_scenario(fabric(nodes, loads, duration=2e-3,
                                  switches={"s0": "generic-nonblocking"}))
    text = summary_text(results)
    rates = {name: s["throughput_bytes_per_s"]["mean"] for name, s in results["summary"].items()}
    slowest = sorted(rates, key=rates.get)[:FEW]
    assert f"workloads (mean over repetitions): the {FEW} slowest of 24 (all in --json)" in text
    listed = [line.split(":")[0].strip() for line in text.splitlines()
              if line.startswith("  w") and ": class" in line]
    assert listed == slowest
