"""The flow-level (fluid) model of a fabric: steady rates of saturating
Class 3 streams, max-min fair under the round robin of the switch outputs,
over the paths the switches' routing gives
(:mod:`fcsim.flow.model`; where the round robin's levels do not settle,
the steady rates of the queues' fluid dynamics, :mod:`fcsim.flow.fluid`),
for capacity planning at sizes the packet model cannot reach, and as an
oracle for it. It reads the fabric's topology and routing and never the
packet model's simulation objects; nothing below imports it."""
