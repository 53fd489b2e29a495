"""The arbitrated loop (FC-AL): up to 126 NL_Ports and one FL_Port on a ring.

Modules, each named for what it models:

- :mod:`~fcsim.loop.al_pa`: the 127 AL_PA values, their priority, address assignment;
- :mod:`~fcsim.loop.ring`: ring geometry (repeat delays, cables, path delays);
- :mod:`~fcsim.loop.arbitration`: which ARB completes its circuit first, and when;
- :mod:`~fcsim.loop.initialisation`: the timed LIP, LISM, LIFA..LISA, LIRP/LILP, CLS;
- :mod:`~fcsim.loop.circuit`: one loop circuit (tenancy): its two ports and the path between;
- :mod:`~fcsim.loop.lport`: the L_Port transmitter and receiver inside a loop circuit;
- :mod:`~fcsim.loop.loop`: the loop itself: arbitration, tenancies, fairness, LIP;
- :mod:`~fcsim.loop.config`: the ``[loop]`` table and the ring and loop ports as typed values;
- :mod:`~fcsim.loop.build`: ``build_loop`` and the results of a loop network.

The package imports nothing at this level, and nothing of :mod:`fcsim.scenario`:
the scenario reads its sections from :mod:`fcsim.loop.config`.
"""
