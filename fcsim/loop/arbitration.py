"""Arbitration: which port's ARB makes it all the way round first, and when.

A port that wants the loop sends its ARB(AL_PA) in place of the fill words
(IDLE, ARB(F0), or a lower-priority ARB) it would retransmit, and forwards
higher-priority ARBs unchanged; it wins when its own ARB comes back around
(FC-AL-2 clause 8 as quoted from INCITS 332-1999/AM2; fact sheet 5.2). The
words are not simulated one by one: each arbitrating port *x* emits an
unbroken stream of ARB(x) from the time *s[x]* it begins, and the front of
that stream is followed around the ring.

- *Gates*: a port that is not repeating (an opened port, the opener, the loop
  master during initialisation) swallows what it receives. A gate ``(g, t)``
  passes only words that reach port *g* at time >= *t*, when *g* resumes
  repeating. The first word of *x*'s stream to pass every gate is emitted at
  ``e[x] = max(s[x], max_g(t - path(x, g)))`` and returns to *x* at
  ``w[x] = e[x] + path(x, x)``.
- *Survival*: a higher-priority port *k* replaces ARB(x) with ARB(k) if it is
  arbitrating when that front passes it: *x*'s front survives *k* only if
  ``s[k] > e[x] + path(x, k) + repeat[k]``. Lower-priority ports forward it.
  (If *k*'s own stream reaches *x* before *x* begins, *s[k]* is earlier still,
  so this one test covers both cases.)
- The winner is the port whose surviving front returns first. Every other
  front dies at the winner, which stops repeating when it wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from fcsim.loop.ring import Ring

Gate = tuple[int, float]
"""(port index, time from which the port repeats what it receives, s)."""


def first_emission(ring: Ring, x: int, start: float, gates: Iterable[Gate]) -> float:
    """When port *x*, arbitrating from *start*, emits the first ARB word that passes
    every gate (s)."""
    emit = start
    for g, t in gates:
        if g != x:
            through = t - ring.path(x, g)
            if through > emit:
                emit = through
    return emit


def winner(ring: Ring, priority: Sequence[int], arbitrating: Mapping[int, float],
           gates: Sequence[Gate]) -> tuple[int, float] | None:
    """The port that wins among *arbitrating* (index -> start time, s) and when, s.

    *priority[i]* is port *i*'s AL_PA (lower wins). None if no port arbitrates.
    """
    candidates = []
    for x, start in arbitrating.items():
        emit = first_emission(ring, x, start, gates)
        candidates.append((emit + ring.path(x, x), priority[x], x, emit))
    candidates.sort()
    for back, _prio, x, emit in candidates:
        mine = priority[x]
        if all(s_k > emit + ring.path(x, k) + ring.repeat[k]
               for k, s_k in arbitrating.items() if priority[k] < mine):
            return x, back
    return None


def seen_by_owner(ring: Ring, owner: int, won_at: float, priority: Sequence[int],
                  x: int, start: float) -> float:
    """When the loop *owner* (won at *won_at*, s) first receives an ARB from port *x*.

    Port *x* arbitrates from *start*. If it has lower priority than the owner
    it forwards the owner's ARB until the words after it (OPN, frames, fill)
    reach it; then it replaces fill words with its own ARB, which the opened
    port relays in its own fill words on the way back to the owner.
    """
    emit = start
    if priority[x] > priority[owner]:
        emit = max(start, won_at + ring.path(owner, x) + ring.repeat[x])
    return emit + ring.path(x, owner)


def fill_returns_clean(ring: Ring, owner: int, won_at: float,
                       arbitrating: Mapping[int, float]) -> bool:
    """True if the owner's first ARB(F0) fill word, sent as it wins at *won_at* (s),
    comes back unchanged: no port was arbitrating when it passed (the access
    window may then be reset with IDLEs)."""
    return all(s_x > won_at + ring.path(owner, x) + ring.repeat[x]
               for x, s_x in arbitrating.items() if x != owner)
