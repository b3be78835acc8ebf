"""The package's layers: every module imports only modules of its own layer or below, never the package
``__init__``, and there are no import cycles (the design is in barcelona_ai/__init__.py and core.pyx).

Imports are read statically (``ast`` for .py, including imports inside functions; a regex for the Cython
.pyx/.pxd files), and checked by running them: each module is imported alone in a fresh interpreter, under a bare
package (importing a submodule normally runs the package ``__init__`` first, which imports the public API), and
every package module it pulls in must be of its layer or below. A new module must be given a layer here.
"""
import ast
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "barcelona_ai"

# Lowest first. A module may import modules of its own layer (checked acyclic below) or of lower layers.
LAYERS = [
    {"errors", "_version", "progress"},                        # no dependencies (progress: tqdm only)
    {"jsonio"},                                                # safe file and JSON reading
    {"tables"},                                                # the board data (editions)
    {"view"},                                                  # the typed read-only view of a state
    {"core"},                                                  # the compiled rules
    {"notation", "position", "render", "board_svg", "record", "table_setup",  # the Python layer
     "gamelog"},                                               #   on the state
    {"evaluation"},                                            # the learned evaluation (features, network)
    {"search"},                                                # the compiled ISMCTS
    {"models", "settings"},                                    # the shipped model files; the search's settings
    {"engine"},                                                # the engine players use
    {"bots", "playout", "arena", "bench", "perft", "examples",  # players, matches, tools
     "openspiel_game", "pettingzoo_env", "observation",        # (framework adapters, their observation
     "distributed"},                                           #  encoding; Ray: optional extras)
    {"selfplay", "review", "session", "datagen", "train", "policy_train",  # workflows (the CLI and web page)
     "expert_iteration", "standing", "webapi"},
    {"cli_args"},                                              # command-line argument checks
    {"cli_analysis", "play", "cli_learn", "web"},              # the command-line commands, the web server
    {"cli"},                                                   # the command-line entry point
    {"__main__"},
]
LAYER = {m: i for i, layer in enumerate(LAYERS) for m in layer}
# Modules of an optional extra: importing them alone needs these libraries (skipped where one is not installed;
# pettingzoo_env imports gymnasium, pettingzoo's own dependency, first).
OPTIONAL = {"openspiel_game": ("pyspiel",), "pettingzoo_env": ("gymnasium", "pettingzoo"), "distributed": ("ray",),
            "web": ("starlette",)}
# `import barcelona_ai` loads the public API: the layers up to the engine, nothing of the command line.
PUBLIC_API_LAYERS = LAYER["engine"]

_PYX_IMPORT = re.compile(r"^\s*(?:from\s+(?:\.|barcelona_ai\.)(\w+)\s+c?import|c?import\s+barcelona_ai\.(\w+))",
                         re.M)
_PYX_PACKAGE_IMPORT = re.compile(r"^\s*(?:from\s+(?:\.|barcelona_ai)\s+c?import|c?import\s+barcelona_ai\b(?!\.))",
                                 re.M)


def _modules() -> dict[str, list[Path]]:
    """Module name -> its source files (a Cython module has a .pyx and maybe a .pxd)."""
    out: dict[str, list[Path]] = {}
    for path in sorted(PKG.iterdir()):
        if path.suffix in (".py", ".pyx", ".pxd") and path.stem != "__init__":
            out.setdefault(path.stem, []).append(path)
    return out


MODULES = _modules()


