"""The 14 sender -> receiver pairs of Ong & Farrell and the scenario files of
their figures (``scenarios/ong-farrell/``), shared by the checks of the report's
throughput and latency claims."""

from __future__ import annotations

ONG = "scenarios/ong-farrell/"
"""The folder of the report's scenario files."""
PAIRS: tuple[tuple[str, str], ...] = (
    ("c110", "c110"), ("c110", "c180"), ("c110", "j210"), ("c110", "735"), ("c180", "c110"),
    ("c180", "j210"), ("c180", "735"), ("j210", "c110"), ("j210", "c180"), ("j210", "735"),
    ("735", "c110"), ("735", "c180"), ("735", "j210"), ("c180", "c180"))
"""The 14 sender -> receiver pairs of Ong & Farrell, in figure order (6-19, 20-33)."""
NAMES = {"c110": "C110", "c180": "C180", "j210": "J210", "735": "735"}
LOADED = {"j210", "735"}
"""Hosts the paper reports as moderately loaded (section 4.2.2)."""
UNLOADED = tuple(p for p in PAIRS if not LOADED & set(p))
"""Pairs of unloaded hosts (C110 and C180)."""
MB2, BIG_SOCKETS = 2 * 1024 * 1024, (245760, 262143)
"""The largest message, bytes, and the two socket sizes (-s/-S, bytes) of the
paper's peak."""


def stream_file(pair: tuple[str, str]) -> str:
    """Scenario file of the TCP_STREAM figure of *pair*."""
    return f"{ONG}fig{6 + PAIRS.index(pair):02d}-stream-{pair[0]}-to-{pair[1]}.toml"


def rr_file(pair: tuple[str, str]) -> str:
    """Scenario file of the TCP_RR figure of *pair*."""
    return f"{ONG}fig{20 + PAIRS.index(pair):02d}-rr-{pair[0]}-to-{pair[1]}.toml"


def label(pair: tuple[str, str]) -> str:
    """'C110->J210'."""
    return f"{NAMES[pair[0]]}->{NAMES[pair[1]]}"
