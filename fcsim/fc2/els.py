"""Extended link services and generic services: codes and payload sizes.

Sources: Linux ``fc_els.h`` and ``fc_ns.h`` (ELS command codes; FLOGI/PLOGI
payload of 116 bytes: command, common service parameters, port and node
names, three class parameter blocks, vendor version; SCR of 8 bytes and RSCN
pages of 4), FC-GS (CT_IU preamble of 16 bytes; GID_FT request and accept).
"""

from __future__ import annotations

ELS_LS_RJT = 0x01
"""Link Service Reject (FC-LS-5)."""
ELS_ACC = 0x02
ELS_PLOGI = 0x03
ELS_FLOGI = 0x04
ELS_FDISC = 0x51
"""Discover F_Port Service Parameters (FC-LS-5): after the FLOGI, a login for
a further N_Port ID behind the same port (NPIV), sent with S_ID 0."""
ELS_RSCN = 0x61
"""Registered State Change Notification (FC-LS), from the fabric controller."""
ELS_SCR = 0x62
"""State Change Registration (FC-LS), to the fabric controller."""

LS_RJT_UNABLE = 0x09
"""LS_RJT reason: unable to perform command request (FC-LS-5)."""
LS_RJT_NO_RESOURCES = 0x29
"""LS_RJT explanation: insufficient resources (FC-LS-5), as a switch answers an
FDISC past its port's NPIV login limit."""

LOGIN_PAYLOAD = 116
"""FLOGI, PLOGI and their ACC: service parameter payload, bytes."""
SCR_FULL = 3
"""SCR registration function: every state change (fabric-detected and N_Port-detected)."""

CT_PREAMBLE = 16
"""Common Transport IU preamble (revision, GS type, command code, size), bytes."""
CT_GID_FT = 0x0171
"""Name server command: get port identifiers of an FC-4 type."""
CT_RFT_ID = 0x0217
"""Name server command: register the FC-4 TYPEs of a port (FC-GS-7 5.2.5)."""
FC4_TYPES_SIZE = 32
"""The FC-4 TYPEs bitmap of RFT_ID: 8 words, TYPE t at bit t mod 32 of word
t div 32 (FC-GS-7; Linux ``struct fc_ns_fts``)."""
GID_FT_ENTRY = 4
"""Bytes per port in a GID_FT accept (control byte and 3-byte N_Port ID)."""
