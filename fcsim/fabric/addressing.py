"""Fabric addresses: N_Port IDs of the form domain / area / port, and
well-known addresses (FC-FS; Linux ``fc_fs.h``; fact sheet section 3.7)."""

from __future__ import annotations

FABRIC_LOGIN = 0xFFFFFE
"""Well-known address of the fabric login server (FLOGI goes here)."""
FABRIC_CONTROLLER = 0xFFFFFD
"""Well-known address of the fabric controller."""
NAME_SERVER = 0xFFFFFC
"""Well-known address of the directory (name) server."""
ALIAS_SERVER = 0xFFFFF8
"""Well-known address of the alias server (FC-PH-2; Linux ``FC_FID_ALIASES``)."""

DOMAIN_CONTROLLERS = 0xFFFC
"""The top 16 bits of a domain controller's address, FFFC00 + domain (FC-SW-7):
switches send each other SW_RSCNs there."""

WELL_KNOWN_LOW = 0xFFFFF0
"""Addresses from here up are well-known fabric services."""

MIN_DOMAIN, MAX_DOMAIN = 1, 239


def port_id(domain: int, area: int, port: int = 0) -> int:
    """The 24-bit N_Port ID of *domain* (1..239), *area* and *port* (0..255)."""
    if not MIN_DOMAIN <= domain <= MAX_DOMAIN:
        raise ValueError(f"domain must be {MIN_DOMAIN}..{MAX_DOMAIN}, got {domain}")
    if not (0 <= area <= 255 and 0 <= port <= 255):
        raise ValueError(f"area and port must be 0..255, got {area}, {port}")
    return domain << 16 | area << 8 | port


def domain_of(n_port_id: int) -> int:
    """The domain (switch) of an N_Port ID."""
    return n_port_id >> 16


def area_of(n_port_id: int) -> int:
    """The area (switch port) of an N_Port ID."""
    return n_port_id >> 8 & 0xFF



def domain_controller(domain: int) -> int:
    """The address of the domain controller of *domain* (FFFC00 + domain, FC-SW-7)."""
    return DOMAIN_CONTROLLERS << 8 | domain
