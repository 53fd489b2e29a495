"""Hosts: processors, I/O buses and Fibre Channel host adapters."""
