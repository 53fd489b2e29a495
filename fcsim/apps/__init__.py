"""Applications of the measurement literature, run on simulated hosts."""
