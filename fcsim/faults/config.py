"""A scenario's fault schedule as typed values in SI units: what the loader
makes of each ``[[faults]]`` table and what :mod:`fcsim.faults.injector`
applies to the built network."""

from __future__ import annotations

from dataclasses import dataclass

LINK_DOWN = "link-down"
LINK_UP = "link-up"
LOSS_OF_SYNC = "loss-of-sync"
BIT_ERROR_RATE = "bit-error-rate"
PORT_FAILURE = "port-failure"
SWITCH_FAILURE = "switch-failure"
LIP = "lip"
CORRUPTED_CHARACTERS = "corrupted-characters"
KINDS = (LINK_DOWN, LINK_UP, LOSS_OF_SYNC, BIT_ERROR_RATE, PORT_FAILURE, SWITCH_FAILURE, LIP,
         CORRUPTED_CHARACTERS)
"""Every kind of fault, as a scenario names it."""


HOLD = "hold"
DROP = "drop"
BY_PROTOCOL = "by-protocol"
LINK_DOWN_POLICIES = (BY_PROTOCOL, HOLD, DROP)
"""What an N_Port's host does with upper-layer sequences while its link is
down: hold them until it has logged in again (as Linux's FC transport blocks
a remote port's SCSI I/O), drop them (as a Linux network device without
carrier drops IP packets), or each by its protocol: IP dropped, the others
(FCP, FC-2 workloads) held."""
DEV_LOSS_TMO = 60.0
"""How long held sequences wait before they are failed, s: Linux
scsi_transport_fc's dev_loss_tmo default (lpfc sets 30 s)."""


@dataclass(frozen=True)
class FaultConfig:
    """One fault: *kind* (one of :data:`KINDS`) at time *at*, s.

    Its target is one of *link* (a link's name: its cable, both directions),
    *port* (a link-level port's name: a node's N_Port, ``switch:port``, or on
    a loop the NL_Port of a node) and *switch* (a switch's name).
    *duration*: how long a loss of synchronisation lasts, a port or switch
    stays failed, a cable stays out (link-down) or a bit error rate lasts
    (None: to the end of the run, or until a link-up), s. *bit_error_rate*:
    the probability of a line bit in error from *at* on (bit-error-rate), in
    the frames *sender* (an end of the link, by name) sends, or (None) both
    directions.
    *characters*: the length of a burst of corrupted transmission characters
    (corrupted-characters).

    A fault that repeats happens first at *at* and again every *every* s, or
    at random, a Poisson process of mean interval *mean_interval* s (its
    first occurrence a random interval after *at*), until *until* (None: the
    end of the run).
    """

    at: float
    kind: str
    link: str | None = None
    port: str | None = None
    switch: str | None = None
    duration: float | None = None
    bit_error_rate: float | None = None
    characters: int | None = None
    every: float | None = None
    mean_interval: float | None = None
    until: float | None = None
    sender: str | None = None

    @property
    def repeats(self) -> bool:
        """Whether the fault happens more than once (periodic or random)."""
        return self.every is not None or self.mean_interval is not None

    @property
    def target(self) -> str:
        """The target in words: ``link fibre``, ``port host``, ``switch core``."""
        if self.link is not None:
            return f"link {self.link}"
        if self.port is not None:
            return f"port {self.port}"
        return f"switch {self.switch}"

    @property
    def label(self) -> str:
        """The fault in words: ``link-down of link fibre``."""
        return f"{self.kind} of {self.target}"
