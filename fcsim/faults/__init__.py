"""Faults and recovery: the fault schedule a scenario gives (``[[faults]]``),
what each fault does to the links, ports, switches and loops it strikes, and
the record of each incident (docs/faults.md)."""
