"""Builds the solver's optional compiled core; everything else is in pyproject.toml.

Without a C compiler the install still succeeds (``optional=True``) and the
solver runs its pure-Python search.
"""

from setuptools import Extension, setup

CORE = "src/terrace/solver/ccore/"

setup(
    ext_modules=[
        Extension(
            "terrace.solver._core",
            [CORE + name for name in ("memory.c", "tables.c", "schedule.c", "search.c", "beam.c",
                                      "nested.c", "hunt.c", "module.c")],
            depends=[CORE + name for name in ("core.h", "state.h", "keyset.h", "memory.h", "tables.h",
                                              "schedule.h", "search.h", "beam.h", "nested.h", "hunt.h")],
            extra_compile_args=["-O3", "-Wall"],
            optional=True,
        )
    ]
)
