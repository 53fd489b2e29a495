"""AL_PA values, priority and assignment; who wins arbitration."""

from __future__ import annotations

import pytest

from fcsim.fc1.encoding import code_for
from fcsim.loop.al_pa import AL_PA_FL_PORT, AL_PAS, MAX_NL_PORTS, NL_AL_PAS, assign, is_nl_al_pa
from fcsim.loop.arbitration import winner
from fcsim.loop.ring import Ring


def _neutral(byte: int) -> bool:
    return all(bin(code_for(byte, False, rd)).count("1") == 5 for rd in (-1, 1))


def test_al_pas_are_the_neutral_disparity_bytes_up_to_ef() -> None:
    assert list(AL_PAS) == [b for b in range(0xF0) if _neutral(b)]
    assert len(AL_PAS) == 127 and MAX_NL_PORTS == 126
    assert AL_PAS[0] == AL_PA_FL_PORT and AL_PAS == tuple(sorted(AL_PAS))
    assert [b for b in range(0xF0, 0x100) if _neutral(b)] == [0xF0, 0xF7, 0xF8, 0xFB, 0xFD,
                                                              0xFE, 0xFF]


def test_linux_lpfc_table_is_the_same_set() -> None:
    lpfc_head = [0xEF, 0xE8, 0xE4, 0xE2, 0xE1, 0xE0, 0xDC, 0xDA, 0xD9, 0xD6]
    lpfc_tail = [0x1B, 0x18, 0x17, 0x10, 0x0F, 0x08, 0x04, 0x02, 0x01]
    descending = sorted(NL_AL_PAS, reverse=True)
    assert descending[:10] == lpfc_head and descending[-9:] == lpfc_tail


def test_nl_port_addresses_exclude_fl_port_and_non_neutral() -> None:
    assert is_nl_al_pa(0x01) and is_nl_al_pa(0xEF)
    assert not is_nl_al_pa(0x00) and not is_nl_al_pa(0x03) and not is_nl_al_pa(0xF0)


def test_soft_addresses_are_distinct_valid_and_in_priority_order() -> None:
    claim = [3, 4, 5, 0, 1, 2]  # master is port 3
    got = assign([None] * 6, claim)
    assert len(set(got)) == 6 and all(is_nl_al_pa(a) for a in got)
    assert [got[i] for i in claim] == list(NL_AL_PAS[:6])


def test_hard_addresses_are_honoured_and_skipped_by_soft_ones() -> None:
    got = assign([None, 0x01, None, 0xEF], [0, 1, 2, 3])
    assert got == [0x02, 0x01, 0x04, 0xEF]


def test_a_full_loop_takes_every_nl_port_address() -> None:
    got = assign([None] * MAX_NL_PORTS, list(range(MAX_NL_PORTS)))
    assert sorted(got) == list(NL_AL_PAS)


@pytest.mark.parametrize(("hard", "message"), [
    ([0x01, 0x01], "requested twice"),
    ([0x03, None], "not an NL_Port AL_PA"),
    ([0x00, None], "not an NL_Port AL_PA"),
    ([None] * 127, "at most 126"),
])
def test_bad_requests_are_refused(hard: list[int | None], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        assign(hard, list(range(len(hard))))


def _ring(n: int, repeat: float = 1e-6, cable: float = 1e-7) -> Ring:
    return Ring([repeat] * n, [cable] * n)


def test_lower_al_pa_wins_whatever_its_position() -> None:
    ring = _ring(6)
    for position in range(6):
        priority = [0x10 + i for i in range(6)]
        priority[position] = 0x01
        everyone = {i: 0.0 for i in range(6)}
        index, at = winner(ring, priority, everyone, ())
        assert index == position
        assert at == pytest.approx(ring.path(position, position))


def test_a_late_higher_priority_arb_does_not_stop_an_earlier_front() -> None:
    ring = _ring(4)
    priority = [0x10, 0x01, 0x20, 0x30]
    passed = ring.path(0, 1) + ring.repeat[1]  # port 0's ARB front leaves port 1 then
    assert winner(ring, priority, {0: 0.0, 1: passed * 1.01}, ())[0] == 0
    assert winner(ring, priority, {0: 0.0, 1: passed * 0.99}, ())[0] == 1


def test_a_gate_holds_every_arb_until_the_port_repeats_again() -> None:
    ring = _ring(4)
    index, at = winner(ring, [1, 2, 4, 8], {2: 0.0}, ((0, 5e-3),))
    assert index == 2 and at == pytest.approx(5e-3 + ring.repeat[0] + ring.path(0, 2))


def test_ring_paths_add_up_to_the_round_trip() -> None:
    ring = Ring([1.0, 2.0, 3.0, 4.0], [0.1, 0.2, 0.3, 0.4])
    assert ring.round_trip == pytest.approx(11.0)
    assert ring.path(0, 1) == pytest.approx(0.1)
    assert ring.path(0, 2) == pytest.approx(0.1 + 2.0 + 0.2)
    assert ring.path(3, 1) == pytest.approx(0.4 + 1.0 + 0.1)
    for i in range(4):
        assert ring.path(i, i) + ring.repeat[i] == pytest.approx(ring.round_trip)
        for j in range(4):
            if j != i:
                assert ring.path(i, j) + ring.repeat[j] + ring.path(j, i) == pytest.approx(
                    ring.path(i, i))
    assert (ring.hops(0, 2), ring.hops(2, 0), ring.hops(1, 1)) == (2, 2, 4)
