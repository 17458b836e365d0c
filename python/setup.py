"""Builds the crowdsteer extension against the C library of this repository.

CMake builds the static libcrowdsteer exactly as the project builds it (every
SIMD backend compiled with its own ISA flags, run-time dispatch, OpenMP,
position-independent code), and the extension links it, so a Python user gets
the same kernels, and the same bits, as a C user on the same CPU.

Environment: CROWDSTEER_CMAKE_ARGS adds CMake options (for example
-DCROWDSTEER_SIMD=OFF); CROWDSTEER_CMAKE_BUILD_DIR moves the library's build;
CROWDSTEER_LIBRARY_DIR names a build directory whose static libcrowdsteer.a
(position-independent, as the project always builds it) and crowdsteer.pc
are linked as they are, with no CMake run (python/run-tests passes the
release preset's, so the library is compiled once for C and Python).
"""
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
HEADER = REPO / "include" / "crowdsteer.h"


def library_version():
    text = HEADER.read_text()
    parts = [re.search(r"#define CROWDSTEER_VERSION_%s (\d+)" % p, text).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def library_link_flags(pc_file):
    """The static library's own link flags (libm, OpenMP) from its .pc file:
    its Libs and Libs.private lines without the library itself."""
    flags = []
    for line in pc_file.read_text().splitlines():
        if line.startswith(("Libs:", "Libs.private:")):
            flags += [f for f in shlex.split(line.split(":", 1)[1])
                      if not f.startswith("-L") and f != "-lcrowdsteer"]
    return flags


class BuildWithCMake(build_ext):
    """build_ext that first builds libcrowdsteer.a with the project's CMake."""

    def run(self):
        if not HEADER.is_file():
            raise RuntimeError("crowdsteer's Python package builds from the crowdsteer "
                               "repository: %s is missing" % HEADER)
        prebuilt = os.environ.get("CROWDSTEER_LIBRARY_DIR")
        build_dir = Path(prebuilt or os.environ.get("CROWDSTEER_CMAKE_BUILD_DIR",
                                                    HERE / "build" / "libcrowdsteer"))
        if prebuilt:
            for name in ("libcrowdsteer.a", "crowdsteer.pc"):
                if not (build_dir / name).is_file():
                    raise RuntimeError("CROWDSTEER_LIBRARY_DIR=%s has no %s: build the "
                                       "crowdsteer target there first" % (prebuilt, name))
        else:
            self.build_library(build_dir)
        library = build_dir / "libcrowdsteer.a"
        for ext in self.extensions:
            ext.extra_objects = [str(library)]
            ext.depends = ext.depends + [str(library), str(HEADER)]
            # The library's symbols stay inside the extension.
            ext.extra_link_args = (library_link_flags(build_dir / "crowdsteer.pc")
                                   + ["-Wl,--exclude-libs,ALL"])
        # A few small sources: always rebuild, so changed link flags take effect.
        self.force = True
        super().run()

    @staticmethod
    def build_library(build_dir):
        configure = ["cmake", "-S", str(REPO), "-B", str(build_dir),
                     "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF",
                     "-DCROWDSTEER_BUILD_TESTS=OFF", "-DCROWDSTEER_BUILD_DEMO=OFF",
                     "-DCROWDSTEER_BUILD_BENCHMARKS=OFF"]
        if shutil.which("ninja") and not (build_dir / "CMakeCache.txt").exists():
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("CROWDSTEER_CMAKE_ARGS", ""))
        subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target",
                               "crowdsteer"])


# The extension's C files, one per concern (_crowdsteer.h lists them); they
# share names through that header, hidden from every other library in the
# process (only PyInit__crowdsteer is exported).
EXTENSION_SOURCES = ["src/crowdsteer/_crowdsteer%s.c" % part
                     for part in ("", "_numbers", "_arrays", "_params", "_grid",
                                  "_behaviours", "_step", "_avoid", "_nav", "_path")]

setup(
    version=library_version(),
    ext_modules=[Extension(
        "crowdsteer._crowdsteer",
        sources=EXTENSION_SOURCES,
        depends=["src/crowdsteer/_crowdsteer.h"],
        include_dirs=[str(REPO / "include"), numpy.get_include()],
        define_macros=[("CROWDSTEER_STATIC_DEFINE", None)],
        extra_compile_args=["-Wall", "-Wno-missing-field-initializers",
                            "-fvisibility=hidden"],
    )],
    cmdclass={"build_ext": BuildWithCMake},
)
