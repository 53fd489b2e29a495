"""Storage in scenario files: targets and block workloads load, bad ones are
refused in one line naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.catalog import MODEL_FOLDER
from fcsim.cli import main
from fcsim.host.host_model import load_host_model
from fcsim.scenario.loader import ScenarioError, load_scenario
from fcsim.storage.config import FioConfig
from fcsim.storage.device_model import ArrayModel, DiskModel, RamDiskModel
from tests.builders import assert_refused

BASE = """\
topology = "point-to-point"
[run]
duration = "10 ms"
[[nodes]]
name = "host"
[[nodes]]
name = "disk"
target = "fc-disk-10k"
[[links]]
ends = ["host", "disk"]
speed = "1GFC"
[[workloads]]
name = "job"
type = "fio"
from = "host"
to = "disk"
rw = "randread"
"""


def load(tmp_path: Path, text: str):
    path = tmp_path / "case.toml"
    path.write_text(text, encoding="utf-8")
    return path, load_scenario(path)


def test_targets_and_jobs_load(tmp_path: Path) -> None:
    _, scenario = load(tmp_path, BASE.replace('"fc-disk-10k"', '"tms-ramsan"') + """
[[workloads]]
type = "dd"
from = "host"
to = "disk"
direction = "write"
bs = "64 KiB"
count = 10
""")
    host, disk = scenario.nodes
    assert host.target is None and isinstance(disk.target, RamDiskModel)
    fio, dd = scenario.workloads
    assert isinstance(fio, FioConfig) and (fio.options.rw, fio.options.bs,
                                           fio.options.iodepth) == ("randread", 4096, 1)
    assert dd.dd and (dd.options.rw, dd.options.bs, dd.options.count) == ("write", 65536, 10)
    assert dd.options.offset == 0
    _, scenario = load(tmp_path, BASE + """
[[workloads]]
type = "dd"
from = "host"
to = "disk"
direction = "write"
bs = "64 KiB"
count = 10
seek = 3
""")
    assert scenario.workloads[1].options.offset == 3 * 65536  # dd seek=3 bs=64k
    _, scenario = load(tmp_path, BASE)
    assert isinstance(scenario.nodes[1].target, DiskModel)


CASES = {
    "unknown disk model": (('"fc-disk-10k"', '"fc-disk-15k"'), "nodes[1].target",
                           "given 'fc-disk-15k'",
                           "no disk, RAM disk, array, SSD or flash array model 'fc-disk-15k'"),
    "block size zero": (('rw = "randread"', 'rw = "randread"\nbs = 0'), "workloads[0].bs",
                        "given 0", ">= 512 B"),
    "block size not whole blocks": (('rw = "randread"', 'rw = "randread"\nbs = 1000'),
                                    "workloads[0].bs", "given 1000", "512-byte blocks"),
    "iodepth above the queue": (('rw = "randread"', 'rw = "randread"\niodepth = 65'),
                                "workloads[0].iodepth", "given 65",
                                "at most the target's queue depth (64, fc-disk-10k)"),
    "rw unknown": (('rw = "randread"', 'rw = "random"'), "workloads[0].rw", "given 'random'",
                   "one of 'read', 'write', 'randread', 'randwrite', 'randrw'"),
    "not a target": (('to = "disk"', 'to = "host"'), "workloads[0].to", "given 'host'",
                     "a node other than from"),
    "region past the end": (('rw = "randread"', 'rw = "randread"\noffset = "19 GB"'),
                            "workloads[0].offset", "given '19 GB'",
                            "a region of at least bs that fits the device"),
    "class 1": (('rw = "randread"', 'rw = "randread"\nclass = 1'), "workloads[0].class",
                "given 1", "a class of service for FCP: 2 or 3"),
    "striped over the initiator": (('to = "disk"', 'to = ["disk", "host"]'),
                                 "workloads[0].to[1]", "given 'host'", "a node other than"),
    "same target twice": (('to = "disk"', 'to = ["disk", "disk"]'), "workloads[0].to",
                          "given ['disk', 'disk']", "a list of distinct node names"),
    "protocol unknown": (('rw = "randread"', 'rw = "randread"\nprotocol = "iscsi"'),
                         "workloads[0].protocol", "given 'iscsi'", "one of 'fcp', 'nvme'"),
    "an NVMe key over FCP": (('rw = "randread"', 'rw = "randread"\nqueue_size = 64'),
                             "workloads[0].queue_size", "given 64",
                             "no such key with protocol = 'fcp'"),
    "NVMe in class 2": (('rw = "randread"', 'rw = "randread"\nprotocol = "nvme"\nclass = 2'),
                        "workloads[0].class", "given 2", "3 (this model runs FC-NVMe"),
    "queue of one entry": (('rw = "randread"', 'rw = "randread"\nprotocol = "nvme"\n'
                                                'queue_size = 1'),
                           "workloads[0].queue_size", "given 1", "an integer 2..65536"),
    "SLER not a flag": (('target = "fc-disk-10k"', 'target = "fc-disk-10k"\nnvme_sler = 1'),
                        "nodes[1].nvme_sler", "given 1", "true or false"),
}


def test_nvme_jobs_load_in_a_scenario_with_faults(tmp_path: Path) -> None:
    """FC-NVMe recovers lost frames (docs/storage.md), so NVMe jobs run with faults."""
    _, scenario = load(tmp_path, BASE.replace('rw = "randread"', 'rw = "randread"\n'
                                              'protocol = "nvme"') + """
