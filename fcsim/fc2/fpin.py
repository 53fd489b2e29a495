"""Fabric Performance Impact Notifications (FPIN): what an N_Port is told.

FC-LS-5 defines the FPIN extended link service (command 0x16), by which the
fabric (or a peer) tells a registered N_Port of conditions that impair its
traffic. Each notification carries one or more descriptors, identified by a
tag (Linux ``include/uapi/scsi/fc/fc_els.h``, ``enum fc_ls_tlv_dtag``):

- Link Integrity (0x00020001): a link is marginal; counts of a link error
  over the switch's window passed its threshold;
- Delivery (0x00020002): a frame to or from the N_Port was not delivered
  (timeout, unable to route);
- Peer Congestion (0x00020003): a port the N_Port talks to is congested (a
  slow drain: lost credit, credit stall, oversubscription);
- Congestion (0x00020004): the N_Port's own port is congested, with a
  severity (warning or alarm).

These records are what the receiving N_Port hands to its listeners: the
fabric builds them, the host side (a multipath layer marking a path
marginal, an initiator throttling its outstanding I/O) reacts. Port names
are the 64-bit World Wide Port Names of :func:`fcsim.fc2.els_payload.port_name`.

Registration (FC-LS-5; Linux ``lpfc_els.c``, ``lpfc_issue_els_edc`` and
``lpfc_issue_els_rdf``): after its fabric login an N_Port sends Exchange
Diagnostic Capabilities (EDC, 0x17) to the F_Port (FFFFFE) with a congestion
signaling capability descriptor (the signals it can receive, warning and
alarm, and how often: lpfc's ``lpfc_fabric_cgn_frequency``, 100 ms); the LS_ACC
carries the F_Port's capability (the signals it sends and their period), and
both use the lesser capability and the longer period (lpfc
``lpfc_least_capable_settings``). It then sends Register Diagnostic Functions
(RDF, 0x19) to the fabric controller (FFFFFD) with an FPIN registration
descriptor listing the four notification tags; the LS_ACC lists those the
fabric will send. An FPIN is not answered (lpfc ``lpfc_els_unsol_buffer``:
"There are no replies").

Bytes (big-endian, as Linux ``fc_els.h`` lays them out): every ELS here is a
command word, a descriptor list length (bytes after it), then descriptors,
each a tag word, a length word (bytes after it) and its fields; an LS_ACC of
EDC or RDF is the LS_ACC word, the list length, a Link Service Request
Information descriptor (tag 1, length 4, the request's command word), then
its descriptors. Periods travel in milliseconds. A Link Integrity
descriptor's Event Threshold is the detection window (ms) and its Event Count
the least number of events in it that causes the notification (Linux
``struct fc_fn_li_desc``): the exact count is the switch's own record.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from fcsim.fc2.sequence import Sequence

ELS_FPIN = 0x16
"""Fabric Performance Impact Notification (FC-LS-5)."""
ELS_EDC = 0x17
"""Exchange Diagnostic Capabilities (FC-LS-5; Linux ``ELS_EDC``)."""
ELS_RDF = 0x19
"""Register Diagnostic Functions (FC-LS-5; Linux ``ELS_RDF``)."""
ELS_LS_ACC = 0x02
"""Link Service Accept (FC-LS-5)."""

TAG_LINK_INTEGRITY = 0x00020001
TAG_DELIVERY = 0x00020002
TAG_PEER_CONGESTION = 0x00020003
TAG_CONGESTION = 0x00020004
NOTIFICATION_TAGS = (TAG_LINK_INTEGRITY, TAG_DELIVERY, TAG_PEER_CONGESTION, TAG_CONGESTION)
"""The notifications an N_Port registers for, in lpfc's order."""
TAG_LS_REQUEST_INFO = 0x00000001
"""Link Service Request Information descriptor (an LS_ACC's first)."""
TAG_CONGESTION_SIGNAL_CAP = 0x0001000F
"""Congestion Signaling Capability descriptor (EDC)."""
TAG_FPIN_REGISTER = 0x00030001
"""FPIN Registration descriptor (RDF)."""

