"""Which tests read the shared corpus, found in their source, and whether they say so.

A test that reads ../shared/corpus without the ``shared`` marker fails with a FileNotFoundError
on a clone without the corpus instead of skipping with the reason; a test marked ``shared``
that never reads it skips for nothing and drops out of the fast target. Both are found here
without running anything: a test reads the corpus when its body, its decorators, the fixtures
it asks for or the module-level names it uses (followed through other test modules) reach one
of the corpus paths of ``tests/conftest.py`` or a literal ``shared/corpus`` path. The reach is
over-estimated (any use of a name counts), so a test is never missed, at worst marked once too
often by hand; what the analysis cannot see (a path built at run time from strings) stays the
run-time skip's job."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

CORPUS_NAMES = frozenset({"SHARED", "CORPUS", "PAPERS", "DOCLING_GT", "CSL_FIXTURES"})
CORPUS_MODULE = "tests.conftest"
# where the corpus is named without being read: its definition, and this check's own code
NOT_READERS = frozenset({CORPUS_MODULE, "tests.corpus_readers"})


@dataclass
class Module:
    """One test module's top-level names: what each one reads, and the corpus aliases."""

    reads: dict[str, set[str]] = field(default_factory=dict)
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)  # alias -> (module, name)
    corpus_aliases: set[str] = field(default_factory=set)
    literal_readers: set[str] = field(default_factory=set)  # names whose code holds a path
    tests: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    marked_module: bool = False
    marked_classes: dict[str, bool] = field(default_factory=dict)  # test name -> class marked


def names_read(node: ast.AST) -> set[str]:
    """Every name the node loads or asks for as a parameter (a fixture, in a test module)."""
    found = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    for n in ast.walk(node):
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            found |= {a.arg for a in (*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs)}
    return found


def holds_corpus_literal(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and "shared/corpus" in n.value
        for n in ast.walk(node)
    )


def marks_shared(decorators: list[ast.expr]) -> bool:
    """Whether one of the decorators (or a ``pytestmark`` value) is ``pytest.mark.shared``."""
    return any(
        isinstance(n, ast.Attribute)
        and n.attr == "shared"
        and isinstance(n.value, ast.Attribute)
        and n.value.attr == "mark"
        for d in decorators
        for n in ast.walk(d)
    )


def parse(source: str) -> Module:
    module = Module()
    for statement in ast.parse(source).body:
        if isinstance(statement, ast.ImportFrom) and statement.module:
            for alias in statement.names:
                bound = alias.asname or alias.name
                module.imported[bound] = (statement.module, alias.name)
                if statement.module == CORPUS_MODULE and alias.name in CORPUS_NAMES:
                    module.corpus_aliases.add(bound)
            continue
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            targets = [statement.name]
        elif isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            nodes = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            targets = [n.id for t in nodes for n in ast.walk(t) if isinstance(n, ast.Name)]
        else:
            continue
        if "pytestmark" in targets and statement.value is not None:
            module.marked_module = marks_shared([statement.value])
        for name in targets:
            module.reads.setdefault(name, set()).update(names_read(statement))
            if holds_corpus_literal(statement):
                module.literal_readers.add(name)
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            if statement.name.startswith("test"):
                module.tests[statement.name] = statement
        elif isinstance(statement, ast.ClassDef) and statement.name.startswith("Test"):
            for item in statement.body:
                function = isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                if function and item.name.startswith("test"):
                    key = f"{statement.name}::{item.name}"
                    module.tests[key] = item
                    module.marked_classes[key] = marks_shared(statement.decorator_list)
    return module


class Suite:
    """The test modules under one root, each parsed once, with corpus reach followed across
    the ``from tests.x import name`` imports between them."""

    def __init__(self, root: Path, sources: dict[str, str] | None = None) -> None:
        self.root = root
        self.sources = sources or {}  # dotted name -> source, in place of files (self-tests)
        self.modules: dict[str, Module | None] = {}
        self.reaching: dict[tuple[str, str], bool] = {}

    def module(self, dotted: str) -> Module | None:
        if dotted not in self.modules:
            path = self.root / (dotted.replace(".", "/") + ".py")
            if dotted in self.sources:
                self.modules[dotted] = parse(self.sources[dotted])
            elif dotted.split(".", maxsplit=1)[0] == "tests" and path.is_file():
                self.modules[dotted] = parse(path.read_text(encoding="utf-8"))
            else:
                self.modules[dotted] = None  # not a test module: citeloom, pytest, ...
        return self.modules[dotted]

    def reaches(self, dotted: str, name: str) -> bool:
        """Whether the module-level ``name`` of ``dotted`` leads to the corpus."""
        key = (dotted, name)
        if key in self.reaching:
            return self.reaching[key]
        self.reaching[key] = False  # a cycle between names adds nothing
        module = self.module(dotted)
        found = False
        if module is not None and dotted not in NOT_READERS:
            if name in module.corpus_aliases or name in module.literal_readers:
                found = True
            elif name in module.imported:
                found = self.reaches(*module.imported[name])
            elif name in module.reads:
                found = any(self.reaches(dotted, read) for read in module.reads[name] - {name})
        self.reaching[key] = found
        return found

    def test_reads(self, dotted: str, test: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        if holds_corpus_literal(test):
            return True
        return any(self.reaches(dotted, read) for read in names_read(test) - {test.name})

    def mismatches(self, dotted: str) -> list[str]:
        """Tests of the module that read the corpus unmarked, or are marked and do not."""
        module = self.module(dotted)
        if module is None:
            return []
        found = []
        for key, test in module.tests.items():
            marked = (
                module.marked_module
                or module.marked_classes.get(key, False)
                or marks_shared(test.decorator_list)
            )
            reads = self.test_reads(dotted, test)
            if reads and not marked:
                found.append(f"{dotted}::{key} reads the shared corpus without the shared marker")
            elif marked and not reads:
                found.append(f"{dotted}::{key} is marked shared but never reads the corpus")
        return found
