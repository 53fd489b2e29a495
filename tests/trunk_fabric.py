"""Two switches joined by an ISL trunk, for the trunking tests
(docs/fabric-services.md, "ISL trunking")."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from typing import Any

from fcsim.scenario.loader import scenario_from_document
from fcsim.scenario.model import Scenario

HOST_SPEED = "32GFC"
"""The N_Ports' links: faster than any trunk the tests build, so the trunk
sets a stream's pace."""
ISL_SPEED = "2GFC"


def trunk_text(lengths: Sequence[float], size: str = "64 KiB", duration: str = "2 ms",
               warmup: str = "200 us",
               model: str = "generic-nonblocking", trunked: bool = True) -> str:
    """A fabric of switches a and b joined by one ISL per cable length in
    *lengths* (m), a trunk if *trunked*; host on a streams *size* sequences to
    disk on b over one exchange."""
    lines = [f'topology = "fabric"\n[run]\nduration = "{duration}"\nwarmup = "{warmup}"\n'
             'login = false\n']
    for sw in ("a", "b"):
        lines.append(f'[[switches]]\nname = "{sw}"\nmodel = "{model}"\n')
    lines.append('[[nodes]]\nname = "host"\n[[nodes]]\nname = "disk"\n')
    lines.append(f'[[links]]\nends = ["host", "a:0"]\nspeed = "{HOST_SPEED}"\n')
    lines.append(f'[[links]]\nends = ["disk", "b:0"]\nspeed = "{HOST_SPEED}"\n')
    for i, length in enumerate(lengths):
        group = 'trunk_group = "t"\n' if trunked else ""
        lines.append(f'[[links]]\nname = "m{i}"\nends = ["a:{i + 1}", "b:{i + 1}"]\n'
                     f'speed = "{ISL_SPEED}"\nlength = "{length} m"\n{group}')
    lines.append(f'[[workloads]]\nname = "s"\ntype = "stream"\nfrom = "host"\nto = "disk"\n'
                 f'size = "{size}"\noutstanding = 1\nexchanges = "per-slot"\n')
    return "\n".join(lines)


def trunk_scenario(lengths: Sequence[float], **kw: Any) -> Scenario:
    """:func:`trunk_text` read as a scenario."""
    return scenario_from_document(tomllib.loads(trunk_text(lengths, **kw)), "trunk.toml")