LI_INVALID_CRC = 0x6
"""Link Integrity event: invalid CRC (Linux ``FPIN_LI_INVALID_CRC``)."""
DELIVERY_TIMEOUT = 0x1
"""Delivery reason: timeout (Linux ``FPIN_DELI_TIMEOUT``)."""
CONGESTION_CLEAR = 0x0
CONGESTION_LOST_CREDIT = 0x1
CONGESTION_CREDIT_STALL = 0x2
CONGESTION_OVERSUBSCRIPTION = 0x3
SEVERITY_WARNING = 0xF1
"""Congestion severity: warning (Linux ``FPIN_CONGN_SEVERITY_WARNING``)."""
SEVERITY_ALARM = 0xF7
"""Congestion severity: alarm (Linux ``FPIN_CONGN_SEVERITY_ERROR``)."""
SIGNALS_NONE = 0x0
SIGNALS_WARNING = 0x1
SIGNALS_WARNING_ALARM = 0x2
"""Congestion signal capability: none, warning only, warning and alarm
(Linux ``enum fc_edc_cg_signal_cap_types``)."""
FREQUENCY_MS = 0x2
"""Signal frequency unit: milliseconds (Linux ``EDC_CG_SIGFREQ_MSEC``)."""


@dataclass(frozen=True, slots=True)
class LinkIntegrity:
    """A link between *detecting* and *attached* ports is marginal: *count*
    events of *event_type* (Linux ``enum fc_fpin_li_event_types``, e.g. 0x3
    loss of signal, 0x6 invalid CRC) over the detecting port's window passed
    *threshold*. *affected* lists the N_Ports whose traffic crosses the link."""

    event_type: int
    detecting: int
    attached: int
    threshold: int
    count: int
    affected: tuple[int, ...]
    window: float = 0.0
    """The detection window the count is over, s (0: not given)."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """A frame between *detecting* and *attached* was not delivered, for
    *reason* (Linux ``enum fc_fpin_deli_event_types``: 0x1 timeout, 0x2
    unable to route)."""

    reason: int
    detecting: int
    attached: int


@dataclass(frozen=True, slots=True)
class PeerCongestion:
    """The ports in *affected*, reached through *attached*, are congested by
    *event_type* (Linux ``enum fc_fpin_peer_congn_event_types``: 0x0 clear,
    0x1 lost credit, 0x2 credit stall, 0x3 oversubscription), over *period*
    seconds."""

    event_type: int
    detecting: int
    attached: int
    period: float
    affected: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Congestion:
    """The receiving N_Port's own port is congested by *event_type* (as
    :class:`PeerCongestion`), at *severity* (0xF1 warning, 0xF7 alarm),
    over *period* seconds."""

    event_type: int
    severity: int
    period: float


Descriptor = LinkIntegrity | Delivery | PeerCongestion | Congestion
"""One FPIN descriptor."""


class FpinListener(Protocol):
    """What takes the notifications an N_Port receives (a multipath layer, an
    initiator that throttles): registered on the N_Port when the network is
    built."""

    def fpin_received(self, port_name: int, descriptor: Descriptor) -> None:
        """*descriptor* arrived in an FPIN at the N_Port named *port_name*."""


@dataclass(frozen=True, slots=True)
class CongestionSignal:
    """A congestion signal (a primitive signal, FC-FS-6) from the F_Port to its
    N_Port, where EDC negotiated them: *severity* warning or alarm (as
    :class:`Congestion`); the F_Port sends one each *period* s while its port
    stays congested."""

    severity: int
    period: float


class SignalListener(Protocol):
    """What takes the congestion signals an N_Port's F_Port sends it."""

    def signal_received(self, port_name: int, signal: CongestionSignal) -> None:
        """*signal* arrived at the N_Port named *port_name*."""


# -- bytes -------------------------------------------------------------------------

