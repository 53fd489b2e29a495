"""Disk channels, local disks, served disks and the block table in scenario
files: they load, and bad ones are refused in one line naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.scenario.loader import ScenarioError, load_scenario
from fcsim.storage.local import LocalTarget
from tests.builders import assert_refused

BASE = """\
topology = "point-to-point"
[run]
duration = "10 ms"
[[nodes]]
name = "server"
target_disks = ["scsi0.0", "scsi0.1"]
target_stripe = "32 KiB"
[[nodes.channels]]
name = "scsi0"
model = "ultra-wide-scsi"
disks = ["seagate-medalist-pro-st39140w", "seagate-medalist-pro-st39140w"]
[[nodes.channels]]
name = "ide0"
model = "ultra-ata-33"
disks = ["ibm-deskstar-22gxp"]
[nodes.block]
queue_depth = 8
max_request = "64 KiB"
[[nodes]]
name = "client"
[[links]]
ends = ["server", "client"]
speed = "1GFC"
[[workloads]]
name = "local"
type = "dd"
from = "server"
to = "ide0.0"
direction = "read"
bs = "64 KiB"
count = 4
[[workloads]]
name = "remote"
type = "fio"
from = "client"
to = "server"
rw = "randread"
"""


def test_channels_local_disks_and_served_disks_load(tmp_path: Path) -> None:
    path = tmp_path / "case.toml"
    path.write_text(BASE, encoding="utf-8")
    server, _ = load_scenario(path).nodes
    scsi, ide = server.channels
    assert scsi.disk_names == ("scsi0.0", "scsi0.1") and ide.disk_names == ("ide0.0",)
    assert (scsi.model.kind, scsi.model.data_rate, ide.model.kind) == ("scsi", 40e6, "ata")
    assert isinstance(server.target, LocalTarget)
    assert server.target.capacity == 2 * (9_100_000_000 // 32768 * 32768)
    assert (server.block.queue_depth, server.block.max_request) == (8, 65536)


def test_scsi_ids_skip_the_adapter(tmp_path: Path) -> None:
    disks = ", ".join(['"seagate-medalist-pro-st39140w"'] * 9)
    text = BASE.replace('disks = ["seagate-medalist-pro-st39140w", '
                        '"seagate-medalist-pro-st39140w"]', f"disks = [{disks}]")
    path = tmp_path / "case.toml"
    path.write_text(text, encoding="utf-8")
    scsi = load_scenario(path).nodes[0].channels[0]
    assert scsi.ids == (0, 1, 2, 3, 4, 5, 6, 8, 9)


DISK = '"seagate-medalist-pro-st39140w"'
CASES = {
    "too many disks on narrow SCSI": (
        ('model = "ultra-wide-scsi"\ndisks = [' + DISK + ", " + DISK + "]",
         'model = "ultra-scsi"\ndisks = [' + ", ".join([DISK] * 8) + "]"),
        "nodes[0].channels[0].disks", "given 8 disks",
        "at most 7 disks on ultra-scsi (8 SCSI IDs, one the host adapter's)"),
    "unknown channel model": (('model = "ultra-wide-scsi"', 'model = "ultra-160"'),
                              "nodes[0].channels[0].model", "given 'ultra-160'",
                              "no disk channel model 'ultra-160'; known: ultra-ata-33"),
    "an address past the bus": (('disks = ["ibm-deskstar-22gxp"]',
                                 'disks = ["ibm-deskstar-22gxp"]\nids = [2]'),
                                "nodes[0].channels[1].ids[0]", "given 2",
                                "an address 0..1 on ultra-ata-33"),
    "the adapter's ID": (('disks = [' + DISK + ", " + DISK + "]",
                          'disks = [' + DISK + ", " + DISK + "]\nids = [0, 7]"),
                         "nodes[0].channels[0].ids[1]", "given 7",
                         "an ID other than the host adapter's (7)"),
    "serving a disk it has not": (('target_disks = ["scsi0.0", "scsi0.1"]',
                                   'target_disks = ["scsi0.0", "scsi0.2"]'),
                                  "nodes[0].target_disks[1]", "given 'scsi0.2'",
                                  "a disk of this node's channels: 'scsi0.0', 'scsi0.1'"),
    "served disks without a stripe": (('target_stripe = "32 KiB"\n', ""),
                                      "nodes[0].target_stripe", "missing",
                                      "a stripe grain such as '32 KiB'"),
    "a job to another node's disk": (('to = "server"', 'to = "scsi0.0"'),
                                     "workloads[1].to", "given 'scsi0.0'",
                                     "the name of a node"),
    "a bad block depth": (("queue_depth = 8", "queue_depth = 0"),
                          "nodes[0].block.queue_depth", "given 0", "an integer >= 1"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_channel_input_is_one_precise_line(tmp_path: Path, case: str) -> None:
    assert_refused(tmp_path, BASE, *CASES[case])


def test_three_disks_on_an_ata_channel_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "case.toml"
    path.write_text(BASE.replace('disks = ["ibm-deskstar-22gxp"]',
                                 'disks = ["ibm-deskstar-22gxp", "ibm-deskstar-22gxp", '
                                 '"ibm-deskstar-22gxp"]'), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(info.value).startswith(f"{path}: nodes[0].channels[1].disks: given 3 disks; "
                                      "at most 2 disks on an ATA channel")
