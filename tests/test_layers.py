"""The package's layers: the top level holds the entry points, the kernel and subpackages; each subpackage imports
only the packages below it (its docstring says which), every module imports only modules of its own layer or
below, never the package ``__init__``, and there are no import cycles.

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

# The top level: the entry points, the public exceptions and version, and the rules kernel.
TOP = {"__main__", "_version", "errors", "core"}
# Subpackages, lowest first: each may import the top level and the subpackages before it (and itself), but for
# those NOT_IMPORTED names (as its docstring says). The kernel reads three modules of rules (the board data, JSON
# reading, the typed view): rules is below and above it.
PACKAGES = ["i18n", "rules", "learned", "search", "workflows", "training", "adapters", "web", "cli"]
NOT_IMPORTED = {"adapters": {"search", "workflows", "training"}, "web": {"training", "adapters"}}

# Module layers, lowest first. A module may import modules of its own layer (checked acyclic below) or lower ones.
LAYERS = [
    {"errors", "_version", "workflows.progress", "rules.geometry"},  # no dependencies (progress: tqdm only)
    {"rules.jsonio", "i18n.messages", "i18n.catalogs"},        # safe file and JSON reading; the player's language
    {"rules.tables", "rules.words", "rules.editions"},         # the board data (editions), its words
    {"rules.view"},                                            # the typed read-only view of a state
    {"core"},                                                  # the compiled rules
    {"rules.notation", "rules.position", "rules.position_fields", "rules.position_turn",  # the Python layer on
     "rules.render", "rules.record", "rules.table_setup", "rules.gamelog", "rules.perft",  # the state
     "rules.explain",
     "web.board_svg"},
    {"learned.evaluation"},                                    # the learned evaluation (features, network)
    {"learned.turn_policy"},                                   # the learned turn policy's weights
    {"search.tree"},                                           # the compiled ISMCTS
    {"learned.models", "search.settings", "search.levels"},    # the shipped model files; the search's settings, levels
    {"search.running"},                                        # one call's search (threads, budget, playouts)
    {"search.results"},                                        # its answers, read from the trees
    {"search.engine"},                                         # the engine players use
    {"search.bots", "workflows.playout", "workflows.arena", "workflows.bench", "workflows.examples",  # players,
     "adapters.openspiel_game", "adapters.pettingzoo_env", "adapters.observation",   # matches, tools, framework
     "workflows.distributed", "workflows.pacing"},             #   adapters (Ray, OpenSpiel: optional extras)
    {"workflows.selfplay", "workflows.review", "workflows.session", "workflows.standing",  # workflows (the CLI
     "training.datagen", "training.train", "training.policy_train", "training.expert_iteration",  # and the web)
     "training.refit",
     "workflows.board_editor", "web.api", "web.table_entry"},
    {"cli.args", "cli.play_guard", "cli.terminal"},            # command-line argument checks; play's terminal
    {"web.guard", "web.board_form", "web.searches"},           # the web server's request checks, board form, searches
    {"cli.analysis", "cli.play", "cli.learn", "cli.edition", "web.server"},   # the commands, the web server
    {"cli.main"},                                              # the command-line entry point
    {"__main__"},
]
LAYER = {m: i for i, layer in enumerate(LAYERS) for m in layer}
# Modules of an optional extra: importing them alone needs these libraries (skipped where one is not installed;
# pettingzoo_env imports gymnasium, pettingzoo's own dependency, first).
OPTIONAL = {"adapters.openspiel_game": ("pyspiel",), "adapters.pettingzoo_env": ("gymnasium", "pettingzoo"),
            "workflows.distributed": ("ray",), "web.server": ("starlette",), "web.guard": ("starlette",)}
# `import barcelona_ai` loads the public API: the layers up to the engine, nothing of the command line.
PUBLIC_API_LAYERS = LAYER["search.engine"]

_PYX_IMPORT = re.compile(r"^\s*(?:from\s+(\.+)([\w.]*)\s+c?import\s*\(?([\w, ]*)|c?import\s+barcelona_ai\.([\w.]+))",
                         re.M)
_PYX_PACKAGE_IMPORT = re.compile(r"^\s*(?:from\s+(?:\.|barcelona_ai)\s+c?import|c?import\s+barcelona_ai\b(?!\.))",
                                 re.M)


def _modules(pkg: Path = PKG) -> dict[str, list[Path]]:
    """Module name ("core", "search.engine") -> its source files (a Cython module has a .pyx and maybe a .pxd);
    a subpackage's __init__ is not a module here (it holds its docstring only)."""
    out: dict[str, list[Path]] = {}
    for path in sorted(pkg.rglob("*")):
        if path.suffix in (".py", ".pyx", ".pxd") and path.stem != "__init__" and "data" not in path.parts:
            name = ".".join(path.relative_to(pkg).with_suffix("").parts)
            out.setdefault(name, []).append(path)
    return out