def _imports(path: Path) -> tuple[set[str], list[str]]:
    """The package modules `path` imports, and its imports of the package __init__ itself (as source text)."""
    text = path.read_text(encoding="utf-8")
    deps: set[str] = set()
    from_init: list[str] = []
    if path.suffix != ".py":
        deps = {a or b for a, b in _PYX_IMPORT.findall(text)}
        from_init = [m.group(0).strip() for m in _PYX_PACKAGE_IMPORT.finditer(text)]
        return deps, from_init
    for node in ast.walk(ast.parse(text, str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level > 1:
                from_init.append(ast.unparse(node))
                continue
            if node.level == 1:
                module = node.module
            elif node.module is not None and (node.module == "barcelona_ai" or node.module.startswith("barcelona_ai.")):
                module = node.module.partition(".")[2] or None
            else:
                continue
            if module is not None:
                deps.add(module.split(".")[0])
            else:                                          # from . import x: only submodules may be named
                for alias in node.names:
                    if alias.name in MODULES:
                        deps.add(alias.name)
                    else:
                        from_init.append(ast.unparse(node))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "barcelona_ai":
                    from_init.append(ast.unparse(node))
                elif alias.name.startswith("barcelona_ai."):
                    deps.add(alias.name.split(".")[1])
    return deps, from_init


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, paths in MODULES.items():
        graph[name] = set()
        for path in paths:
            graph[name] |= _imports(path)[0]
        graph[name].discard(name)                          # core.pyx cimports core.pxd: the same module
    return graph


def test_every_module_has_a_layer():
    missing = sorted(set(MODULES) - set(LAYER))
    assert not missing, f"give these modules a layer in tests/test_layers.py: {missing}"
    gone = sorted(set(LAYER) - set(MODULES))
    assert not gone, f"modules in LAYERS that no longer exist: {gone}"


def test_the_import_reader_sees_every_kind_of_import(tmp_path):
    py = tmp_path / "m.py"
    py.write_text("from .core import State\nimport barcelona_ai.tables\nfrom barcelona_ai.engine import Engine\n"
                  "def f():\n    from . import notation, new_game\n    from .. import x\n    import barcelona_ai\n")
    deps, from_init = _imports(py)
    assert deps == {"core", "tables", "engine", "notation"}
    assert len(from_init) == 3
    pyx = tmp_path / "m.pyx"
    pyx.write_text("from libc.stdint cimport int8_t\nfrom .core cimport (StateC,\n    GameData)\n"
                   "from .errors import BarcelonaError\n    def f():\n        from .render import render_state\n"
                   "cimport barcelona_ai.search\nfrom . import new_game\n")
    deps, from_init = _imports(pyx)
    assert deps == {"core", "errors", "render", "search"}
    assert from_init == ["from . import"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_imports_only_its_layer_and_below(name):
    if name not in LAYER:
        pytest.skip("no layer (test_every_module_has_a_layer fails)")
    for path in MODULES[name]:
        deps, from_init = _imports(path)
        assert not from_init, f"{path.name} imports from the package __init__: {from_init}"
        deps.discard(name)
        unknown = sorted(d for d in deps if d not in LAYER)
        assert not unknown, f"{path.name} imports modules that do not exist or have no layer: {unknown}"
        upward = sorted(d for d in deps if LAYER[d] > LAYER[name])
        assert not upward, f"{path.name} (layer {LAYER[name]}) imports layers above it: " + ", ".join(
            f"{d} (layer {LAYER[d]})" for d in upward)


# Run in a fresh interpreter per module: a bare module stands in for the package, so that its __init__ (which
# loads the public API) does not run, and the import of `barcelona_ai.<name>` loads only what that module needs.
# __main__ runs the command line on import: it is given --help (its SystemExit is caught).
_IMPORT_ALONE = """
import importlib, sys, types
pkg = types.ModuleType("barcelona_ai")
pkg.__path__ = [{pkg!r}]
sys.modules["barcelona_ai"] = pkg
sys.argv = ["barcelona_ai", "--help"]
try:
    importlib.import_module("barcelona_ai." + {name!r})
except SystemExit:
    pass
print("LOADED", *sorted(m.split(".", 1)[1] for m in sys.modules if m.startswith("barcelona_ai.")))
"""


def _import_alone(name: str, pkg: Path = PKG) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _IMPORT_ALONE.format(pkg=str(pkg), name=name)],
                          capture_output=True, text=True, timeout=120, cwd=pkg.parent)


def _loaded(done: subprocess.CompletedProcess) -> set[str]:
    line = next(x for x in reversed(done.stdout.splitlines()) if x.startswith("LOADED"))
    return set(line.split()[1:])


def test_importing_alone_sees_what_a_module_pulls_in_and_skips_the_package_init(tmp_path):
    pkg = tmp_path / "barcelona_ai"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise RuntimeError('the package __init__ ran')\n")
    (pkg / "tables.py").write_text("def f():\n    return 1\n")
    (pkg / "core.py").write_text("from . import tables\nfrom .cli import main\n")
    (pkg / "cli.py").write_text("def main():\n    pass\n")
    done = _import_alone("core", pkg)
    assert done.returncode == 0, done.stderr
    assert _loaded(done) == {"core", "tables", "cli"}


@pytest.fixture(scope="module")
def imported_alone() -> dict[str, subprocess.CompletedProcess]:
    """Every module with a layer, imported alone (the interpreters run side by side: the test takes seconds)."""
    names = sorted(n for n in MODULES if n in LAYER)
    with ThreadPoolExecutor(max_workers=8) as pool:
        return dict(zip(names, pool.map(_import_alone, names)))


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_imported_alone_pulls_in_only_its_layer_and_below(name, imported_alone):
    if name not in LAYER:
        pytest.skip("no layer (test_every_module_has_a_layer fails)")
    done = imported_alone[name]
    missing = [m for m in OPTIONAL.get(name, ()) if f"No module named '{m}'" in done.stderr]
    if missing:
        pytest.skip(f"{missing[0]} is not installed (optional extra)")
    assert done.returncode == 0, f"importing barcelona_ai.{name} alone fails:\n{done.stderr[-3000:]}"
    loaded = _loaded(done)
    assert name in loaded or name == "__main__"           # ended by SystemExit: Python drops it again
    unknown = sorted(m for m in loaded if m not in LAYER)
    assert not unknown, f"barcelona_ai.{name} loads modules without a layer: {unknown}"
    upward = sorted(m for m in loaded if LAYER[m] > LAYER[name])
    assert not upward, f"barcelona_ai.{name} (layer {LAYER[name]}) loads layers above it: " + ", ".join(
        f"{m} (layer {LAYER[m]})" for m in upward)


def test_no_import_cycles():
    graph = _graph()
    done: set[str] = set()

    def visit(name, path):
        if name in path:
            cycle = path[path.index(name):] + [name]
            pytest.fail("import cycle: " + " -> ".join(cycle))
        if name in done:
            return
        for dep in sorted(graph.get(name, ())):
            visit(dep, path + [name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_the_core_imports_only_errors_tables_and_view():
    """The core's State methods for notation, positions and text use registered services (core.pyx docstring)."""
    assert _graph()["core"] == {"errors", "tables", "view"}


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=PKG.parent)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_importing_the_package_loads_the_public_api_and_nothing_of_the_command_line():
    out = _run("import barcelona_ai, sys; print(' '.join(sorted(m for m in sys.modules "
               "if m.startswith('barcelona_ai.'))))")
    loaded = {m.split(".", 1)[1] for m in out.split()}
    assert all(LAYER[m] <= PUBLIC_API_LAYERS for m in loaded), sorted(m for m in loaded
                                                                     if LAYER[m] > PUBLIC_API_LAYERS)
    assert {"core", "engine", "notation", "position", "render"} <= loaded


def test_the_public_api():
    out = _run("from barcelona_ai import Engine, Limit, new_game, State, SearchSettings, __version__\n"
               "import barcelona_ai\n"
               "missing = [n for n in barcelona_ai.__all__ if not hasattr(barcelona_ai, n)]\n"
               "assert not missing, missing\n"
               "assert len(set(barcelona_ai.__all__)) == len(barcelona_ai.__all__)\n"
               "s = new_game(2, seed=3)\n"
               "assert isinstance(s, State) and Engine and Limit(iterations=1)\n"
               "print(__version__)\n")
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*\n", out)


def test_every_exception_is_defined_in_errors():
    """Library exceptions live in errors.py; the old homes re-export the same classes."""
    import barcelona_ai
    from barcelona_ai import engine, errors, record
    assert engine.SearchError is errors.SearchError
    assert record.InvalidRecordError is errors.InvalidRecordError
    for name in barcelona_ai.__all__:
        obj = getattr(barcelona_ai, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            assert obj.__module__ == "barcelona_ai.errors", name
    for path in PKG.glob("*.py"):
        if path.stem in ("errors",) or path.stem.startswith("cli") or path.stem == "play":
            continue                                       # the command line keeps its own CommandError, _Stop ...
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {ast.unparse(b) for b in node.bases}
                assert not bases & {"Exception", "BaseException", "ValueError", "KeyboardInterrupt",
                                    "BarcelonaError"}, f"{path.name}: exception {node.name} belongs in errors.py"


def test_the_text_services_are_registered():
    from barcelona_ai import core
    assert set(core._TEXT_SERVICES) == set(core.TEXT_SERVICES)
    with pytest.raises(ValueError, match="unknown text service"):
        core.register_text_services(no_such_service=print)
