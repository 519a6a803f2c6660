"""Builds the solver's optional compiled core; everything else is in pyproject.toml.

Without a C compiler the install still succeeds (``optional=True``) and the
solver runs its pure-Python search.

With gcc the core is built guided by a profile: once instrumented, trained
by solving a few deals (``ccore/train.py``), and again with what that run
counted. The solver then enters 5-9% more positions a second
(docs/winnability.md, "Changes measured"). If any step fails the core is
built the plain way, and ``TERRACE_PROFILE=0`` asks for that at once.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CORE = "src/terrace/solver/ccore/"
TRAINING = os.path.join(os.path.dirname(os.path.abspath(__file__)), CORE, "train.py")
TRAINING_SECONDS = 300
"""The training run normally takes a few seconds; past this it is stopped and
the core is built without a profile."""


class ProfiledBuild(build_ext):
    """Builds the compiled core guided by a profile when the compiler is gcc."""

    def build_extension(self, ext: Extension) -> None:
        self.force = True  # every build compiles every source again
        if os.environ.get("TERRACE_PROFILE", "1") != "0" and self._compiler_is_gcc():
            plain = (list(ext.extra_compile_args), list(ext.extra_link_args), list(ext.define_macros))
            try:
                with tempfile.TemporaryDirectory() as profile:
                    self._profiled(ext, profile, *plain)
                return
            except Exception as error:  # any failure: the plain build below
                print(f"terrace: the profile-guided build failed ({error}); "
                      "building the core without a profile", file=sys.stderr)
            finally:
                ext.extra_compile_args, ext.extra_link_args, ext.define_macros = plain
        super().build_extension(ext)

    def _profiled(self, ext: Extension, profile: str, compile_args: list[str], link_args: list[str],
                  macros: list[tuple[str, str | None]]) -> None:
        """The instrumented build, the training run, the build with the
        profile (``compile_args`` and the rest: the plain build's)."""
        ext.extra_compile_args = [*compile_args, f"-fprofile-generate={profile}"]
        ext.extra_link_args = [*link_args, f"-fprofile-generate={profile}"]
        super().build_extension(ext)
        subprocess.run([sys.executable, TRAINING, self.get_ext_fullpath(ext.name)], check=True,
                       timeout=TRAINING_SECONDS, stdout=subprocess.DEVNULL)
        if not any(name.endswith(".gcda") for _, _, names in os.walk(profile) for name in names):
            raise RuntimeError("the training run wrote no profile")
        # (-fno-vpt: no test whether the hunters' shuffle divides by a power of two before its %,
        # a branch mispredicted as often as the moves' count changes)
        ext.extra_compile_args = [*compile_args, f"-fprofile-use={profile}", "-fprofile-partial-training",
                                  "-fno-vpt", "-Wno-missing-profile"]
        ext.extra_link_args = link_args
        ext.define_macros = [*macros, ("TERRACE_PROFILED", "1")]
        super().build_extension(ext)

    def _compiler_is_gcc(self) -> bool:
        command = getattr(self.compiler, "compiler_so", None)
        if not command:
            return False
        try:
            version = subprocess.run([command[0], "--version"], capture_output=True, text=True,
                                     timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return False
        return "Free Software Foundation" in version


setup(
    cmdclass={"build_ext": ProfiledBuild},
    ext_modules=[
        Extension(
            "terrace.solver._core",
            [CORE + name for name in ("memory.c", "tables.c", "schedule.c", "reach.c", "search.c", "hunter.c",
                                      "beam.c", "nested.c", "nrpa.c", "lds.c", "hunt.c", "module.c")],
            depends=[CORE + name for name in ("core.h", "state.h", "keyset.h", "memory.h", "tables.h",
                                              "schedule.h", "reach.h", "search.h", "loop.h", "hunter.h",
                                              "beam.h", "nested.h", "nrpa.h", "lds.h", "rollout.h", "hunt.h",
                                              "train.py")],
            extra_compile_args=["-O3", "-Wall"],
            libraries=["m"],  # exp() of the policy-learning hunter (nrpa.c)
            optional=True,
        )
    ],
)
