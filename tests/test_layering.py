"""The layering of the accy package, read from its source: no import circle among its modules,
and no accy module imported inside a function or class body except the few lazy imports listed
in LAZY_IMPORTS.

Every module is read without being imported: a .py file with `ast`, a .pyx or .pxd file (a .pxd
belongs to the module of the same name) with Python's tokenizer, which reads Cython's
statements as logical lines and its strings and comments as such, so that an import spread over
parenthesized lines counts and a word "import" in a docstring does not. An import names the
module it loads: `import accy.x.y` and `from accy.x.y import name` name accy.x.y (the longest
dotted prefix that is a module), `from accy.x import y` names accy.x.y when that is a module
and the package accy.x (its __init__) otherwise.
"""
import ast
import io
import pathlib
import tokenize
from collections import namedtuple

SOURCE = pathlib.Path(__file__).resolve().parent.parent / "accy"

# Imports of accy modules that may sit in a function body, by importing module: the module's
# entries (ANY: all of them) or a set of the modules it may import there. Only a lazy load of an
# optional or heavy piece belongs here, never an import moved into a function to break a circle.
ANY = "any accy module"
LAZY_IMPORTS = {
    # the command line: each command imports what it runs (the planner and the lowering, the
    # reference interpreter, the bundled model), so that `accy opt` and a usage error start
    # without them
    "accy.__main__": ANY,
    # the PTX emulator (an interpreter of the whole instruction set) loads only when a program
    # runs on the emulator device
    "accy.runtime.devices": {"accy.runtime.emulator.driver"},
}

Import = namedtuple("Import", "importer imported line local")


def module_files(root=SOURCE):
    """{dotted module name: [its source files]} for every .py, .pyx and .pxd under `root`
    (a package is named by its directory, for its __init__)."""
    files = {}
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxd"):
            continue
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files.setdefault(".".join(parts), []).append(path)
    return files


def absolute(module, path, level, name):
    """The absolute module name of `from <level dots><name> import ...` in `module`."""
    if not level:
        return name
    package = module.split(".") if path.stem == "__init__" else module.split(".")[:-1]
    base = package[:len(package) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def py_imports(module, path):
    """(absolute name, imported names (for `from`), line, inside a def or class) of each import
    statement of a .py file."""
    found = []

    def visit(node, local):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.extend((a.name, (), child.lineno, local) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                found.append((absolute(module, path, child.level, child.module or ""),
                              tuple(a.name for a in child.names), child.lineno, local))
            visit(child, local or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), False)
    return found


def logical_lines(text):
    """(first line number, indentation column, words) of each logical line of Python or
    Cython source; strings and comments are left out of the words."""
    words, start, column = [], None, 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if words:
                yield start, column, words
            words, start = [], None
        elif tok.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER):
            if start is None:
                start, column = tok.start
            words.append(tok.string)


def opens_scope(words):
    """Whether a logical line is the header of a function or class body (def, cdef/cpdef
    functions, class, cdef class); `cdef extern from ...:` and plain blocks are not."""
    if words[-1] != ":":
        return False
    first = words[0]
    return first in ("def", "cpdef", "class", "async") or (first == "cdef" and words[1] != "extern")


def pyx_imports(module, path):
    """The imports of a .pyx or .pxd file, as py_imports gives them; a statement is local when
    an enclosing block (by indentation) is a function or class body."""
    found, blocks = [], []        # blocks: (column of a header, opens a scope) enclosing a line
    for line, column, words in logical_lines(path.read_text(encoding="utf-8")):
        while blocks and blocks[-1][0] >= column:
            blocks.pop()
        local = any(scope for _, scope in blocks)
        if words[0] in ("import", "cimport"):
            found += [(name, (), line, local) for name in import_names(words[1:])]
        elif words[0] == "from" and ("import" in words or "cimport" in words):
            keyword = words.index("import") if "import" in words else words.index("cimport")
            dotted = "".join(words[1:keyword])
            level = len(dotted) - len(dotted.lstrip("."))
            found.append((absolute(module, path, level, dotted.lstrip(".")),
                          tuple(import_names(words[keyword + 1:])), line, local))
        if words[-1] == ":":
            blocks.append((column, opens_scope(words)))
    return found


def import_names(words):
    """The names of `a.b as c, d` or `(a, b as c)`: ['a.b', 'd'] and ['a', 'b']."""
    names, current = [], []
    for word in words + [","]:
        if word == ",":
            if current:
                names.append("".join(current[:current.index("as")] if "as" in current
                                     else current))
            current = []
        elif word not in ("(", ")"):
            current.append(word)
    return names


