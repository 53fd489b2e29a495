"""Invariants of SCSI over FC under random jobs, bit errors and several
initiators: every command completes once, GOOD or with an error the
initiator counts (a read short of its data every try fails after sd's
retries), the task set stays within its depth, and what the device wrote
covers what was acknowledged."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.build import BUILDERS
from fcsim.engine.simulation import Simulation
from fcsim.fc4.fcp import GOOD, Command
from fcsim.storage.build import Storage
from fcsim.storage.config import FioConfig
from fcsim.storage.device_model import ArrayModel, RamDiskModel, load_disk_model
from fcsim.workload.fio import RW_MODES, FioOptions
from tests.builders import fabric

DISK = load_disk_model("fc-disk-10k")
DEVICES = {"disk": DISK,
           "ram": RamDiskModel("ram", 2**30, 30e-6, 400e6, queue_depth=4),
           "raid5": ArrayModel("raid5", DISK, 4, 5, 16384, 1e-4, 2**20, 100e6, queue_depth=5),
           "raid0": ArrayModel("raid0", DISK, 3, 0, 4096, 0.0, 0, 200e6, queue_depth=8)}


@st.composite
def sans(draw: st.DrawFn):
    hosts = draw(st.integers(1, 3))
    ber = draw(st.sampled_from([0.0, 0.0, 2e-6]))
    timeout = 5e-3 if ber else 1.0  # losses recovered within the run; else never late
    device = DEVICES[draw(st.sampled_from(sorted(DEVICES)))]
    jobs = tuple(
        FioConfig(f"job{i}", f"h{i}", "t", FioOptions(
            draw(st.sampled_from(RW_MODES)), 512 * draw(st.sampled_from([1, 8, 64, 130])),
            iodepth=draw(st.integers(1, 6)), numjobs=draw(st.integers(1, 2)),
            size=2**24), cls=draw(st.sampled_from([2, 3])), timeout=timeout)
        for i in range(hosts))
    scenario = fabric({**{f"h{i}": f"sw:{i}" for i in range(hosts)}, "t": "sw:9"}, jobs,
                      duration=draw(st.sampled_from([0.01, 0.03])), login=False)
    links = tuple(dataclasses.replace(link, bit_error_rate=ber) for link in scenario.links)
    nodes = tuple(dataclasses.replace(n, target=device) if n.name == "t" else n
                  for n in scenario.nodes)
    return dataclasses.replace(scenario, nodes=nodes, links=links), draw(st.integers(1, 99))


@settings(max_examples=20, deadline=None)
@given(sans())
def test_commands_complete_once_within_the_task_set(case) -> None:
    scenario, seed = case
    sim = Simulation(seed)
    net = BUILDERS[scenario.topology](sim, scenario)
    storage = Storage(sim, scenario, net)
    submitted: list[Command] = []
    completions: dict[int, int] = {}
    for initiator in storage.initiators.values():
        def submit(d_id, write, offset, length, done, meter=None, lun=0,
                   original=initiator.submit):
            def counted(command: Command) -> None:
                completions[id(command)] = completions.get(id(command), 0) + 1
                done(command)
            command = original(d_id, write, offset, length, counted, meter, lun=lun)
            submitted.append(command)
            return command
        initiator.submit = submit
    sim.run(scenario.run.duration)
    window = sum(c.options.iodepth * c.options.numjobs for c, _ in storage.jobs)
    assert all(n == 1 for n in completions.values())
    finished = [c for c in submitted if id(c) in completions]
    assert all(c.completed is not None for c in finished)
    good = [c for c in finished if c.status == GOOD]
    assert len(finished) - len(good) == sum(i.stats.failed
                                            for i in storage.initiators.values())
    if all(link.bit_error_rate == 0 for link in scenario.links):
        assert len(good) == len(finished)
    assert len(submitted) - len(finished) <= window
    (target,) = storage.targets.values()
    assert target.max_depth <= target.queue_depth
    written = sum(c.length for c in good if c.write)
    device = storage.devices["t"].stats
    assert device.written >= written
    if all(link.bit_error_rate == 0 for link in scenario.links):
        in_flight = sum(c.length for c in submitted if c.write and id(c) not in completions)
        assert device.written <= written + in_flight
        assert all(c.attempts == 1 or target.queue_full for c in submitted)
