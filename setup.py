"""Builds the Cython extensions of accy's IR core (everything else is in pyproject.toml)."""
from Cython.Build import cythonize
from setuptools import Extension, setup

CORE = ["context", "text", "verify", "analysis", "rewrite", "cse"]

extensions = [
    Extension(f"accy._core.{name}", [f"accy/_core/{name}.pyx"], extra_compile_args=["-O2"])
    for name in CORE
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={"language_level": 3, "embedsignature": True},
        nthreads=2,
    ),
)
