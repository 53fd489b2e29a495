"""Field types of the cables of every technology's sections: the line speed
and transmission code, propagation delay, bit error rates and cable length
(Fibre Channel links and loops, Ethernet and Myrinet cables)."""

from __future__ import annotations

from typing import Any

from fcsim.fc0.speed import CODING_8B10B, CODING_64B66B
from fcsim.schema.fields import choice, fraction, length, value_type

CODINGS = {"8b/10b": CODING_8B10B, "64b/66b": CODING_64B66B}
"""The transmission codes a link may name."""
SPEED_HELP = ("Line speed: a catalog name (case-insensitive) 133M, 266M, 531M, 1062M, 1GFC, "
              "2GFC, 4GFC, 8GFC (8b/10b), 16GFC (64b/66b), 32GFC (256b/257b, RS(528,514) "
              "FEC), 64GFC (PAM4, 256b/257b, RS(544,514)), 128GFC (four 32GFC lanes), or a "
              "baud rate such as '265.625 Mbaud'. A loop runs at 8GFC at most (FC-AL-2).")
CODING_HELP = ("The transmission code. Default: the catalog speed's own coding, 8b/10b for a "
               "baud rate given directly. Setting it keeps the baud rate.")
PROPAGATION_HELP = ("One-way delay per length, written 'TIME/LENGTH'; each half is read as a "
                    "quantity, and a length without a number means 1 of that unit ('5 ns/m' = "
                    "'5 ns / 1 m'; '5 us/km' is the same value).")
DEFAULT_PROPAGATION = "5 ns/m"
"""Light in glass fibre (FC-PI); :data:`fcsim.fc0.cable.DEFAULT_PROPAGATION` in SI."""
Coding = choice(CODINGS, "'8b/10b' or '64b/66b'")
BitErrorRate = fraction("a number in [0, 1) such as 1e-12")


def _two_rates(value: Any) -> tuple[float, float]:
    if not (isinstance(value, list) and len(value) == 2
            and all(type(v) in (int, float) and 0 <= v < 1 for v in value)):
        raise ValueError()
    return float(value[0]), float(value[1])


BitErrorRates = value_type(tuple, _two_rates, "a list of two numbers in [0, 1) such as "
                           "[1e-9, 1e-12]", {"type": "array", "minItems": 2, "maxItems": 2,
                                             "items": {"type": "number", "minimum": 0,
                                                       "exclusiveMaximum": 1}})
CableLength = length()


def _end_flags(value: Any) -> tuple[bool, bool]:
    if isinstance(value, bool):
        return value, value
    if (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, bool) for v in value)):
        return value[0], value[1]
    raise ValueError()


EndFlags = value_type(tuple, _end_flags, "true, false, or a list of two of them (each end's "
                     "port) such as [true, false]",
                     {"oneOf": [{"type": "boolean"},
                                {"type": "array", "minItems": 2, "maxItems": 2,
                                 "items": {"type": "boolean"}}]})
"""A setting of each end's port of a link, one value for both or one each."""
FEC_HELP = ("16GFC only: whether the ports at the link's ends enable FC-FEC, 16GFC's "
            "optional forward error correction (FC-FS-3; the (2112,2080) code of IEEE "
            "802.3 clause 74, which corrects one burst of up to 11 bits in each 2112-bit "
            "codeword): true for both ends, or one value per end. The ends negotiate it: "
            "it is on only when both enable it. Each receiver then waits for a whole "
            "codeword before decoding (150.6 ns a hop) and bit_error_rate is the rate "
            "before FEC; the payload rate is unchanged (docs/model.md). Default: off.")

ARB_FF_HELP = ("8GFC only: whether the ports at the link's ends use ARB(FF) as their fill "
               "word in place of IDLE (FC-PI-4 and FC-FS-3 define it at 8GFC to lower "
               "emission; Brocade 'portcfgfillword' modes 1 to 3): true for both ends, or "
               "one value per end; it is used only when both ends take it. The same "
               "characters a second as IDLE, so no rate changes; each direction then "
               "reports its fill word and how many it sent. Default: off (IDLE, as Brocade's "
               "mode 0).")
