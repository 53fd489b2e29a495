"""Typed TOML files: the value types (``fields``), the table model every file
section derives from (``section``) and one-line problems (``errors``), shared
by scenario files (:mod:`fcsim.scenario`) and device model files
(:mod:`fcsim.catalog`)."""
