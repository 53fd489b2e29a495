"""Forward error correction on a line: which frames a Reed-Solomon code (or
16GFC's FC-FEC burst code) fails to correct, and the counters of corrected
and uncorrected codewords.

At 32GFC and faster every bit on the line belongs to an RS(n, k) codeword
of ten-bit symbols (FC-FS-4 clause 5.4; IEEE 802.3 clause 91). With
independent bit errors at the pre-FEC bit error rate *ber*, a symbol is in
error with probability ``p = 1 - (1 - ber)^10`` and a codeword holds a
binomially distributed number of symbols in error, ``Binomial(n, p)``. The
decoder corrects a codeword with at most ``t = (n - k) / 2`` of them; one with
more is uncorrectable, and the frame whose bits it carries is lost (the
receiver finds it bad, as a CRC error without FEC). Errors on a real lane
come in bursts, which this independent-error model does not capture.

16GFC's optional FC-FEC (``fcsim.fc0.speed.FC_FEC``) is a binary code of
2112-bit codewords that corrects the errors of a codeword lying within one
burst of 11 bits. With independent bit errors (``p = ber``, ``q = 1 - p``) a
codeword is corrected when it holds one error (``n p q^(n-1)``) or when its
first and last errors are ``s - 1`` bits apart for some span ``s`` of 2 to 11
bits (``(n - s + 1) p^2 q^(n-s)``: the first error at one of ``n - s + 1``
places, the last ``s - 1`` later, the bits between either way, none
outside); anything else is uncorrectable, the binomial tail of two or more
errors less those spans.

The codewords run back to back from the moment the link comes up, so the
codewords a frame touches follow from where on the line it starts: bit
``start x line_rate`` of the codeword stream.
"""

from __future__ import annotations

import math
from random import Random

from fcsim.fc0.speed import Fec, Speed


def symbol_error_probability(ber: float, symbol_bits: int) -> float:
    """Probability that a *symbol_bits*-bit symbol holds at least one of
    independent bit errors of rate *ber*."""
    return -math.expm1(symbol_bits * math.log1p(-ber))


def _term(fec: Fec, i: int, log_p: float, log_q: float) -> float:
    """P(exactly *i* of the codeword's n symbols in error), from logarithms."""
    return math.exp(math.lgamma(fec.n + 1) - math.lgamma(i + 1) - math.lgamma(fec.n - i + 1)
                    + i * log_p + (fec.n - i) * log_q)


def _bursts(fec: Fec, log_p: float, log_q: float) -> float:
    """P(a codeword of burst code *fec* holds two or more errors, all within
    one span of its burst_bits): sum over spans s of (n - s + 1) p^2 q^(n-s)."""
    return sum((fec.n - s + 1) * math.exp(2 * log_p + (fec.n - s) * log_q)
               for s in range(2, fec.burst_bits + 1))


def correctable(fec: Fec, ber: float) -> tuple[float, float]:
    """(P(no symbol in error), P(the codeword is corrected)) of one codeword of
    *fec* at pre-FEC bit error rate *ber*: for a Reed-Solomon code the
    binomial distribution's sum up to t symbols, for a burst code one error or
    one burst (module docstring)."""
    p = symbol_error_probability(ber, fec.symbol_bits)
    if p == 0.0:
        return 1.0, 1.0
    if p >= 1.0:
        return 0.0, 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    none = math.exp(fec.n * log_q)
    if fec.burst_bits:
        return none, min(1.0, none + _term(fec, 1, log_p, log_q) + _bursts(fec, log_p, log_q))
    return none, min(1.0, none + sum(_term(fec, i, log_p, log_q) for i in range(1, fec.t + 1)))


def uncorrectable_probability(fec: Fec, ber: float) -> float:
    """Probability that one codeword of *fec* at pre-FEC bit error rate *ber*
    is uncorrectable: more than t symbols in error (the binomial tail, summed
    term by term so that it keeps its precision when small); for a burst code,
    two or more errors not within one burst."""
    p = symbol_error_probability(ber, fec.symbol_bits)
    if p == 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    log_p, log_q = math.log(p), math.log1p(-p)
    if fec.burst_bits:
        tail = sum(_term(fec, i, log_p, log_q) for i in range(2, fec.n + 1))
        return min(1.0, max(0.0, tail - _bursts(fec, log_p, log_q)))
    return min(1.0, sum(_term(fec, i, log_p, log_q) for i in range(fec.t + 1, fec.n + 1)))


class FecLine:
    """One direction of a line protected by its speed's FEC: draws, codeword by
    codeword, whether a frame survives decoding, and counts the codewords
    corrected (1 to t symbols in error) and uncorrectable (more than t).

    Only frames are drawn (as without FEC, bit errors strike frames only), and
    only while the line's bit error rate is above zero, so an error-free run
    never calls it.
    """

    def __init__(self, speed: Speed) -> None:
        if speed.fec is None:
            raise ValueError(f"{speed.name} has no FEC")
        self.fec = speed.fec
        self.line_rate = speed.line_rate
        self.bits_per_char = speed.line_bits_per_byte
        self.corrected = 0
        """Codewords of frames with 1 to t symbols in error, corrected."""
        self.uncorrected = 0
        """Codewords of frames with more than t symbols in error."""
        self._ber = -1.0
        self._none = self._fixable = 1.0

    def codewords(self, start: float, chars: int) -> int:
        """How many codewords a frame of *chars* characters that starts on the
        line at *start* s touches."""
        size = self.fec.codeword_bits
        offset = math.fmod(start * self.line_rate, size)
        return int((offset + chars * self.bits_per_char - 1e-9) // size) + 1

    def frame_lost(self, start: float, chars: int, ber: float, rng: Random) -> bool:
        """Draw each codeword of a frame of *chars* characters sent at *start* at
        pre-FEC bit error rate *ber*; True if any is uncorrectable."""
        if ber != self._ber:
            self._ber = ber
            self._none, self._fixable = correctable(self.fec, ber)
        lost = False
        for _ in range(self.codewords(start, chars)):
            draw = rng.random()
            if draw < self._none:
                continue
            if draw < self._fixable:
                self.corrected += 1
            else:
                self.uncorrected += 1
                lost = True
        return lost

    def reset(self) -> None:
        """Start a new measurement interval."""
        self.corrected = self.uncorrected = 0
