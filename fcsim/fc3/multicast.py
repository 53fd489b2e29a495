"""Multicast groups: the fabric replicates each Class 3 frame to every member.

A multicast group is a set of N_Ports with one alias address; "the frame from
a source N_Port is replicated to all the other member N_Ports of the multicast
group using Class 3 service" (Fibre Channel Association, *Fibre Channel
Primer*, ch. 7; FC-PH-2/3 multicast). Classes 1 and 2 have no multicast; the
reliable, connection-based Class 6 of FC-PH-3 (a multicast server returning
one answer for all members) is not modelled.

Replication (the multicast server's work, FFFFF5, here in every switch): the
switch where a frame enters makes one copy for each member on its own F_Ports
and one for each output towards other switches that have members, along the
fabric's least-cost routes (a copy across an ISL carries the domains it is
for, and the next switch replicates it again). So the source's link carries
each frame once, each member's link once, and each ISL at most once. Each
copy waits at its own output for that output's BB credit, ahead of unicast
frames. The frame's input buffer, and with it the R_RDY to the sender, is
freed only when the last copy has crossed the crossbar (the copies are read
from that buffer, the crossbar fanning one input out to several outputs): a
slow member, short of credit, therefore holds buffers and in the end holds
back the source and every other member. A switch's hold time does not apply
to copies, and its central router's rate limits unicast frames only.

Each member reassembles the copies as its own sequence; what it accepts is
counted per member (frames, payload, sequences) and added to the workload's
figures, which for a multicast workload add up every member.
"""

from __future__ import annotations

import copy as _copy
from typing import Any

from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import area_of, domain_of
from fcsim.fabric.switch import Switch
from fcsim.fabric.switch_port import SwitchPort
from fcsim.fc2 import header as h
from fcsim.fc2.frame import Frame
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Sequence
from fcsim.fc3.alias import AliasGroup


class MemberStats:
    """What one member accepted (frames, payload bytes, whole sequences) and
    the copies switched to it, over the measured interval."""

    __slots__ = ("frames", "payload", "sequences", "copies")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        self.frames = self.payload = self.sequences = self.copies = 0


class _MemberMeter:
    """A sequence meter counting into a member's stats and the workload's meter."""

    __slots__ = ("stats", "outer")

    def __init__(self, stats: MemberStats, outer: Any) -> None:
        self.stats = stats
        self.outer = outer

    @property
    def frames(self) -> int:
        """Frames counted so far (the member's)."""
        return self.stats.frames

    @frames.setter
    def frames(self, value: int) -> None:
        if self.outer is not None:
            self.outer.frames += value - self.stats.frames
        self.stats.frames = value

    @property
    def payload(self) -> int:
        """Payload counted so far, bytes (the member's)."""
        return self.stats.payload

    @payload.setter
    def payload(self, value: int) -> None:
        if self.outer is not None:
            self.outer.payload += value - self.stats.payload
        self.stats.payload = value

    @property
    def taken_back(self) -> int:
        """Payload taken back so far, bytes (the workload's: a member keeps no count)."""
        return self.outer.taken_back if self.outer is not None else 0

    @taken_back.setter
    def taken_back(self, value: int) -> None:
        if self.outer is not None:
            self.outer.taken_back = value


class _Fanout:
    """One multicast frame in one switch: the input that holds its buffer and
    the copies not yet across the crossbar."""

    __slots__ = ("inp", "frame", "left")

    def __init__(self, inp: SwitchPort, frame: Frame, left: int) -> None:
        self.inp = inp
        self.frame = frame
        self.left = left


