"""A built network: its N_Ports and links by name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fcsim.fc2.nport import NPort
from fcsim.fc2.port import Port
from fcsim.link.link import Link


@dataclass
class Network:
    """The N_Ports (by node name) and links (by link name) of one simulation."""

    nodes: dict[str, NPort] = field(default_factory=dict)
    links: dict[str, Link] = field(default_factory=dict)

    def address_of(self, node: str) -> int:
        """The N_Port ID of *node* (as it will be once logged in)."""
        return self.nodes[node].port_id

    def attachments(self, node: str) -> list[tuple[Any, str]]:
        """*node*'s link-level port, with the name of its network ("": the only one)."""
        return [(self.nodes[node], "")]

    def same_fabric(self, a: str, b: str) -> bool:
        """True if N_Ports *a* and *b* can reach each other (here: one network)."""
        return True

    def route(self, source: str, destination: str,
              fibre_channel: bool = False) -> tuple[Any, int]:
        """*source*'s port towards *destination* and *destination*'s address
        (*fibre_channel*: over a Fibre Channel network, as FC-2 and FCP traffic
        need; the checks made sure this one is)."""
        return self.nodes[source], self.address_of(destination)

    def ports(self) -> list[Port]:
        """Every link-level port, in link order."""
        return [port for link in self.links.values() for port in link.ports]

    def not_up(self) -> str | None:
        """Why the network is not usable yet, or None once it is.

        Here: N_Ports that have not completed their logins (fabric login runs
        frame by frame with ``run.login``).
        """
        waiting = [name for name, node in self.nodes.items()
                   if node.ready_at is None and not self.refused(name)]
        if waiting:
            return (f"{len(waiting)} of {len(self.nodes)} N_Ports had not completed "
                    f"login ({', '.join(waiting[:5])}{', ...' if len(waiting) > 5 else ''})")
        return None

    def refused(self, name: str) -> bool:
        """True if N_Port *name*'s login was refused for good (not waited for)."""
        return False

    def up_at(self) -> float:
        """When the network became usable, s (call once :meth:`not_up` is None)."""
        return max((node.ready_at or 0.0 for node in self.nodes.values()), default=0.0)

    def reset_stats(self) -> None:
        """Start a new measurement interval for every port."""
        for port in self.ports():
            port.reset_stats()
        for node in self.nodes.values():
            node.reset_stats()

    def results(self, interval: float) -> dict[str, Any]:
        """Per link direction and per N_Port figures over *interval* s."""
        links = link_results(self.links, interval)
        nodes = {name: {"port_id": f"{node.port_id:06X}", **node.stats.as_dict(),
                        "credit_stalls": node.port.stats.credit_stalls,
                        "credit_wait_s": node.port.stats.credit_wait}
                 for name, node in self.nodes.items()}
        return {"links": links, "nodes": nodes}


def fill_words(interval: float, word_time: float, chars: int, r_rdys: int) -> int:
    """The fill words a transmitter sent in *interval* s: the whole transmission
    words of the interval (*word_time* s each) that carried neither a frame's
    *chars* characters (four to a word) nor one of its *r_rdys* R_RDYs. A port
    that was not Active part of the interval sent primitive sequences then,
    which this counts as fill words too."""
    return max(0, int(interval / word_time + 1e-9) - chars // 4 - r_rdys)


def link_results(links_by_name: dict[str, Link], interval: float) -> dict[str, Any]:
    """Per direction figures of every link over *interval* s (any technology)."""
    links: dict[str, Any] = {}
    for link in links_by_name.values():
        directions = {}
        for port in link.ports:
            port.close_stats()
            s = port.stats
            directions[link.direction_name(port)] = {
                "frames": s.frames_tx,
                "utilisation": s.busy_time / interval if interval > 0 else 0.0,
                "credit_wait_s": s.credit_wait,
                "credit_wait_fraction": s.credit_wait / interval if interval > 0 else 0.0,
                "credit_stalls": s.credit_stalls,
                "r_rdy": s.r_rdy_tx,
                "errors": port.peer.stats.errors_rx if port.peer else 0,
                "eofni": getattr(port.peer.stats, "eofni_rx", 0) if port.peer else 0,
            }
            if port.fec is not None:  # the receiver's decoder: 32GFC and faster, 16GFC with FC-FEC
                directions[link.direction_name(port)].update(
                    fec_corrected_codewords=port.fec.corrected,
                    fec_uncorrected_codewords=port.fec.uncorrected)
            if link.speed.fill_word is not None:  # 8GFC filling with ARB(FF)
                directions[link.direction_name(port)].update(
                    fill_word=link.speed.fill_word,
                    fill_words=fill_words(interval, link.speed.word_time, s.chars_tx, s.r_rdy_tx))
        links[link.name] = {"speed": link.speed.name, "baud": link.speed.baud,
                            "length_m": link.cable.length, "directions": directions}
    return links


@dataclass
class LanNetwork(Network):
    """A network of NICs (by node name) and its own switches (by name) that needs
    no login (Ethernet, Myrinet): up from the start, each node reached at its
    NIC's address."""

    switches: dict[str, Any] = field(default_factory=dict)

    def address_of(self, node: str) -> int:
        """The link address of *node*'s NIC (a MAC, a Myrinet address)."""
        return self.nodes[node].address  # type: ignore[attr-defined]

    def not_up(self) -> str | None:
        """No login: always up."""
        return None

    def up_at(self) -> float:
        """Up from the start."""
        return 0.0

    def reset_stats(self) -> None:
        """Start a new measurement interval for every port, NIC and switch."""
        for port in self.ports():
            port.reset_stats()
        for nic in self.nodes.values():
            nic.stats.reset()
        for switch in self.switches.values():
            switch.reset_stats()
