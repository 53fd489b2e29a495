"""The simulation engine: clock and event heap (SimPy), random streams, tracing."""

from fcsim.engine.simulation import Simulation

__all__ = ["Simulation"]