class MulticastGroup(AliasGroup):
    """A multicast group of *members*; *domains* maps each member's N_Port ID
    to the domain of its switch."""

    kind = "multicast"

    def __init__(self, sim: Simulation, name: str, alias_id: int,
                 members: list[tuple[str, NPort]], ids: list[int]) -> None:
        super().__init__(sim, name, alias_id, members, ids)
        self._forwarded: dict[Frame, frozenset[int]] = {}
        self._fanout: dict[Frame, tuple[_Fanout, int | None]] = {}
        self._shadows: dict[tuple[Sequence, int], Sequence] = {}
        self.stats = {m: MemberStats() for m in ids}
        self.frames_in = self.copies = self.onward = 0

    def reset_stats(self) -> None:
        """Zero the counters of the measured interval (in place: the meters of
        sequences under way keep counting into them)."""
        for stats in self.stats.values():
            stats.reset()
        self.frames_in = self.copies = self.onward = 0

    def route(self, switch: Switch, inp: SwitchPort, frame: Frame) -> None:
        """Replicate *frame* at *switch* (see the module docstring); always None."""
        if frame.cls != 3 or frame.is_link_control:
            switch.refuse(inp, frame, h.R_CTL_F_RJT, h.P_RJT_CLASS_NOT_SUPPORTED)
            return None
        domains = self._forwarded.pop(frame, None)
        if domains is None:
            self.frames_in += 1
            domains = frozenset(domain_of(m) for m in self.joined)
        copies: list[tuple[SwitchPort, Frame, int | None]] = []
        hops: dict[SwitchPort, set[int]] = {}
        for member in self.ids:
            if member == frame.s_id or member not in self.joined:
                continue
            domain = domain_of(member)
            if domain == switch.domain:
                out = switch.local.get(area_of(member))
                if out is not None:
                    copies.append((out, self._copy(frame, member), member))
            elif domain in domains:
                out = switch.output_for(frame, member, inp)
                if out is not None:
                    hops.setdefault(out, set()).add(domain)
        for out, towards in hops.items():
            onward = self._copy(frame, None)
            self._forwarded[onward] = frozenset(towards)
            copies.append((out, onward, None))
        fanout = _Fanout(inp, frame, len(copies))
        self.copies += len(copies) - len(hops)
        self.onward += len(hops)
        if not copies:
            switch.free_input(inp, frame, inp.eof_in)
            return None
        now = self.sim.now
        ready = inp.eof_in + switch.model.routing_latency  # read once the buffer holds it
        self.sim.call_later(ready - now, self._send, (switch, fanout, copies))
        return None

    def _send(self, value: tuple[Switch, _Fanout, list[tuple[SwitchPort, Frame, int | None]]]
              ) -> None:
        """The copies of one frame leave their outputs: *value* is the switch, the
        fan-out that frees the input buffer and each copy's output, frame and member."""
        switch, fanout, copies = value
        for _, frame, member in copies:
            self._fanout[frame] = (fanout, member)
        for out, frame, _ in copies:
            switch.send_from(out, frame)

    def crossed(self, frame: Frame) -> bool:
        """A frame the switch sent itself crossed its crossbar: if it is a copy of
        this group, count it and free the input buffer after the last copy."""
        entry = self._fanout.pop(frame, None)
        if entry is None:
            return False
        fanout, member = entry
        if member is not None:
            self.stats[member].copies += 1
        fanout.left -= 1
        if fanout.left == 0:
            fanout.inp.port.release_buffer()
        return True

    def _copy(self, frame: Frame, member: int | None) -> Frame:
        """A copy of *frame*; for a member, its frames belong to the member's own
        image of the sequence (counted for the member)."""
        seq = frame.sequence
        if member is not None and seq is not None:
            seq = self._shadow(seq, member, bool(frame.f_ctl & h.F_CTL_END_SEQUENCE))
        twin = Frame(frame.sof, frame.eof, frame.r_ctl, frame.d_id, frame.s_id, frame.type,
                     frame.f_ctl, frame.seq_id, frame.seq_cnt, frame.ox_id, frame.rx_id,
                     frame.data_len, frame.cls, frame.payload_len, frame.parameter,
                     frame.df_ctl, frame.cs_ctl, seq, None, frame.payload)
        twin.corrupt = frame.corrupt
        twin.attempt = frame.attempt
        return twin

    def _shadow(self, seq: Sequence, member: int, last: bool) -> Sequence:
        """Member *member*'s image of *seq*: the same sequence, counted for it."""
        key = (seq, member)
        shadow = self._shadows.pop(key, None) if last else self._shadows.get(key)
        if shadow is None:
            shadow = _copy.copy(seq)
            shadow.meter = _MemberMeter(self.stats[member], seq.meter)
            shadow.on_delivered = self._delivered(member, seq.on_delivered)
            if not last:
                self._shadows[key] = shadow
        return shadow

    def _delivered(self, member: int, outer: Any) -> Any:
        def delivered(seq: Sequence, time: float) -> None:
            self.stats[member].sequences += 1
            if outer is not None:
                outer(seq, time)
        return delivered

    def results(self, interval: float) -> dict[str, Any]:
        """Frames that entered the fabric for the group, copies made for members
        and sent on across ISLs, and per member what it accepted and the copies
        switched to it."""
        out = super().results(interval)
        out["per_member"] = {self.names[m]: {
            "frames": s.frames, "payload_bytes": s.payload, "sequences": s.sequences,
            "copies": s.copies, "throughput_bytes_per_s": s.payload / interval if interval > 0
            else 0.0} for m, s in self.stats.items()}
        out.update(frames_in=self.frames_in, copies=self.copies, onward=self.onward,
                   member_frames_min=min(s.frames for s in self.stats.values()))
        return out
