"""Drawings of a scenario's network (``fcsim topology FILE``, the run report's
picture): a network vertex by vertex (:mod:`fcsim.drawing.topology`), a large
fabric as its overview (:mod:`fcsim.drawing.overview`). They read the loaded
scenario, so they sit above :mod:`fcsim.scenario`."""
