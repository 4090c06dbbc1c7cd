"""Builds the Cython extensions of accy's IR core and of the fusion planner, and libaccyrt, the
C runtime (a plain shared library, no Python in it); everything else is in pyproject.toml."""
import os
import shlex
import sysconfig

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CORE = ["context", "text", "verify", "analysis", "rewrite", "cse"]
LOWERING = ["assembler", "legalize", "kl_writer"]    # the kl writer and the PTX stage's walks,
                                                    # on the IR core's records
PLANNER = ["plan_graph", "plan_judges", "plan_merge"]    # the fusion planner, on the core's records
LIBACCYRT = "accy/runtime/libaccyrt"
LIBACCYRT_SOURCES = ["status.c", "reader.c", "bundle.c", "session.c", "cuda.c"]
# C99, every warning an error, nothing exported but the API (ACCYRT_API in accyrt.h)
LIBACCYRT_FLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden",
                   "-fPIC"]


class SharedLibrary(Extension):
    """A C library built with its own flags (not Python's) and named lib<name>.so."""


class BuildExt(build_ext):
    def get_ext_filename(self, fullname):
        # called with the dotted name, and with its last part alone (get_ext_fullpath)
        for ext in self.extensions:
            if isinstance(ext, SharedLibrary) and fullname in (ext.name,
                                                               ext.name.rsplit(".", 1)[-1]):
                *package, name = fullname.split(".")
                return os.path.join(*package, f"lib{name}.so")
        return super().get_ext_filename(fullname)

    def build_extension(self, ext):
        if not isinstance(ext, SharedLibrary):
            return super().build_extension(ext)
        if self.compiler.compiler_type != "unix":
            raise RuntimeError("libaccyrt builds with a Unix C compiler (gcc or clang)")
        cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
        output = self.get_ext_fullpath(ext.name)
        inputs = ext.sources + ext.depends
        if not self.force and os.path.exists(output) and all(
                os.path.getmtime(f) <= os.path.getmtime(output) for f in inputs):
            return
        os.makedirs(os.path.dirname(output), exist_ok=True)
        build = os.path.join(self.build_temp, "libaccyrt")
        os.makedirs(build, exist_ok=True)
        objects = []
        for source in ext.sources:
            obj = os.path.join(build, os.path.basename(source)[:-2] + ".o")
            self.spawn(cc + ext.extra_compile_args + ["-c", source, "-o", obj])
            objects.append(obj)
        self.spawn(cc + ["-shared", "-o", output] + objects + ext.extra_link_args)


extensions = [
    Extension(f"accy.{package}.{name}", [f"accy/{package}/{name}.pyx"],
              extra_compile_args=["-O2"])
    for package, names in (("_core", CORE), ("passes", PLANNER), ("lowering", LOWERING))
    for name in names
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={"language_level": 3, "embedsignature": True},
        nthreads=2,
    ) + [SharedLibrary("accy.runtime.libaccyrt.accyrt",
                       [f"{LIBACCYRT}/{s}" for s in LIBACCYRT_SOURCES],
                       depends=[f"{LIBACCYRT}/accyrt.h", f"{LIBACCYRT}/internal.h"],
                       extra_compile_args=LIBACCYRT_FLAGS, extra_link_args=["-ldl"])],
    cmdclass={"build_ext": BuildExt},
)
