"""Drawings of a scenario's network (``fcsim topology FILE``, the run report's
picture): a network vertex by vertex (:mod:`fcsim.drawing.topology`), a large
fabric as its overview (:mod:`fcsim.drawing.overview`). They read the loaded
scenario, so they sit above :mod:`fcsim.scenario`."""

FORMATS = (".png", ".svg")
"""File suffixes :func:`fcsim.drawing.topology.draw_topology` can write (here,
apart from the drawing code, so that checking a file name loads no matplotlib)."""