_HEAD = struct.Struct(">B3xI")
_TLV = struct.Struct(">II")


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _els(command: int, descriptors: bytes) -> bytes:
    return _HEAD.pack(command, len(descriptors)) + descriptors


def _accept(command: int, descriptors: bytes) -> bytes:
    """An LS_ACC of *command*: the list length, the request information, *descriptors*."""
    info = struct.pack(">IIB3x", TAG_LS_REQUEST_INFO, 4, command)
    return _HEAD.pack(ELS_LS_ACC, len(info) + len(descriptors)) + info + descriptors


def descriptor_bytes(descriptor: Descriptor) -> bytes:
    """One FPIN descriptor as Linux ``struct fc_fn_*_desc`` lays it out."""
    if isinstance(descriptor, LinkIntegrity):
        d = descriptor
        body = struct.pack(">QQHHIII", d.detecting, d.attached, d.event_type, 0, _ms(d.window),
                           d.threshold, len(d.affected))
        body += b"".join(struct.pack(">Q", name) for name in d.affected)
        tag = TAG_LINK_INTEGRITY
    elif isinstance(descriptor, Delivery):
        body = struct.pack(">QQI", descriptor.detecting, descriptor.attached, descriptor.reason)
        tag = TAG_DELIVERY
    elif isinstance(descriptor, PeerCongestion):
        p = descriptor
        body = struct.pack(">QQHHII", p.detecting, p.attached, p.event_type, 0, _ms(p.period),
                           len(p.affected))
        body += b"".join(struct.pack(">Q", name) for name in p.affected)
        tag = TAG_PEER_CONGESTION
    else:
        c = descriptor
        body = struct.pack(">HHIB3x", c.event_type, 0, _ms(c.period), c.severity)
        tag = TAG_CONGESTION
    return _TLV.pack(tag, len(body)) + body


def fpin(descriptors: list[Descriptor] | tuple[Descriptor, ...]) -> bytes:
    """An FPIN carrying *descriptors* (Linux ``struct fc_els_fpin``)."""
    return _els(ELS_FPIN, b"".join(descriptor_bytes(d) for d in descriptors))


def _names(payload: bytes, at: int, count: int) -> tuple[int, ...]:
    return tuple(struct.unpack_from(f">{count}Q", payload, at))


def fpin_descriptors(payload: bytes) -> list[Descriptor]:
    """The descriptors of an FPIN *payload* (:func:`fpin`); unknown tags are skipped."""
    out: list[Descriptor] = []
    end = 8 + _HEAD.unpack_from(payload)[1]
    at = 8
    while at + 8 <= end:
        tag, length = _TLV.unpack_from(payload, at)
        body = at + 8
        if tag == TAG_LINK_INTEGRITY:
            det, att, kind, _mod, window, least, n = struct.unpack_from(">QQHHIII", payload, body)
            out.append(LinkIntegrity(kind, det, att, least, least, _names(payload, body + 32, n),
                                     window / 1000))
        elif tag == TAG_DELIVERY:
            det, att, reason = struct.unpack_from(">QQI", payload, body)
            out.append(Delivery(reason, det, att))
        elif tag == TAG_PEER_CONGESTION:
            det, att, kind, _mod, period, n = struct.unpack_from(">QQHHII", payload, body)
            out.append(PeerCongestion(kind, det, att, period / 1000,
                                      _names(payload, body + 28, n)))
        elif tag == TAG_CONGESTION:
            kind, _mod, period, severity = struct.unpack_from(">HHIB", payload, body)
            out.append(Congestion(kind, severity, period / 1000))
        at = body + length
    return out


def rdf_request(tags: tuple[int, ...] = NOTIFICATION_TAGS) -> bytes:
    """RDF registering for the notifications *tags* (one FPIN registration
    descriptor, as lpfc's ``struct lpfc_els_rdf_req``)."""
    return _els(ELS_RDF, _registration(tags))


def _registration(tags: tuple[int, ...]) -> bytes:
    body = struct.pack(f">I{len(tags)}I", len(tags), *tags)
    return _TLV.pack(TAG_FPIN_REGISTER, len(body)) + body


