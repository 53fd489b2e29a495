"""Forward error correction at 32GFC and faster, and 16GFC's optional FC-FEC:
the decoding wait per hop, and frame loss from pre-FEC bit errors against
the binomial closed form (for FC-FEC's burst code, the binomial tail less the
patterns one 11-bit burst covers)."""

from __future__ import annotations

import itertools
import math

import pytest

from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc0.speed import CATALOG, FC_FEC, RS_528_514, RS_544_514, Fec, Speed, with_fc_fec
from fcsim.fc1.fec import correctable, uncorrectable_probability
from fcsim.fc2.frame import MAX_DATA_FIELD, frame_chars
from fcsim.resources import DATA_ROOT
from fcsim.runner import run_scenario
from fcsim.scenario.loader import ScenarioError, load_scenario, scenario_from_document
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric, p2p

# (speed, codeword bits, line bits/s) from FC-FS-4 5.4 / 5.6 and FC-PI-6/6P/7;
# 16GFC's FC-FEC from IEEE 802.3 clause 74 and FC-PI-5
CODEWORDS = {"32GFC": (5280, 28.05e9), "64GFC": (5440, 57.8e9), "128GFC": (5280, 4 * 28.05e9),
             "16GFC+FC-FEC": (2112, 14.025e9)}
FC_FEC_16 = with_fc_fec(CATALOG["16GFC"])


def named(name: str) -> Speed:
    return FC_FEC_16 if name == "16GFC+FC-FEC" else CATALOG[name]


@pytest.mark.parametrize("name", sorted(CODEWORDS))
def test_single_frame_waits_one_codeword_at_the_receiver(name: str) -> None:
    speed, length = named(name), 100.0
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
    speed = named(speed_name)
    x = frame_chars(MAX_DATA_FIELD) * speed.line_bits_per_byte / speed.fec.codeword_bits
    lost_cw = uncorrectable_probability(speed.fec, ber)
    whole, part = math.floor(x), x - math.floor(x)
    loss = ((1 - part) * (1 - (1 - lost_cw) ** (whole + 1))
            + part * (1 - (1 - lost_cw) ** (whole + 2)))
    return loss, x + 1


@pytest.mark.parametrize(("name", "ber"), [("32GFC", 4e-4), ("32GFC", 6e-4),
                                           ("32GFC", 8e-4), ("64GFC", 1.6e-3),
                                           ("16GFC+FC-FEC", 3e-5), ("16GFC+FC-FEC", 1e-4),
                                           ("16GFC+FC-FEC", 2e-4)])
def test_frame_loss_after_fec_is_the_binomial_closed_form(name: str, ber: float) -> None:
    speed = named(name)
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


def test_fc_fec_costs_16gfc_no_payload_rate() -> None:
    """32 64b/66b blocks in 2080 bits (each sync header one bit) and 32 parity
    bits: 2112 line bits carry 32 x 64 data bits, as 64b/66b alone does."""
    plain = CATALOG["16GFC"]
    assert FC_FEC_16.line_bits_per_byte == plain.line_bits_per_byte == 8 * 66 / 64
    assert FC_FEC_16.codeword_time == pytest.approx(2112 / 14.025e9, rel=1e-12)
    assert (FC_FEC.n, FC_FEC.k, FC_FEC.burst_bits) == (2112, 2080, 11)
    assert 2080 == 32 * 65 and 2112 - 2080 == 32


def _burst_closed_form(fec: Fec, ber: float) -> float:
    """P(uncorrectable) of a burst code from the complement: no error, one
    error, or two or more whose first and last are s - 1 bits apart, s <= b."""
    n, p = fec.n, ber
    q = 1 - p
    covered = q ** n + n * p * q ** (n - 1) + sum((n - s + 1) * p * p * q ** (n - s)
                                                 for s in range(2, fec.burst_bits + 1))
    return 1 - covered


@pytest.mark.parametrize("ber", [1e-4, 1e-3, 5e-3])
def test_fc_fec_uncorrectable_is_the_tail_less_one_burst(ber: float) -> None:
    assert uncorrectable_probability(FC_FEC, ber) == pytest.approx(
        _burst_closed_form(FC_FEC, ber), rel=1e-6)


def test_the_burst_rule_counts_every_error_pattern_of_a_small_code() -> None:
    """On a 14-bit code correcting 3-bit bursts, the probability of the
    patterns whose errors all lie within 3 bits, summed over all 2^14
    patterns, equals correctable()'s."""
    toy = Fec("toy", 14, 8, symbol_bits=1, burst_bits=3)
    p = 0.07
    fixable = none = 0.0
    for bits in itertools.product((0, 1), repeat=toy.n):
        errors = [i for i, b in enumerate(bits) if b]
        weight = p ** len(errors) * (1 - p) ** (toy.n - len(errors))
        if not errors:
            none += weight
        if not errors or errors[-1] - errors[0] < toy.burst_bits:
            fixable += weight
    assert correctable(toy, p) == pytest.approx((none, fixable), rel=1e-9)
    assert uncorrectable_probability(toy, p) == pytest.approx(1 - fixable, rel=1e-9)


def _doc(speed: str, fec: object) -> dict[str, object]:
    return {"topology": "point-to-point", "run": {"duration": "1 ms"},
            "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"ends": ["a", "b"], "speed": speed, "fec": fec}]}


def test_fc_fec_is_on_only_when_both_ports_enable_it() -> None:
    assert scenario_from_document(_doc("16GFC", True), "t.toml").links[0].speed == FC_FEC_16
    for half in ([True, False], [False, True], False):
        assert scenario_from_document(_doc("16GFC", half), "t.toml").links[0].speed == \
            CATALOG["16GFC"]


@pytest.mark.parametrize("speed", ["8GFC", "32GFC"])
def test_fc_fec_outside_16gfc_is_refused(speed: str) -> None:
    with pytest.raises(ScenarioError, match=r"links\[0\]\.fec.*only at 16GFC"):
        scenario_from_document(_doc(speed, True), "t.toml")