MODULES = _modules()


def _resolve(module: str, level: int, target: str | None, names: list[str], known) -> tuple[set[str], bool]:
    """The modules an import names (`from <level dots><target> import <names>` in `module`), and whether it
    imports the package __init__ itself."""
    base = module.split(".")[:-1]                          # the importing module's package
    if level > len(base) + 1:
        return set(), True
    prefix = base[:len(base) - (level - 1)] if level > 1 else base
    dotted = ".".join(prefix + ([target] if target else []))
    if dotted in known:
        return {dotted}, False
    found = {f"{dotted}.{n}" if dotted else n for n in names}
    found = {m for m in found if m in known}
    return found, not found and not dotted


def _imports(path: Path, name: str, known=None) -> tuple[set[str], list[str]]:
    """The package modules `path` (module `name`) imports, and its imports of the package __init__ (as text)."""
    known = MODULES if known is None else known
    text = path.read_text(encoding="utf-8")
    deps: set[str] = set()
    from_init: list[str] = []
    if path.suffix != ".py":
        for level, target, names, absolute in _PYX_IMPORT.findall(text):
            if absolute:
                deps |= {absolute} & set(known)
                continue
            found, init = _resolve(name, len(level), target or None, [n.strip() for n in names.split(",")], known)
            deps |= found
        from_init = [m.group(0).strip() for m in _PYX_PACKAGE_IMPORT.finditer(text)
                     if name.count(".") == 0 or not m.group(0).strip().startswith("from .")]
        return deps, from_init
    for node in ast.walk(ast.parse(text, str(path))):
        if isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names]
            if node.level:
                found, init = _resolve(name, node.level, node.module, names, known)
            elif node.module == "barcelona_ai" or (node.module or "").startswith("barcelona_ai."):
                found, init = _resolve("x", 1, node.module.partition(".")[2] or None, names, known)
            else:
                continue
            deps |= found
            if init:
                from_init.append(ast.unparse(node))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "barcelona_ai":
                    from_init.append(ast.unparse(node))
                elif alias.name.startswith("barcelona_ai."):
                    deps |= {alias.name.partition(".")[2]} & set(known)
    return deps, from_init


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, paths in MODULES.items():
        graph[name] = set()
        for path in paths:
            graph[name] |= _imports(path, name)[0]
        graph[name].discard(name)                          # core.pyx cimports core.pxd: the same module
    return graph


def _package(module: str) -> str:
    return module.split(".")[0] if "." in module else ""


