"""fcsim: a discrete-event simulator for Fibre Channel links, loops and fabrics.

The package mirrors the Fibre Channel layers: :mod:`fcsim.fc0` (speeds and
cables), :mod:`fcsim.fc1` (8b/10b code and ordered sets), :mod:`fcsim.fc2`
(frames, sequences, exchanges, credit and classes of service). Each other
technology has its package, with its builder beside its model (as
:mod:`fcsim.ethernet.build`); a built network's containers are
:mod:`fcsim.topology`'s, traffic sources are in :mod:`fcsim.workload`,
result collection in :mod:`fcsim.stats`, trace writers in :mod:`fcsim.trace`
and scenario files in :mod:`fcsim.scenario`.

All quantities inside the package are SI: seconds, bytes, bits/s and baud.
"""

__version__ = "0.1.0"
