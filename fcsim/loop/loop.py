"""The arbitrated loop: arbitration, loop tenancies, access fairness and LIP.

A :class:`Loop` owns the ring of :class:`~fcsim.loop.lport.LPort` objects and
times the ordered sets that pass between them; frames and R_RDYs are timed by
the ports. One tenancy (fact sheet 5.2 and 5.5):

1. Ports wanting the loop arbitrate (:mod:`fcsim.loop.arbitration` says whose
   ARB returns first and when, given when each began and which ports were not
   repeating).
2. The winner sends OPN(yx) (full duplex) to the port its owner's next frame is
   for; the opened port answers with R_RDYs when the OPN reaches it. A port
   opened while it arbitrates keeps its arbitration pending (FC-AL-2's
   ARB_PEND is not cleared by OPENED), and an opened port that wants the loop
   may begin arbitrating: its fill words carry its ARB to the owner, a fair
   owner closes, and the port's ARBs go round again from the CLS it sends, so
   it neither loses its turn nor lets the access window reset.
3. Frames flow in the circuit with BB credit (:mod:`fcsim.loop.lport`).
4. The opener sends CLS; the opened port finishes the frame it is sending,
   answers CLS and repeats again; when that CLS reaches the opener the
   tenancy ends and arbitration resumes: both ports are gates that only words
   arriving after they resume can pass.

Access fairness (Seagate FC interface manual 8.3.1-8.3.2; Hitachi DK32EJ
3.3.3): a fair port that wins may not arbitrate again until its access window
is reset, which happens when the loop carries IDLEs, i.e. no port arbitrates:
either the owner's first ARB(F0) fill word comes back unchanged after one
circuit, or a tenancy ends with no port arbitrating; the IDLEs then reach each
port after its path from the owner. A fair owner closes once another port's
ARB has reached it (:func:`fcsim.loop.arbitration.seen_by_owner`) and the
sequence it is sending, its burst, is through (:mod:`fcsim.loop.lport`). Unfair
ports ignore the window and re-arbitrate at once.

LIP (at start and at the times given) aborts the tenancy and every
arbitration; frames still in flight when the LIP reaches their receiver are
lost. :mod:`fcsim.loop.initialisation` times the rest.

FL_Port hook: an :class:`LPort` with AL_PA 0x00 (:data:`AL_PA_FL_PORT`),
owned by a fabric's port logic, may be put in the ring: it always becomes the
loop master and has the highest priority, and :meth:`Loop.port_for` sends it
every D_ID not on the loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Speed
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.loop.al_pa import AL_PA_FL_PORT
from fcsim.loop.arbitration import Gate, fill_returns_clean, seen_by_owner, winner
from fcsim.loop.circuit import Circuit
from fcsim.loop.initialisation import InitTimeline, timeline
from fcsim.loop.lport import LPort
from fcsim.loop.ring import Ring

if TYPE_CHECKING:
    from fcsim.engine.simulation import Simulation


class Loop:
    """The loop *name*: *ports* in ring order at *speed*, each hop over *cable*,
    or hop *i* (from port *i* to the next) over ``cables[i]`` when given.

    Each port's AL_PA, port ID and Port_Name must be set; an NL_Port's ID is
    the loop's domain and area (:attr:`area`, 0 on a private loop) and its
    AL_PA. *bit_error_rate* applies per line bit per hop. *position_map*:
    initialisation includes LIRP and LILP. Initialisation runs at time 0 and
    again at each time in *lip_at* (s), begun by the port at *initiator*.
    """

    def __init__(self, sim: Simulation, name: str, ports: Sequence[LPort], speed: Speed,
                 cable: Cable, bit_error_rate: float = 0.0, position_map: bool = True,
                 lip_at: Sequence[float] = (), initiator: int = 0,
                 cables: Sequence[Cable] = ()) -> None:
        self.sim = sim
        self.name = name
        self.ports = list(ports)
        self.speed = speed
        self.cables = tuple(cables) or (cable,) * len(ports)
        if len(self.cables) != len(self.ports):
            raise ValueError(f"{name}: {len(self.cables)} hop cables for {len(self.ports)} ports")
        self.position_map = position_map
        self.word_time = speed.word_time
        for index, port in enumerate(self.ports):
            port.loop, port.index = self, index
            port.char_time, port.word_time = speed.char_time, speed.word_time
            port.gap_time = MIN_FILL_WORDS * speed.word_time
            port.bit_error_rate = bit_error_rate
            port.line_bits = speed.line_bits_per_byte
        self.ring = Ring([p.repeat_words * speed.word_time for p in self.ports],
                         [c.delay for c in self.cables])
        self.priority = [p.al_pa for p in self.ports]
        self.by_al_pa = {p.al_pa: p for p in self.ports}
        if len(self.by_al_pa) != len(self.ports):
            raise ValueError(f"{name}: two ports have the same AL_PA")
        self.fl_port = self.by_al_pa.get(AL_PA_FL_PORT)
        self.area = next((p.port_id >> 8 for p in self.ports if p is not self.fl_port), 0)
        self.master = (self.fl_port or min(self.ports, key=lambda p: p.port_name)).index
        self.arbitrating: dict[int, float] = {}
        self.gates: tuple[Gate, ...] = ()
        self.circuit: Circuit | None = None
        self.initialisations: list[InitTimeline] = []
        self._initiator = initiator
        self._gen = self._epoch = 0
        self._later = sim.call_later
        for at in (0.0, *lip_at):
            sim.call_later(at, self._lip)

    def port_for(self, d_id: int) -> LPort:
        """The port that frames for N_Port *d_id* go to: its AL_PA's, else the FL_Port."""
        port = self.by_al_pa.get(d_id & 0xFF) if d_id >> 8 == self.area else None
        port = port or self.fl_port
        if port is None:
            raise ValueError(f"{self.name}: N_Port {d_id:06X} is not on the loop")
        return port

    def _sink(self, port: LPort, name: str) -> None:
        now = self.sim.now
        for sink in self.sim.sinks:
            sink.primitive(now, port, name, now)

    # -- arbitration ----------------------------------------------------------------

    def arbitrate(self, port: LPort) -> None:
        """*port* begins sending its ARB now."""
        now = self.sim.now
        port.start_arbitration(now)
        self.arbitrating[port.index] = now
        if self.sim.sinks:
            self._sink(port, f"ARB({port.al_pa:02X})")
        circuit = self.circuit
        if circuit is None:
            self._resolve()
        elif port is circuit.opened:  # its fill words carry its ARB to the owner
            self._seen(circuit, now + circuit.to_opener)
        else:
            owner = circuit.opener
            self._seen(circuit, seen_by_owner(self.ring, owner.index, circuit.won_at,
                                              self.priority, port.index, now))

    def _seen(self, circuit: Circuit, at: float) -> None:
        if at < circuit.arb_seen_at:
            circuit.arb_seen_at = at
            if circuit.opener.fair:
                self._later(max(at - self.sim.now, 0.0), circuit.opener.arbitration_seen,
                            circuit)

    def _resolve(self) -> None:
        """Schedule the next win, if any port arbitrates and the loop is free."""
        self._gen += 1
        if self.circuit is not None or not self.arbitrating:
            return
        found = winner(self.ring, self.priority, self.arbitrating, self.gates)
        if found is not None:
            index, at = found
            self._later(max(at - self.sim.now, 0.0), self._win, (self._gen, index))

    def _win(self, value: tuple[int, int]) -> None:
        gen, index = value
        if gen != self._gen:
            return
        now = self.sim.now
        port = self.ports[index]
        del self.arbitrating[index]
        port.end_arbitration(now)
        if port.fair:
            port.access = False
        d_id = port.owner.next_destination()  # type: ignore[union-attr]
        if d_id is None:  # its work went away while it arbitrated: back to monitoring
            self.gates = ((index, now),)
            if not self.arbitrating:
                self._reset_window(index, now)
            self._resolve()
            return
        dest = self.port_for(d_id)
        circuit = self.circuit = Circuit(self.ring, port, dest, now)
        port.loop_stats.tenancies += 1
        circuit.join(port, opener=True)
        opn_end = port.send_ordered_set(f"OPN({dest.al_pa:02X},{port.al_pa:02X})")
        self._later(opn_end + circuit.to_opened - now, self._opened, circuit)
        self._later(self.ring.path(index, index), self._fill_back, circuit)
        for other, start in self.arbitrating.items():
            if other != dest.index:
                self._seen(circuit, seen_by_owner(self.ring, index, now, self.priority, other,
                                                  start))
        port.transmit()

    def _opened(self, circuit: Circuit) -> None:
        if not circuit.live:
            return
        dest = circuit.opened
        dest.loop_stats.opened += 1
        circuit.join(dest, opener=False)
        if dest.index in self.arbitrating:  # its fill words carry its ARB to the owner
            self._seen(circuit, self.sim.now + circuit.to_opener)
        else:
            dest.try_arbitrate()
        dest.grant_free_buffers()
        dest.transmit()

    # -- closing --------------------------------------------------------------------

    def close(self, circuit: Circuit) -> None:
        """The opener sends CLS (it has nothing more, or it closes for fairness)."""
        end = circuit.opener.send_cls()
        self._later(end + circuit.to_opened - self.sim.now, self._cls_at_opened, circuit)

    def _cls_at_opened(self, circuit: Circuit) -> None:
        if not circuit.live:
            return
        now = self.sim.now
        dest = circuit.opened
        end = dest.send_cls()  # after the frame it is sending
        dest.leave_circuit(now)
        if dest.index in self.arbitrating:  # ARB_PEND survived the circuit: ARBs from its CLS on
            self.arbitrating[dest.index] = end
        self._later(end - now, self._resumed, (self._epoch, dest))
        self._later(end + circuit.to_opener - now, self._cls_at_opener, (circuit, end))

    def _cls_at_opener(self, value: tuple[Circuit, float]) -> None:
        circuit, dest_resumed = value
        if not circuit.live:
            return
        now = self.sim.now
        opener = circuit.opener
        opener.leave_circuit(now)
        circuit.live = False
        self.circuit = None
        self.gates = ((circuit.opened.index, dest_resumed), (opener.index, now))
        if not self.arbitrating:
            self._reset_window(opener.index, now)
        if not opener.try_arbitrate():
            self._resolve()

    def _resumed(self, value: tuple[int, LPort]) -> None:
        epoch, port = value
        if epoch == self._epoch:
            port.try_arbitrate()

    # -- access fairness ------------------------------------------------------------

    def _fill_back(self, circuit: Circuit) -> None:
        """The owner's first ARB(F0) is back: unchanged means no one arbitrates."""
        if circuit is self.circuit and fill_returns_clean(
                self.ring, circuit.opener.index, circuit.won_at, self.arbitrating):
            self._reset_window(circuit.opener.index, self.sim.now)

    def _reset_window(self, origin: int, at: float) -> None:
        """IDLEs leave port *origin* at *at* (s) and reset each fair port's access."""
        ring = self.ring
        now = self.sim.now
        if self.sim.sinks:
            self._sink(self.ports[origin], "IDLE (access window reset)")
        for port in self.ports:
            if port.fair and not port.access and not port.access_pending:
                port.access_pending = True
                delay = at + ring.path(origin, port.index) + ring.repeat[port.index] - now
                self._later(delay, self._access, (self._epoch, port))

    def _access(self, value: tuple[int, LPort]) -> None:
        epoch, port = value
        if epoch == self._epoch:
            port.access_pending = False
            port.access = True
            port.try_arbitrate()

    # -- initialisation -------------------------------------------------------------

    def lip(self, initiator: LPort) -> InitTimeline:
        """*initiator* sends LIP now (a scheduled fault): the loop initialises
        again as at a ``lip_at`` time; returns the initialisation's timeline."""
        self._lip(initiator.index)
        return self.initialisations[-1]

    def _lip(self, initiator: int | None) -> None:
        """A LIP now from port *initiator* (None: the loop's own initiator)."""
        now = self.sim.now
        self._epoch += 1
        start = self._initiator if initiator is None else initiator
        plan = timeline(self.ring, self.word_time, self.speed.char_time, now, start,
                        self.master, self.position_map)
        self.initialisations.append(plan)
        circuit = self.circuit
        if circuit is not None:
            circuit.live = False
            circuit.cut_opened = plan.cut_at[circuit.opened.index]
            circuit.cut_opener = plan.cut_at[circuit.opener.index]
            for port in (circuit.opener, circuit.opened):
                if port.circuit is circuit:
                    port.leave_circuit(now)
            self.circuit = None
        for index in self.arbitrating:
            self.ports[index].end_arbitration(now)
        self.arbitrating.clear()
        self._resolve()
        for port, at in zip(self.ports, plan.monitoring_at, strict=True):
            port.initialising, port.access, port.access_pending = True, True, False
            self._later(at - now, self._monitor, (self._epoch, port))
        self.gates = ((self.master, plan.end),)
        if self.sim.sinks:
            self._sink(self.ports[start], "LIP(F7,F7)")

    def _monitor(self, value: tuple[int, LPort]) -> None:
        epoch, port = value
        if epoch == self._epoch:
            port.initialising = False
            port.try_arbitrate()
