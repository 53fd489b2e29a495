"""Trace writers: libpcap files and protocol-analyzer timelines."""
