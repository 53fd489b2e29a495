"""The payload ceiling of a full-frame Class 3 stream at every Fibre Channel
speed from 1GFC to 128GFC, against the closed form computed from the
standards' own parameters (baud, bits per symbol, lanes, transmission code,
FEC code), not from the model's speed objects."""

from __future__ import annotations

import pytest

from fcsim.fc0.speed import CATALOG
from fcsim.fc2.frame import FRAMING_BYTES, MAX_DATA_FIELD
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import p2p

# name: (baud, bits per symbol, lanes, data bits, code bits, FEC n, FEC k)
STANDARD = {
    "1GFC": (1.0625e9, 1, 1, 8, 10, 1, 1),  # FC-PH / FC-PI: 8b/10b
    "2GFC": (2.125e9, 1, 1, 8, 10, 1, 1),
    "4GFC": (4.25e9, 1, 1, 8, 10, 1, 1),
    "8GFC": (8.5e9, 1, 1, 8, 10, 1, 1),  # FC-PI-4
    "16GFC": (14.025e9, 1, 1, 64, 66, 1, 1),  # FC-PI-5, FC-FS-3 64b/66b, no FEC
    "32GFC": (28.05e9, 1, 1, 256, 257, 528, 514),  # FC-PI-6, FC-FS-4 5.4
    "64GFC": (28.9e9, 2, 1, 256, 257, 544, 514),  # FC-PI-7: PAM4, RS(544,514)
    "128GFC": (28.05e9, 1, 4, 256, 257, 528, 514),  # FC-PI-6P, FC-FS-4 5.6
}


def _ceiling(name: str) -> float:
    baud, bits, lanes, data, code, n, k = STANDARD[name]
    data_rate = baud * bits * lanes * data / code * k / n  # bits/s of FC-1 data
    frame = MAX_DATA_FIELD + FRAMING_BYTES + 4 * MIN_FILL_WORDS
    return data_rate / 8 * MAX_DATA_FIELD / frame


@pytest.mark.parametrize("name", sorted(STANDARD))
def test_full_frame_ceiling(name: str) -> None:
    speed = CATALOG[name]
    frame_time = (MAX_DATA_FIELD + FRAMING_BYTES + 4 * MIN_FILL_WORDS) * 8 / (
        STANDARD[name][0] * STANDARD[name][1] * STANDARD[name][2]) * 1.25
    stream = StreamConfig("s", "a", "b", MAX_DATA_FIELD, cls=3, outstanding=2)
    result = run_scenario(p2p((stream,), duration=4100 * frame_time, warmup=100 * frame_time,
                              speed=speed))
    rate = result["repetitions"][0]["workloads"]["s"]["throughput_bytes_per_s"]
    assert rate == pytest.approx(_ceiling(name), rel=0.0005)


def test_32gfc_fec_and_transcoding_equal_64b66b() -> None:
    """(514/528)(256/257) = 64/66 exactly: 32GFC's FEC and transcoding cost what
    64b/66b alone would."""
    assert CATALOG["32GFC"].line_bits_per_byte == 8 * 66 / 64
    # (257/256)(544/514) = 17/16: 64GFC spends 8.5 line bits per byte
    assert CATALOG["64GFC"].line_bits_per_byte == 8 * 17 / 16
