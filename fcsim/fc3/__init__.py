"""FC-3 common services: striping, hunt groups and multicast.

FC-3 is the level of a node that spans several of its N_Ports (FC-PH; the
FC-PH-2 and FC-PH-3 amendments added hunt groups, alias addressing and
multicast): it stripes one stream over several N_Ports for bandwidth
(:mod:`fcsim.fc3.striping`), lets a set of N_Ports answer to one alias
address with the fabric choosing a member that is not busy
(:mod:`fcsim.fc3.hunt`), and has the fabric's multicast server replicate a
Class 3 frame to every member of a group (:mod:`fcsim.fc3.multicast`).
Groups are joined through the alias server at FFFFF8 (:mod:`fcsim.fc3.alias`);
a fabric's switches route alias addresses through
:mod:`fcsim.fc3.alias_router`, which :mod:`fcsim.fc3.build` builds and plugs
into them. docs/fc3.md describes the model and its sources.
"""
