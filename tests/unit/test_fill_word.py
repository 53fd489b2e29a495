"""8GFC's ARB(FF) fill word (FC-PI-4, FC-FS-3): its characters, why it is
used (a flatter spectrum than IDLE's, measured with the 8b/10b codec), the
fill words a link reports against the closed form of back-to-back frames,
an unchanged rate, and the scenario key (used only when both ends take it)."""

from __future__ import annotations

import numpy as np
import pytest

from fcsim.fc0.speed import CATALOG, with_arb_ff_fill
from fcsim.fc1 import ordered_sets as osets
from fcsim.fc1.encoding import encode_ordered_set, to_bits
from fcsim.fc2.frame import MAX_DATA_FIELD, frame_chars
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.runner import run_scenario
from fcsim.scenario.loader import ScenarioError, scenario_from_document
from fcsim.scenario.workload_model import StreamConfig
from fcsim.topology.network import fill_words
from tests.builders import p2p

ARB_FF_8GFC = with_arb_ff_fill(CATALOG["8GFC"])


def test_arb_ff_is_k28_5_d20_4_d31_7_d31_7() -> None:
    assert osets.ARB_FF.chars == bytes((0xBC, osets.d(20, 4), osets.d(31, 7), osets.d(31, 7)))
    assert set(osets.FILL_WORDS) == {"IDLE", "ARB(FF)"}
    assert ARB_FF_8GFC.fill_word in osets.FILL_WORDS


def _largest_line(word: osets.OrderedSet, count: int = 512) -> float:
    """The share of a stream of *word*s' power in its largest spectral line
    (the bits as +-1, running disparity carried from word to word)."""
    rd, codes = -1, []
    for _ in range(count):
        encoded, rd = encode_ordered_set(word, rd)
        codes.extend(encoded.tolist())
    bits = to_bits(np.array(codes)).astype(float) * 2 - 1
    power = np.abs(np.fft.rfft(bits))[1:] ** 2
    return float(power.max() / power.sum())


def test_arb_ff_spreads_the_fill_word_s_spectrum() -> None:
    """IDLE's D21.5 characters (1010101010) concentrate a fill stream's power
    in one line; ARB(FF)'s D31.7 spread it: the reason it was standardised."""
    idle, arb = _largest_line(osets.IDLE), _largest_line(osets.ARB_FF)
    assert idle > 0.5 and arb < idle / 3


def test_back_to_back_frames_leave_the_minimum_fill_words_between_them() -> None:
    """A saturating stream of full frames at 8GFC: the sender fills only the
    minimum gap after each frame (less the R_RDYs, which go the other way), the
    receiver's direction carries only fill words and R_RDYs, and the rate is
    IDLE's to the frame."""
    duration = 2e-3
    stream = StreamConfig("s", "a", "b", MAX_DATA_FIELD, cls=3, outstanding=4)
    arb = run_scenario(p2p((stream,), duration=duration, speed=ARB_FF_8GFC))
    idle = run_scenario(p2p((stream,), duration=duration, speed="8GFC"))
    dirs = arb["repetitions"][0]["links"]["link"]["directions"]
    sent, back = dirs["a->b"], dirs["b->a"]
    assert sent["fill_word"] == back["fill_word"] == "ARB(FF)"
    words = duration / ARB_FF_8GFC.word_time
    slot = frame_chars(MAX_DATA_FIELD) // 4 + MIN_FILL_WORDS
    assert sent["frames"] == pytest.approx(words / slot, abs=1)
    assert sent["fill_words"] == pytest.approx(MIN_FILL_WORDS * sent["frames"], abs=slot)
    assert back["fill_words"] == int(words + 1e-9) - back["r_rdy"]
    assert sent["frames"] == idle["repetitions"][0]["links"]["link"]["directions"]["a->b"][
        "frames"]
    assert "fill_word" not in idle["repetitions"][0]["links"]["link"]["directions"]["a->b"]


def test_fill_words_count_the_words_without_frame_or_r_rdy() -> None:
    assert fill_words(1e-6, 1e-8, 40, 3) == 100 - 10 - 3
    assert fill_words(1e-6, 1e-8, 800, 0) == 0


def _doc(speed: str, arb: object) -> dict[str, object]:
    return {"topology": "point-to-point", "run": {"duration": "1 ms"},
            "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"ends": ["a", "b"], "speed": speed, "arb_ff_fill": arb}]}


def test_arb_ff_is_used_only_when_both_ends_take_it() -> None:
    assert scenario_from_document(_doc("8GFC", True), "t.toml").links[0].speed == ARB_FF_8GFC
    for half in ([True, False], False):
        assert scenario_from_document(_doc("8GFC", half), "t.toml").links[0].speed == \
            CATALOG["8GFC"]


@pytest.mark.parametrize("speed", ["4GFC", "16GFC"])
def test_arb_ff_outside_8gfc_is_refused(speed: str) -> None:
    with pytest.raises(ScenarioError, match=r"links\[0\]\.arb_ff_fill.*only at 8GFC"):
        scenario_from_document(_doc(speed, True), "t.toml")