[[faults]]
kind = "link-down"
link = "link0"
at = "1 ms"
""")
    assert scenario.workloads[0].nvme is not None and len(scenario.faults) == 1


@pytest.mark.parametrize("case", CASES)
def test_bad_storage_input_is_one_precise_line(tmp_path: Path, case: str) -> None:
    assert_refused(tmp_path, BASE, *CASES[case])


DD_BASE = BASE.replace('type = "fio"', 'type = "dd"').replace(
    'rw = "randread"', 'direction = "read"\nbs = "1 MiB"\ncount = 10')

DD_CASES = {
    "skip when writing": (('direction = "read"', 'direction = "write"\nskip = 5'),
                          "workloads[0].skip", "given 5",
                          "no skip with direction = 'write': the device is dd's output, "
                          "offset by seek"),
    "seek when reading": (('direction = "read"', 'direction = "read"\nseek = 5'),
                          "workloads[0].seek", "given 5",
                          "no seek with direction = 'read': the device is dd's input, "
                          "offset by skip"),
    "past the end": (('count = 10', 'count = 10\nskip = 17348'), "workloads[0].skip",
                     "given 17348", "a dd that ends on the device: (skip + count) x bs <= "
                     "its 18200000000 bytes (fc-disk-10k)"),
    "count past the end": (('count = 10', 'count = 17400'), "workloads[0].count",
                           "given 17400", "(skip + count) x bs <= its 18200000000 bytes"),
    "skip negative": (('count = 10', 'count = 10\nskip = -1'), "workloads[0].skip",
                      "given -1", "an integer >= 0 (blocks of bs)"),
}


@pytest.mark.parametrize("case", DD_CASES)
def test_bad_dd_input_is_one_precise_line(tmp_path: Path, case: str) -> None:
    assert_refused(tmp_path, DD_BASE, *DD_CASES[case])


def test_dd_just_fits_the_device(tmp_path: Path) -> None:
    last = 18200000000 // 2**20 - 10  # the last whole MiB blocks before the end
    _, scenario = load(tmp_path, DD_BASE.replace("count = 10", f"count = 10\nskip = {last}"))
    assert scenario.workloads[0].options.offset == last * 2**20


def test_a_job_needs_a_target(tmp_path: Path) -> None:
    text = BASE.replace('target = "fc-disk-10k"\n', "")
    path = tmp_path / "case.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"workloads\[0\].to: given 'disk'; an FCP target"):
        load_scenario(path)


def test_a_raid5_of_one_disk_is_refused(tmp_path: Path) -> None:
    (tmp_path / "arrays").mkdir()
    (tmp_path / "arrays" / "tiny.toml").write_text(
        'disk = { value = "fc-disk-10k", source = "t" }\n'
        'disks = { value = 1, source = "t" }\nraid = { value = 5, source = "t" }\n'
        'stripe_unit = { value = 65536, source = "t" }\n', encoding="utf-8")
    path = tmp_path / "case.toml"
    path.write_text(BASE.replace('"fc-disk-10k"', '"arrays/tiny.toml"'), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}: nodes[1].target: given ")
    assert "RAID 5 needs at least 3 disks, got 1" in message


@pytest.mark.parametrize(("cache", "accepted"), [(0, True), (-1, False)])
def test_a_write_through_array_loads(tmp_path: Path, cache: int, accepted: bool) -> None:
    """`cache = 0`: writes go through to the drives; a negative cache is refused."""
    (tmp_path / "arrays").mkdir()
    (tmp_path / "arrays" / "through.toml").write_text(
        'disk = { value = "fc-disk-10k", source = "t" }\n'
        'disks = { value = 4, source = "t" }\nraid = { value = 5, source = "t" }\n'
        'stripe_unit = { value = 65536, source = "t" }\n'
        f'cache = {{ value = {cache}, source = "t" }}\n', encoding="utf-8")
    path = tmp_path / "case.toml"
    path.write_text(BASE.replace('"fc-disk-10k"', '"arrays/through.toml"'), encoding="utf-8")
    if accepted:
        (target,) = [n.target for n in load_scenario(path).nodes if n.target]
        assert target.cache == 0
        return
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert "\n" not in message and "cache" in message
    assert "an integer >= 0 (bytes; 0: write-through)" in message


def test_a_volume_over_several_targets_needs_a_stripe(tmp_path: Path) -> None:
    text = BASE.replace("[[links]]", '[[nodes]]\nname = "disk2"\ntarget = "tms-ramsan"\n'
                        "[[links]]").replace('to = "disk"', 'to = ["disk", "disk2"]')
    text = text.replace('topology = "point-to-point"', 'topology = "fabric"')
    text = text.replace('[[links]]\nends = ["host", "disk"]\nspeed = "1GFC"\n',
                        '[[switches]]\nname = "sw"\nmodel = "generic-nonblocking"\n'
                        + "".join(f'[[links]]\nends = ["{n}", "sw:{i}"]\nspeed = "1GFC"\n'
                                  for i, n in enumerate(["host", "disk", "disk2"])))
    path = tmp_path / "case.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"workloads\[0\].stripe: missing; a stripe grain"):
        load_scenario(path)
    path.write_text(text + 'stripe = "32 KiB"\n', encoding="utf-8")
    job = load_scenario(path).workloads[0]
    assert job.targets == ("disk", "disk2") and job.stripe == 32768


ARRAY = ('disk = { value = "fc-disk-10k", source = "t" }\n'
         'disks = { value = 4, source = "t" }\nraid = { value = 0, source = "t" }\n'
         'stripe_unit = { value = 65536, source = "t" }\n')


def _target(tmp_path: Path, relative: str, text: str) -> Path:
    """A scenario whose target is the model file *relative* holding *text*."""
    model = tmp_path / relative
    model.parent.mkdir(parents=True, exist_ok=True)
    model.write_text(text, encoding="utf-8")
    path = tmp_path / "case.toml"
    path.write_text(BASE.replace('"fc-disk-10k"', f'"{relative}"'), encoding="utf-8")
    return path


@pytest.mark.parametrize("text", [ARRAY, 'type = "array"\n' + ARRAY])
def test_an_array_file_outside_arrays_is_read_as_an_array(tmp_path: Path, text: str) -> None:
    """Its keys are an array's alone (or it says type = "array"): not a disk."""
    target = load_scenario(_target(tmp_path, "mine/raid0.toml", text)).nodes[1].target
    assert isinstance(target, ArrayModel) and (target.disks, target.raid) == (4, 0)


