"""Results collected while a simulation runs."""
