"""Tests for ordered sets (fcsim.fc1.ordered_sets) through the 8b/10b codec."""

import numpy as np
import pytest

from fcsim.fc1.encoding import decode, encode, encode_ordered_set, is_comma
from fcsim.fc1.ordered_sets import (
    FRAME_DELIMITERS,
    IDLE,
    PRIMITIVES,
    R_RDY,
    EOFt,
    OrderedSet,
    SOFi3,
    arb,
    lip,
    opn,
)

ALL_SETS = {**FRAME_DELIMITERS, **PRIMITIVES}
EOFS = [s for s in ALL_SETS.values() if s.eof]
SOFS = [s for s in FRAME_DELIMITERS.values() if not s.eof]

# Loop-port AL_PAs in priority order (FC-AL; Linux lpfc_hbadisc.c lpfcAlpaArray),
# plus 0x00 for an FL_Port.
AL_PAS = bytes.fromhex(
    "efe8e4e2e1e0dcdad9d6d5d4d3d2d1cecdcccbcac9c7c6c5c3bcbab9b6b5b4b3b2b1aeadacabaaa9"
    "a7a6a5a39f9e9d9b9897908f88848281807c7a797675747372716e6d6c6b6a69676665635c5a5956"
    "55545352514e4d4c4b4a49474645433c3a393635343332312e2d2c2b2a29272625231f1e1d1b1817"
    "100f0804020100"
)


def final_rd(os: OrderedSet, rd: int = -1) -> int:
    return encode_ordered_set(os, rd)[1]


@pytest.mark.parametrize("name", sorted(ALL_SETS))
def test_encodes_cleanly_from_negative(name: str) -> None:
    codes, rd = encode_ordered_set(ALL_SETS[name], rd=-1)
    out = decode(codes, rd=-1)
    assert not out.code_violation.any() and not out.disparity_error.any()
    assert out.special.tolist() == [True, False, False, False]
    assert bytes(out.data) == ALL_SETS[name].chars
    assert is_comma(codes).tolist() == [True, False, False, False]
    assert out.rd == rd


def test_primitives_leave_disparity_negative() -> None:
    assert {name: final_rd(s) for name, s in PRIMITIVES.items()} == {
        name: -1 for name in PRIMITIVES
    }


def test_sofs_leave_disparity_positive() -> None:
    # K28.5 makes RD positive; D21.5 is neutral and the repeated pair cancels.
    assert all(final_rd(s) == 1 for s in SOFS)


@pytest.mark.parametrize("eof", EOFS, ids=lambda s: s.name)
def test_eof_leaves_disparity_negative_from_either_side(eof: OrderedSet) -> None:
    for rd in (-1, 1):
        codes, after = encode_ordered_set(eof, rd)
        chars = eof.chars_positive if rd > 0 else eof.chars
        out = decode(codes, rd)
        assert bytes(out.data) == chars
        assert not out.disparity_error.any()
        assert after == -1


def test_frame_between_sof_and_eof() -> None:
    payload = np.frombuffer(bytes(range(256)) * 3, np.uint8)
    _, rd = encode_ordered_set(SOFi3)
    body, rd = encode(payload, rd=rd)
    eof, rd = encode_ordered_set(EOFt, rd)
    out = decode(eof, decode(body, 1).rd)
    assert rd == -1 and not out.disparity_error.any()


def test_hex_values() -> None:
    assert IDLE.chars.hex() == "bc95b5b5"
    assert R_RDY.chars.hex() == "bc954a4a"
    assert SOFi3.chars.hex() == "bcb55656"
    assert EOFt.chars.hex() == "bc957575"
    assert EOFt.chars_positive.hex() == "bcb57575"
    assert IDLE.value == 0xBC95B5B5


def test_helpers() -> None:
    assert arb(0x01).chars.hex() == "bc940101"
    assert arb(0xEF).name == "ARB(EF)"
    assert opn(0x02, 0x01).chars.hex() == "bc910201"
    assert opn(0x02).chars.hex() == "bc910202"
    assert lip(0xF7, 0xF7).chars == PRIMITIVES["LIP(F7,F7)"].chars
    assert lip(0xF8, 0x01).chars.hex() == "bc15f801"


def test_al_pas_are_neutral_characters() -> None:
    assert len(AL_PAS) == 127 and len(set(AL_PAS)) == 127
    for al_pa in AL_PAS:
        for rd in (-1, 1):
            assert encode(bytes([al_pa]), rd=rd)[1] == rd, hex(al_pa)
        assert final_rd(arb(al_pa)) == -1


def test_neutral_characters_count() -> None:
    # 134 data characters are neutral: the 127 AL_PAs and F0, F7, F8, FB, FD, FE, FF.
    neutral = {v for v in range(256) if encode(bytes([v]))[1] == -1}
    assert len(neutral) == 134
    assert neutral - set(AL_PAS) == {0xF0, 0xF7, 0xF8, 0xFB, 0xFD, 0xFE, 0xFF}
    assert encode(bytes([0x03]))[1] == 1  # D3.0 is not neutral
