"""Forward error correction at 32GFC and faster: the decoding wait per hop, and
frame loss from pre-FEC bit errors against the binomial closed form."""

from __future__ import annotations

import math

import pytest

from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc0.speed import CATALOG, RS_528_514, RS_544_514
from fcsim.fc1.fec import correctable, uncorrectable_probability
from fcsim.fc2.frame import MAX_DATA_FIELD, frame_chars
from fcsim.resources import DATA_ROOT
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric, p2p

# (speed, codeword bits, line bits/s) from FC-FS-4 5.4 / 5.6 and FC-PI-6/6P/7
CODEWORDS = {"32GFC": (5280, 28.05e9), "64GFC": (5440, 57.8e9), "128GFC": (5280, 4 * 28.05e9)}


@pytest.mark.parametrize("name", sorted(CODEWORDS))
def test_single_frame_waits_one_codeword_at_the_receiver(name: str) -> None:
    speed, length = CATALOG[name], 100.0
    one = StreamConfig("s", "a", "b", 512, cls=3, count=1)
    result = run_scenario(p2p((one,), duration=1e-4, speed=speed, length=length))
    latency = result["repetitions"][0]["workloads"]["s"]["latency_s"]["max"]
    bits, rate = CODEWORDS[name]
    expected = frame_chars(512) * speed.char_time + length * 5e-9 + bits / rate
    assert latency == pytest.approx(expected, rel=1e-6)


def test_each_hop_through_a_switch_adds_a_codeword() -> None:
    speed, length = CATALOG["32GFC"], 100.0
    model = load_switch_model("generic-nonblocking")
    one = StreamConfig("s", "h", "d", 1024, count=1)
    result = run_scenario(fabric({"h": "sw:0", "d": "sw:1"}, (one,), duration=1e-4,
                                 speed=speed, length=length, login=False))
    latency = result["repetitions"][0]["workloads"]["s"]["latency_s"]["max"]
    frame_time = frame_chars(1024) * speed.char_time
    start_out = (24 + 4) * speed.char_time if model.cut_through else frame_time
    hop = length * 5e-9 + 5280 / 28.05e9
    assert latency == pytest.approx(start_out + model.routing_latency + frame_time + 2 * hop,
                                    rel=1e-6)


@pytest.mark.parametrize(("fec", "ber"), [(RS_528_514, 1e-5), (RS_528_514, 5e-4),
                                          (RS_544_514, 2e-3)])
def test_uncorrectable_is_the_binomial_tail(fec, ber: float) -> None:
    p = 1 - (1 - ber) ** 10
    tail = sum(math.comb(fec.n, i) * p ** i * (1 - p) ** (fec.n - i)
               for i in range(fec.t + 1, fec.n + 1))
    assert uncorrectable_probability(fec, ber) == pytest.approx(tail, rel=1e-6, abs=1e-15)


def _expected_loss(speed_name: str, ber: float) -> tuple[float, float]:
    """Fraction of full frames lost and mean codewords per frame: a frame
    touches floor(x) + 1 codewords, or one more with probability frac(x), x its
    line bits over the codeword's (its start falls evenly over the codeword)."""
    speed = CATALOG[speed_name]
    x = frame_chars(MAX_DATA_FIELD) * speed.line_bits_per_byte / speed.fec.codeword_bits
    lost_cw = uncorrectable_probability(speed.fec, ber)
    whole, part = math.floor(x), x - math.floor(x)
    loss = ((1 - part) * (1 - (1 - lost_cw) ** (whole + 1))
            + part * (1 - (1 - lost_cw) ** (whole + 2)))
    return loss, x + 1


@pytest.mark.parametrize(("name", "ber"), [("32GFC", 4e-4), ("32GFC", 6e-4),
                                           ("32GFC", 8e-4), ("64GFC", 1.6e-3)])
def test_frame_loss_after_fec_is_the_binomial_closed_form(name: str, ber: float) -> None:
    speed = CATALOG[name]
    slot = (frame_chars(MAX_DATA_FIELD) + 24) * speed.char_time
    stream = StreamConfig("s", "a", "b", MAX_DATA_FIELD, cls=3, outstanding=2)
    result = run_scenario(p2p((stream,), duration=30_000 * slot, speed=speed,
                              bit_error_rate=ber))
    direction = result["repetitions"][0]["links"]["link"]["directions"]["a->b"]
    frames, lost = direction["frames"], direction["errors"]
    loss, per_frame = _expected_loss(name, ber)
    sigma = math.sqrt(frames * loss * (1 - loss))
    assert abs(lost - frames * loss) < 4 * sigma, (lost, frames * loss)
    assert direction["fec_uncorrected_codewords"] >= lost
    none, fixable = correctable(speed.fec, ber)
    corrected = frames * per_frame * (fixable - none)
    assert direction["fec_corrected_codewords"] == pytest.approx(corrected, rel=0.02)


def test_error_free_line_counts_no_codeword() -> None:
    stream = StreamConfig("s", "a", "b", MAX_DATA_FIELD, cls=3, outstanding=2)
    result = run_scenario(p2p((stream,), duration=1e-4, speed="32GFC"))
    direction = result["repetitions"][0]["links"]["link"]["directions"]["a->b"]
    assert direction["fec_corrected_codewords"] == direction["fec_uncorrected_codewords"] == 0
    below = run_scenario(p2p((stream,), duration=1e-4, speed="16GFC"))
    assert "fec_corrected_codewords" not in below["repetitions"][0]["links"]["link"][
        "directions"]["a->b"]


def test_the_fec_example_loses_what_its_description_says() -> None:
    scenario = load_scenario(DATA_ROOT / "scenarios" / "p2p-32gfc-fec.toml")
    (link,) = scenario.links
    result = run_scenario(scenario)
    direction = result["repetitions"][0]["links"]["fibre"]["directions"]["host->disk"]
    loss, _ = _expected_loss("32GFC", link.bit_error_rate)
    assert loss == pytest.approx(0.006, abs=0.001)  # "about 0.6 % of the frames"
    frames, lost = direction["frames"], direction["errors"]
    assert abs(lost - frames * loss) < 4 * math.sqrt(frames * loss * (1 - loss))
    assert direction["fec_corrected_codewords"] > 100 * direction["fec_uncorrected_codewords"]