def test_the_top_level_holds_the_entry_points_the_kernel_and_subpackages():
    top = {p.name for p in PKG.iterdir() if not p.name.startswith((".", "__pycache__"))}
    modules = {n for n in MODULES if "." not in n}
    assert modules == TOP
    assert {p for p in top if (PKG / p).is_dir()} - {"data"} == set(PACKAGES)
    for package in PACKAGES:
        doc = ast.get_docstring(ast.parse((PKG / package / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "May import:" in doc, f"barcelona_ai/{package}/__init__.py says what it is for and may import"


def test_every_subpackage_imports_only_the_packages_below_it():
    graph = _graph()
    for name, deps in sorted(graph.items()):
        package = _package(name)
        if not package:
            continue
        allowed = set(PACKAGES[:PACKAGES.index(package) + 1]) - NOT_IMPORTED.get(package, set())
        above = sorted(d for d in deps if _package(d) and _package(d) not in allowed)
        assert not above, f"barcelona_ai.{name} ({package}) imports packages above it: {above}"
    assert graph["core"] <= {"errors", "rules.tables", "rules.view"}


def test_every_module_has_a_layer():
    missing = sorted(set(MODULES) - set(LAYER))
    assert not missing, f"give these modules a layer in tests/test_layers.py: {missing}"
    gone = sorted(set(LAYER) - set(MODULES))
    assert not gone, f"modules in LAYERS that no longer exist: {gone}"


def test_the_import_reader_sees_every_kind_of_import(tmp_path):
    known = {"core", "rules.tables", "search.engine", "rules.notation", "rules.render", "search.tree"}
    py = tmp_path / "m.py"
    py.write_text("from ..core import State\nimport barcelona_ai.rules.tables\nfrom barcelona_ai.search.engine "
                  "import Engine\ndef f():\n    from ..rules import notation, new_game\n    from ... import x\n"
                  "    import barcelona_ai\n    from .. import core\n")
    deps, from_init = _imports(py, "workflows.m", known)
    assert deps == {"core", "rules.tables", "search.engine", "rules.notation"}
    assert len(from_init) == 2
    pyx = tmp_path / "m.pyx"
    pyx.write_text("from libc.stdint cimport int8_t\nfrom ..core cimport (StateC,\n    GameData)\n"
                   "from ..errors import BarcelonaError\n    def f():\n"
                   "        from ..rules.render import render_state\n"
                   "cimport barcelona_ai.search.tree\nfrom . import new_game\n")
    deps, _ = _imports(pyx, "search.m", known)
    assert deps == {"core", "rules.render", "search.tree"}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_imports_only_its_layer_and_below(name):
    if name not in LAYER:
        pytest.skip("no layer (test_every_module_has_a_layer fails)")
    for path in MODULES[name]:
        deps, from_init = _imports(path, name)
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
    """The package modules an interpreter loaded (the subpackages' __init__ aside)."""
    line = next(x for x in reversed(done.stdout.splitlines()) if x.startswith("LOADED"))
    return set(line.split()[1:]) - set(PACKAGES)


def test_importing_alone_sees_what_a_module_pulls_in_and_skips_the_package_init(tmp_path):
    pkg = tmp_path / "barcelona_ai"
    (pkg / "rules").mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('the package __init__ ran')\n")
    (pkg / "rules" / "__init__.py").write_text("")
    (pkg / "rules" / "tables.py").write_text("def f():\n    return 1\n")
    (pkg / "core.py").write_text("from .rules import tables\nfrom .shell import main\n")
    (pkg / "shell.py").write_text("def main():\n    pass\n")
    done = _import_alone("core", pkg)
    assert done.returncode == 0, done.stderr
    assert _loaded(done) == {"core", "rules.tables", "shell"}


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
    assert _graph()["core"] == {"errors", "rules.tables", "rules.view"}


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=PKG.parent)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_importing_the_package_loads_the_public_api_and_nothing_of_the_command_line():
    out = _run("import barcelona_ai, sys; print(' '.join(sorted(m for m in sys.modules "
               "if m.startswith('barcelona_ai.'))))")
    loaded = {m.split(".", 1)[1] for m in out.split()} - set(PACKAGES)
    assert all(LAYER[m] <= PUBLIC_API_LAYERS for m in loaded), sorted(m for m in loaded
                                                                     if LAYER[m] > PUBLIC_API_LAYERS)
    assert {"core", "search.engine", "rules.notation", "rules.position", "rules.render"} <= loaded


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
    """Library exceptions live in errors.py; the modules that raise them import the same classes."""
    import barcelona_ai
    from barcelona_ai import errors
    from barcelona_ai.rules import record
    from barcelona_ai.search import engine
    assert engine.SearchError is errors.SearchError
    assert record.InvalidRecordError is errors.InvalidRecordError
    for name in barcelona_ai.__all__:
        obj = getattr(barcelona_ai, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            assert obj.__module__ == "barcelona_ai.errors", name
    for path in PKG.rglob("*.py"):
        if path.stem == "errors" or "cli" in path.relative_to(PKG).parts:
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
