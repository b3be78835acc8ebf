"""Build the Cython extensions; metadata lives in pyproject.toml.

BARCELONA_DEBUG=1 turns on bounds checks and writes the annotated HTML (cython -a) next to the sources.
"""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("BARCELONA_DEBUG") == "1"
MOD_NAMES = ["barcelona_ai.core", "barcelona_ai.learned.evaluation", "barcelona_ai.learned.turn_policy",
             "barcelona_ai.search.tree"]

extensions = [
    Extension(name, [name.replace(".", "/") + ".pyx"],
              extra_compile_args=["-O3"] + (["-UNDEBUG"] if DEBUG else ["-DNDEBUG"]))
    for name in MOD_NAMES
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": DEBUG,
            "wraparound": DEBUG,
            "initializedcheck": DEBUG,
            "cdivision": True,
            "embedsignature": True,
        },
        annotate=DEBUG,
    ),
)
