"""Block storage: mechanical disks, RAM disks and disk arrays behind FCP
targets, and disk channels with a node's local disks. Its scenario tables
(channels, block layer, fio and dd jobs) and their typed values are
:mod:`fcsim.storage.config`'s, its checks across keys
:mod:`fcsim.storage.checks`'s, and :mod:`fcsim.storage.build` builds a
scenario's storage side (targets, request queues, initiators, the jobs run by
:mod:`fcsim.workload.fio`); none imports :mod:`fcsim.scenario`."""
