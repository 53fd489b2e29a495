"""The tables of a scenario file as typed models: one module per table
(``run``, ``nodes``, ``links`` and ``switches``, ``loop``, ``workloads`` and
the application workloads in ``apps``), joined in ``document``."""
