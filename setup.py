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
            [CORE + "tables.c", CORE + "search.c", CORE + "beam.c", CORE + "nested.c", CORE + "module.c"],
            depends=[CORE + "core.h", CORE + "state.h", CORE + "keyset.h"],
            extra_compile_args=["-O3", "-Wall"],
            optional=True,
        )
    ]
)
