"""Build FC-3 into a run: alias groups into a built fabric, striped streams on
a built network.

:func:`install_aliases` gives each group its Alias_ID, has its members join
through the alias server (or joins them at once, for static registration),
logs the senders of workloads addressed to a group in with it (implicitly, as
RFC 4338 has N_Ports do for the broadcast address: no PLOGI is sent to an
alias) and plugs the :class:`~fcsim.fc3.alias_router.AliasRouter` into every
switch (its routing step for alias addresses) and the alias server into every
switch's services. :func:`striped_stream` builds one striped stream.

The builders take what they read as the small protocols below (the
scenario's configurations satisfy them); the run's builder
(:mod:`fcsim.build`) calls them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from fcsim.engine.simulation import Simulation
from fcsim.fabric.addressing import area_of, domain_of
from fcsim.fabric.network import FabricNetwork
from fcsim.fabric.services import E_D_TOV
from fcsim.fc2.login import PeerLogin
from fcsim.fc2.nport import NPort
from fcsim.fc3.alias import FIRST_ALIAS_ID, MAX_GROUPS, AliasGroup, AliasJoin, AliasServer
from fcsim.fc3.alias_router import AliasRouter
from fcsim.fc3.hunt import HuntGroup
from fcsim.fc3.multicast import MulticastGroup
from fcsim.fc3.ports import port_names
from fcsim.fc3.striping import StripedStream


class AliasGroupSpec(Protocol):
    """An alias group to build: its name, kind ('hunt-group' or 'multicast'),
    members (N_Port names, in group order), registration ('alias-server' or
    'static') and, for a hunt group, the exchanges a member serves at once."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def members(self) -> tuple[str, ...]: ...
    @property
    def registration(self) -> str: ...
    @property
    def exchanges_per_member(self) -> int: ...


class StripeSpec(Protocol):
    """A striped stream to build (a stream's configuration with stripe_ports > 1;
    sizes in bytes, times in s)."""

    @property
    def name(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def destination(self) -> str: ...
    @property
    def stripe_ports(self) -> int: ...
    @property
    def stripe_unit(self) -> int | None: ...
    @property
    def size(self) -> int: ...
    @property
    def cls(self) -> int: ...
    @property
    def max_data_field(self) -> int: ...
    @property
    def outstanding(self) -> int: ...
    @property
    def start(self) -> float: ...
    @property
    def count(self) -> int | None: ...


class Addressed(Protocol):
    """A built network's N_Ports by name and their addresses."""

    @property
    def nodes(self) -> Mapping[str, NPort]: ...

    def address_of(self, node: str) -> int:
        """The address of N_Port *node*."""


def install_aliases(sim: Simulation, configs: Sequence[AliasGroupSpec],
                    senders: Iterable[tuple[str, str]], net: FabricNetwork) -> AliasRouter:
    """Build the alias groups *configs* into the fabric *net* (whose N_Ports and
    addresses exist), log each of *senders* (an N_Port, a group it sends to)
    in with its group, and return the router now in each of its switches."""
    if len(configs) > MAX_GROUPS:
        raise ValueError(f"at most {MAX_GROUPS} alias groups, got {len(configs)}")
    by_domain = {sw.domain: sw for sw in net.switches.values()}
    groups: list[AliasGroup] = []
    for index, config in enumerate(configs):
        members = [(name, net.nodes[name]) for name in config.members]
        ids = [net.addresses[name] for name in config.members]
        alias_id = FIRST_ALIAS_ID + index
        group: AliasGroup
        if config.kind == "hunt-group":
            f_ports = {m: by_domain[domain_of(m)].local[area_of(m)] for m in ids}
            group = HuntGroup(sim, config.name, alias_id, members, ids, f_ports,
                              config.exchanges_per_member, E_D_TOV)
        else:
            group = MulticastGroup(sim, config.name, alias_id, members, ids)
        groups.append(group)
        if config.registration == "static":
            group.join_all()
        else:
            for _, nport in members:
                AliasJoin(nport, group)
    server = AliasServer(groups)
    router = AliasRouter(groups, server)
    for switch in net.switches.values():
        switch.aliases = router
        if switch.services is not None:
            switch.services.aliases = server
    for source, destination in senders:
        group = router.by_name[destination]
        params = [nport.params for _, nport in group.members]
        classes = frozenset({3}) if isinstance(group, MulticastGroup) else frozenset(
            {2, 3}).intersection(*(p.classes for p in params))
        net.nodes[source].peers[group.alias_id] = PeerLogin(
            group.alias_id, min(p.rx_data_field for p in params),
            min(p.ee_credit for p in params), classes)
    net.addresses.update({g.name: g.alias_id for g in groups})
    net.aliases = router
    return router


def striped_stream(sim: Simulation, w: StripeSpec, net: Addressed) -> StripedStream:
    """The striped stream *w* on the built network *net*."""
    k = w.stripe_ports
    sources = [net.nodes[p] for p in port_names(w.source, k)]
    d_ids = [net.address_of(p) for p in port_names(w.destination, k)]
    e_d_tov = net.nodes[w.destination].params.e_d_tov
    return StripedStream(sim, w.name, sources, d_ids, w.size, w.stripe_unit or w.size,
                         w.cls, w.max_data_field, w.outstanding, w.start, w.count, e_d_tov)
