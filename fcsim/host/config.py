"""The field types a scenario's node tables give the host behind a node, on any
network: its host model by name, the share of its processor other processes
keep busy, and whether its TCP asks for timestamps."""

from __future__ import annotations

from fcsim.catalog import model_name
from fcsim.host.host_model import load_host_model
from fcsim.schema.fields import fraction

HostName = model_name(load_host_model, "host", "models/hosts/")
"""A host model by catalog name or file path (a :class:`HostModel` once read)."""
TIMESTAMPS_HELP = ("The host's TCP asks for the RFC 1323 timestamps option on its SYNs; "
                   "used when both ends ask, each segment then carries 12 more bytes "
                   "(default: the host model's tcp_timestamps, off in every catalog model).")
Load = fraction("a fraction of the processor in [0, 1) such as 0.2 (other processes on the "
                "host)")
