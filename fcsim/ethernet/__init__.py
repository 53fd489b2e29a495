"""Ethernet beside Fibre Channel, on the same link machinery (:mod:`fcsim.link`):
frames (IEEE 802.3, 802.1Q), ports, NICs carrying a host's IP, and switches."""
