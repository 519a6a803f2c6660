"""Builds the solver's optional compiled core; everything else is in pyproject.toml.

Without a C compiler the install still succeeds (``optional=True``) and the
solver runs its pure-Python search.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "terrace.solver._core",
            ["src/terrace/solver/_core.c"],
            extra_compile_args=["-O2", "-Wall"],
            optional=True,
        )
    ]
)
