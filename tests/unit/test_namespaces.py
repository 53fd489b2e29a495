"""Several logical units on one target: SCSI LUNs over FCP and NVMe
namespaces over FC-NVMe, each an equal share of the device in turn; a job
addresses one, its commands carry it (FCP_LUN, the NSID) and the target
serves it at that share's offset; a unit the target lacks is refused; bad
keys get one line."""

from __future__ import annotations

import dataclasses
import io
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from fcsim.fc4.fcp import Command
from fcsim.fc4.fcp_bytes import fcp_cmnd
from fcsim.runner import run_once, run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.schema.errors import ScenarioError
from fcsim.storage.config import FioConfig, NvmeOptions, unit_capacity
from fcsim.storage.device_model import RamDiskModel
from fcsim.storage.ramdisk import RamDisk
from fcsim.trace.timeline import Timeline
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

RAM = RamDiskModel("ram", 2**30, 10e-6, 1e9)


class Recording(RamDisk):
    """A RAM disk that keeps the offsets it is asked for."""

    offsets: list[int] = []

    def submit(self, write: bool, offset: int, length: int, done: Callable[[], None]) -> None:
        Recording.offsets.append(offset)
        super().submit(write, offset, length, done)


def _scenario(unit: int, nvme: bool, units: int = 4, count: int = 3):
    job = FioConfig("job", "a", "b", FioOptions("read", 4096, count=count),
                    nvme=NvmeOptions(1) if nvme else None, unit=unit)
    base = p2p((job,), 5e-3)
    a, b = base.nodes
    return dataclasses.replace(base, nodes=(a, dataclasses.replace(b, target=RAM,
                                                                    namespaces=units)))


def test_a_unit_is_an_equal_share_of_the_device_in_whole_blocks() -> None:
    assert unit_capacity(2**30, 1) == 2**30
    assert unit_capacity(2**30, 3) == 2**30 // 3 // 512 * 512
    assert unit_capacity(1000, 3) == 0


@pytest.mark.parametrize(("unit", "nvme", "index"), [(2, False, 2), (0, False, 0),
                                                      (3, True, 2), (1, True, 0)])
def test_the_target_serves_a_unit_at_its_share_of_the_device(
        unit: int, nvme: bool, index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import fcsim.storage.build as build
    monkeypatch.setitem(build._DEVICES, RamDiskModel, Recording)
    Recording.offsets = []
    storage = run_scenario(_scenario(unit, nvme))["repetitions"][0]["storage"]
    size = unit_capacity(RAM.capacity, 4)
    assert Recording.offsets == [index * size + k * 4096 for k in range(3)]
    assert storage["jobs"]["job"]["ios"] == 3 and storage["jobs"]["job"]["errors"] == 0
    if nvme:
        counts = storage["nvme_targets"]["b"]["namespace_commands"]
        assert counts == {str(n): 3 if n == unit else 0 for n in range(1, 5)}
    else:
        counts = storage["targets"]["b"]["lun_commands"]
        assert counts == {str(k): 3 if k == unit else 0 for k in range(4)}


def test_commands_carry_their_unit_on_the_wire() -> None:
    """FCP_LUN in SAM's single-level format: peripheral addressing below 256,
    flat space from 256; the timeline names the LUN or NSID."""
    def lun(n: int) -> bytes:
        return fcp_cmnd(Command(0, False, 0, 512, 0.0, lambda c: None, lun=n))[:8]
    assert lun(0) == bytes(8)
    assert lun(5) == bytes([0, 5, 0, 0, 0, 0, 0, 0])
    assert lun(300) == bytes([0x41, 0x2C, 0, 0, 0, 0, 0, 0])
    for nvme, label in ((False, "LUN 2"), (True, "nsid 2")):
        out = io.StringIO()
        run_once(_scenario(2, nvme, count=1), 1, [Timeline(out)])
        commands = [line for line in out.getvalue().splitlines() if "_CMND" in line]
        assert len(commands) == 1 and commands[0].endswith(label)


@pytest.mark.parametrize("nvme", [False, True])
def test_a_unit_the_target_lacks_is_refused(nvme: bool) -> None:
    """Built past the checks: the FCP target answers CHECK CONDITION, the NVMe
    controller Invalid Namespace; the job counts the error and ends there (fio's
    default continue_on_error = none; its depth is 1, so nothing else was
    outstanding), the device sees nothing."""
    storage = run_scenario(_scenario(5 if nvme else 4, nvme))["repetitions"][0]["storage"]
    assert storage["jobs"]["job"]["errors"] == 1 and storage["jobs"]["job"]["ios"] == 0
    assert storage["targets"]["b"]["commands"] == 0


BASE = """
topology = "point-to-point"
[run]
duration = "1 ms"
[[nodes]]
name = "host"
[[nodes]]
name = "ssd"
target = "mqsim-mlc-8ch"
{node}
[[links]]
ends = ["host", "ssd"]
speed = "16GFC"
[[workloads]]
type = "fio"
from = "host"
to = "ssd"
rw = "randread"
{job}
"""


@pytest.mark.parametrize(("node", "job", "message"), [
    ("namespaces = 4", "protocol = 'nvme'\nlun = 1", "workloads[0].lun: given 1; no "
     "lun with protocol = 'nvme' (use namespace)"),
    ("namespaces = 4", "namespace = 2", "workloads[0].namespace: given 2; no "
     "namespace with protocol = 'fcp' (use lun)"),
    ("namespaces = 4", "protocol = 'nvme'\nnamespace = 5", "workloads[0].namespace: given 5; "
     "an NSID 1..4 (ssd has 4 namespaces: key namespaces in [[nodes]])"),
    ("", "lun = 1", "workloads[0].lun: given 1; a LUN 0..0 (ssd has 1 namespace: "
     "key namespaces in [[nodes]])"),
])
def test_bad_units_get_one_line(node: str, job: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(BASE.format(node=node, job=job))
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    assert message in str(error.value)
    assert "\n" not in str(error.value).strip()


def test_namespaces_go_with_a_target(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(BASE.format(node="", job="").replace('name = "host"',
                                                          'name = "host"\nnamespaces = 2'))
    with pytest.raises(ScenarioError, match=re.escape("nodes[0].namespaces: given 2")):
        load_scenario(path)


def test_past_two_tebibytes_a_command_is_read_16() -> None:
    """READ(10) addresses 2^32 blocks of 512 bytes (2 TiB); past them (an
    all-flash array of 12 TB) FCP_CMND carries READ(16)/WRITE(16), a 64-bit
    LBA and a 32-bit count, as Linux sd does."""
    far = 2**32 * 512 + 4096
    for write, opcode in ((False, 0x88), (True, 0x8A)):
        cdb = fcp_cmnd(Command(0, write, far, 8192, 0.0, lambda c: None))[12:28]
        assert cdb[0] == opcode
        assert int.from_bytes(cdb[2:10], "big") == far // 512
        assert int.from_bytes(cdb[10:14], "big") == 16
    near = fcp_cmnd(Command(0, False, 4096, 8192, 0.0, lambda c: None))[12:28]
    assert near[0] == 0x28 and int.from_bytes(near[2:6], "big") == 8
