"""Where libaccyrt, accy's C runtime, lies once accy is installed: the folder of its header
(accyrt.h) and the shared library setup.py builds into the package, for C programs to compile
and link against (docs/runtime.md).

    cc app.c -I$(python -c 'import accy; print(accy.get_include())') ...
    cc app.c $(accy config --cflags --libs) -o app
"""
import os

from accy.errors import AccyError

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libaccyrt")
LIBRARY = "libaccyrt.so"


class LibraryMissing(AccyError):
    """libaccyrt.so is not in the package: accy was not built from its sources (pip install)."""


def get_include():
    """The folder that holds accyrt.h."""
    return FOLDER


def get_library():
    """The path of libaccyrt.so; LibraryMissing when it was not built."""
    path = os.path.join(FOLDER, LIBRARY)
    if not os.path.isfile(path):
        raise LibraryMissing(f"libaccyrt is not built ({path} is missing): install accy with "
                             f"pip (pip install . or pip install -e .), which builds it with "
                             f"the C compiler")
    return path


def config_flags(cflags=True, libs=True):
    """The compiler flags of `accy config`: -I for the header, then -L, -l and an rpath for
    the library."""
    flags = []
    if cflags:
        flags.append(f"-I{get_include()}")
    if libs:
        folder = os.path.dirname(get_library())
        flags += [f"-L{folder}", "-laccyrt", f"-Wl,-rpath,{folder}"]
    return " ".join(flags)
