"""The ``kzc`` command line: one module per command group, each a thin layer over ``core``."""