def rdf_accept(tags: tuple[int, ...]) -> bytes:
    """The LS_ACC of an RDF: the notifications the fabric will send, *tags*
    (Linux ``struct fc_els_rdf_resp``)."""
    return _accept(ELS_RDF, _registration(tags))


def registered_tags(payload: bytes) -> tuple[int, ...]:
    """The tags of the FPIN registration descriptor of an RDF or its LS_ACC."""
    at = 8 if payload[0] == ELS_RDF else 20
    count = struct.unpack_from(">I", payload, at + 8)[0]
    return tuple(struct.unpack_from(f">{count}I", payload, at + 12))


def _signal_capability(transmit: int, transmit_period: float, receive: int,
                       receive_period: float) -> bytes:
    body = struct.pack(">IHHIHH", transmit, _ms(transmit_period) if transmit else 0,
                       FREQUENCY_MS if transmit else 0, receive,
                       _ms(receive_period) if receive else 0, FREQUENCY_MS if receive else 0)
    return _TLV.pack(TAG_CONGESTION_SIGNAL_CAP, len(body)) + body


def edc_request(receive: int, period: float) -> bytes:
    """EDC from an N_Port that can receive the signals *receive* (a
    ``SIGNALS_*`` value) every *period* s (Linux ``struct fc_els_edc`` with
    one ``struct fc_diag_cg_sig_desc``, as lpfc sends it)."""
    return _els(ELS_EDC, _signal_capability(SIGNALS_NONE, 0.0, receive, period))


def edc_accept(transmit: int, period: float) -> bytes:
    """The F_Port's LS_ACC of an EDC: it sends the signals *transmit* every
    *period* s (Linux ``struct fc_els_edc_resp``)."""
    return _accept(ELS_EDC, _signal_capability(transmit, period, SIGNALS_NONE, 0.0))


def signal_capability(payload: bytes) -> tuple[int, float, int, float]:
    """(transmit capability, its period s, receive capability, its period s)
    of the congestion signaling descriptor of an EDC or its LS_ACC."""
    at = 8 if payload[0] == ELS_EDC else 20
    tx, tx_count, _u, rx, rx_count, _v = struct.unpack_from(">IHHIHH", payload, at + 8)
    return tx, tx_count / 1000, rx, rx_count / 1000


# -- the receiving side ---------------------------------------------------------------

class FpinReceiver:
    """An N_Port's receiving end of notifications: it takes every FPIN the N_Port
    receives (an unanswered ELS request), keeps each descriptor with its time
    (:attr:`log`) and hands it to the listeners (:meth:`NPort.listen_fpin`);
    likewise the congestion signals (:attr:`signals`,
    :meth:`NPort.listen_signals`). *port_name* is the N_Port's; *now()* the clock."""

    def __init__(self, port_name: int, now: Callable[[], float]) -> None:
        self.port_name = port_name
        self._clock = now
        self.listeners: list[FpinListener] = []
        self.signal_listeners: list[SignalListener] = []
        self.log: list[tuple[float, Descriptor]] = []
        """Each descriptor received, with its arrival time, s."""
        self.signals: list[tuple[float, CongestionSignal]] = []
        """Each congestion signal received, with its arrival time, s."""

    def received(self, seq: Sequence, time: float) -> bool:
        """An N_Port handler (:meth:`NPort.register`): takes an FPIN, leaves the rest."""
        ulp = seq.ulp
        if not (isinstance(ulp, bytes) and ulp and ulp[0] == ELS_FPIN):
            return False
        for descriptor in fpin_descriptors(ulp):
            self.log.append((time, descriptor))
            for listener in self.listeners:
                listener.fpin_received(self.port_name, descriptor)
        return True

    def signal(self, signal: CongestionSignal) -> None:
        """The F_Port's congestion *signal* arrived now."""
        self.signals.append((self._clock(), signal))
        for listener in self.signal_listeners:
            listener.signal_received(self.port_name, signal)
