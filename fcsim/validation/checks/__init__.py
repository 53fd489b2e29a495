"""How each claim is checked: the simulation points it needs and the verdict
on their results, one module per document.

Every check reads the figure the document reports from runs of the
experiment's own scenario files (``scenarios/ong-farrell/``,
``scenarios/rd11/``, ...), repeated as the scenario says, and applies the
claim's criterion as written in ``validation/claims.toml``. A verdict reads
no model value: a check passes or fails on what the simulation produced. Where
a grid leaves points out, a bound the simulation itself guarantees says they
cannot change the verdict (``ong_farrell.send_bound``: one send() per message
costs the sender at least its per-call time).
"""

from __future__ import annotations

from fcsim.validation.checks import das2, hpss, ong_farrell, rd11, slice
from fcsim.validation.checks.common import Check, NoFigure, Results, Verdict
from fcsim.validation.checks.ong_farrell_pairs import rr_file, stream_file

__all__ = ["CHECKS", "Check", "NoFigure", "Results", "Verdict", "rr_file", "stream_file"]

CHECKS: dict[str, Check] = {**ong_farrell.CHECKS, **rd11.CHECKS, **hpss.CHECKS,
                            **das2.CHECKS, **slice.CHECKS}
"""Every claim's check, by claim ID."""