@pytest.mark.parametrize("declared", ['type = "ramdisk"\n', ""])
def test_the_type_a_file_says_or_its_keys_win_over_its_folder(tmp_path: Path,
                                                               declared: str) -> None:
    ram = (declared + 'capacity = { value = 1000000000, source = "t" }\n'
           'access_latency = { value = "20 us", source = "t" }\n'
           'internal_rate = { value = 1e9, source = "t" }\n')
    target = load_scenario(_target(tmp_path, "disks/ram.toml", ram)).nodes[1].target
    assert isinstance(target, RamDiskModel) and target.access_latency == pytest.approx(20e-6)


@pytest.mark.parametrize(("text", "given", "allowed"), [
    ('type = "raid"\n' + ARRAY, "given 'raid'",
     "one of 'disk', 'ramdisk', 'array', 'ssd', 'flash-array'"),
    ('capacity = { value = 1000000000, source = "t" }\n'
     'queue_depth = { value = 16, source = "t" }\n', "missing",
     "one of 'disk', 'ramdisk', 'array', 'ssd', 'flash-array': its keys fit a disk, a RAM "
     "disk and an SSD alike"),
])
def test_a_model_file_of_no_clear_type_is_one_line(tmp_path: Path, text: str, given: str,
                                                    allowed: str) -> None:
    path = _target(tmp_path, "mine/x.toml", text)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}: nodes[1].target: given ")
    assert f"{tmp_path / 'mine' / 'x.toml'}: type: {given}; {allowed}" in message, message


def test_a_host_file_that_says_it_is_an_array_is_refused(tmp_path: Path) -> None:
    host = tmp_path / "h.toml"
    host.write_text('type = "array"\nsyscall = { value = "1 us", source = "t" }\n',
                    encoding="utf-8")
    token = MODEL_FOLDER.set(tmp_path)
    try:
        with pytest.raises(ValueError) as info:
            load_host_model("h.toml")
    finally:
        MODEL_FOLDER.reset(token)
    assert str(info.value) == f"{host}: type: given 'array'; 'host' (read as a host model here)"


def test_a_bad_type_exits_2(tmp_path: Path, capsys) -> None:
    path = _target(tmp_path, "mine/x.toml", 'type = "raid"\n' + ARRAY)
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "type: given 'raid'" in err[0]
