"""Myrinet beside Fibre Channel and Ethernet, on the same link machinery
(:mod:`fcsim.link`): source-routed packets, ports with stop/go flow control
and receive slack buffers, cut-through crossbar switches, and LANai NICs
carrying a host's IP (see ``docs/myrinet.md``)."""