def resolve(name, modules):
    """The longest dotted prefix of `name` that is a module, or None."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def accy_imports(root=SOURCE):
    """Every import of an accy module by an accy module of the package at `root`, as Import
    records (an import of a module by itself, as a package's __init__ may name it, left out)."""
    files = module_files(root)
    imports = []
    for module, paths in files.items():
        for path in paths:
            scan = py_imports if path.suffix == ".py" else pyx_imports
            for name, names, line, local in scan(module, path):
                if name != "accy" and not name.startswith("accy."):
                    continue
                targets = [f"{name}.{n}" for n in names if f"{name}.{n}" in files]
                if not targets:
                    targets = [resolve(name, files)]
                where = f"{path.relative_to(root.parent)}:{line}"
                imports += [Import(module, t, where, local) for t in targets
                            if t is not None and t != module]
    return imports


def import_graph(imports):
    graph = {}
    for i in imports:
        graph.setdefault(i.importer, set()).add(i.imported)
    return graph


def strongly_connected(graph):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def shortest_cycle(graph, component):
    """A shortest import cycle through the first module of `component`, as a list of modules
    that starts and ends with it (breadth first, inside the component)."""
    start, inside = component[0], set(component)
    parents, frontier = {start: None}, [start]
    while frontier:
        following = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w == start:
                    path = []
                    while v is not None:
                        path.append(v)
                        v = parents[v]
                    return path[::-1] + [start]
                if w in inside and w not in parents:
                    parents[w] = v
                    following.append(w)
        frontier = following
    raise AssertionError(f"{component} is not strongly connected")


def lazy_import_allowed(i):
    allowed = LAZY_IMPORTS.get(i.importer)
    return allowed is ANY or (allowed is not None and i.imported in allowed)


# ---- the tests ----------------------------------------------------------------------------------

def test_no_import_cycles():
    """No accy module imports one that imports it back, directly or through others. A failure
    names each circle's modules and one shortest cycle among them, with the import lines."""
    imports = accy_imports()
    graph = import_graph(imports)
    where = {(i.importer, i.imported): i.line for i in imports}
    report = []
    for component in strongly_connected(graph):
        cycle = shortest_cycle(graph, component)
        report.append(f"  {len(component)} modules in a circle: {', '.join(component)}\n"
                      f"    e.g. {' -> '.join(cycle)}\n"
                      + "".join(f"      {a} -> {b} at {where[a, b]}\n"
                                for a, b in zip(cycle, cycle[1:])))
    assert not report, "import cycles among accy modules:\n" + "".join(report)


def test_no_imports_inside_functions():
    local = [i for i in accy_imports() if i.local and not lazy_import_allowed(i)]
    assert not local, "accy modules imported inside a function or class body (import them at " \
        "the top, or list a lazy load of a heavy piece in LAZY_IMPORTS):\n" + "\n".join(
            f"  {i.line}: {i.importer} -> {i.imported}" for i in local)


def test_lazy_imports_are_all_still_made():
    """Every module and import LAZY_IMPORTS names still exists: a stale entry would allow an
    import nobody reviewed."""
    made = {(i.importer, i.imported) for i in accy_imports() if i.local}
    for importer, allowed in LAZY_IMPORTS.items():
        if allowed is ANY:
            assert any(m == importer for m, _ in made), importer
        else:
            for imported in allowed:
                assert (importer, imported) in made, f"{importer} -> {imported}"


# ---- the scan itself, on small sources ------------------------------------------------------

def scan_source(tmp_path, files):
    """accy_imports of a package made of `files` ({relative path: text}) under tmp_path/accy."""
    for name, text in files.items():
        path = tmp_path / "accy" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return {(i.importer, i.imported, i.local) for i in accy_imports(tmp_path / "accy")}


def test_scan_resolves_modules_packages_and_relative_imports(tmp_path):
    found = scan_source(tmp_path, {
        "__init__.py": "from accy import pkg\n",
        "pkg/__init__.py": "from .mod import f\n",
        "pkg/mod.py": "import accy.other as o\nfrom accy.pkg import sub, name\n"
                      "def f():\n    from accy import other\n",
        "pkg/sub.py": "from . import mod\nfrom .. import other\nimport numpy\n",
        "other.py": "'''from accy.pkg import mod'''\nclass C:\n    import accy.pkg.sub\n",
    })
    assert found == {
        ("accy", "accy.pkg", False), ("accy.pkg", "accy.pkg.mod", False),
        ("accy.pkg.mod", "accy.other", False), ("accy.pkg.mod", "accy.pkg.sub", False),
        ("accy.pkg.mod", "accy.other", True), ("accy.pkg.sub", "accy.pkg.mod", False),
        ("accy.pkg.sub", "accy.other", False), ("accy.other", "accy.pkg.sub", True)}


def test_scan_reads_cython_statements(tmp_path):
    found = scan_source(tmp_path, {
        "a.pyx": ('"""Docstring:\nfrom accy import b\n"""\n'
                  "from libc.stdint cimport int32_t\n"
                  "from accy.b cimport (X,\n    Y)\n"
                  "cimport accy.c\n"
                  "cdef extern from \"h.h\":\n    int g(int)\n"
                  "if True:\n    import accy.d  # module level\n"
                  "cdef class K:\n    cdef int x\n    def m(self):\n"
                  "        from accy.e import f  # in a method\n"
                  "cdef inline int h(int x) nogil:\n    return x\n"
                  "def late():\n    from accy import c\n"),
        "b.pxd": "from accy.c cimport Z\n",
        "b.pyx": "x = 1\n", "c.py": "", "d.py": "", "e.py": "",
    })
    assert found == {("accy.a", "accy.b", False), ("accy.a", "accy.c", False),
                     ("accy.a", "accy.d", False), ("accy.a", "accy.e", True),
                     ("accy.a", "accy.c", True), ("accy.b", "accy.c", False)}


def test_cycles_are_named_by_a_shortest_path():
    graph = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"a"}}
    (component,) = strongly_connected(graph)
    assert component == ["a", "b", "c"]
    assert shortest_cycle(graph, component) == ["a", "b", "a"]
    assert strongly_connected({"a": {"b"}, "b": {"c"}}) == []
