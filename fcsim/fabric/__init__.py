"""Switched fabrics: switches, their ports, routing and fabric services."""
