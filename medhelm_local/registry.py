"""Named entries of one kind (metrics, data readers, private-benchmark formats), registered on import.

The built-in entries are declared by the modules of one package, each registering what it holds when it
is imported (a decorator, as a third party would use). A registry loads one module when a name is the
module's own, and every module of the package only when it must list them all, so a run imports what it
uses and no more. Registering a name twice with a different entry is an error: two hooks would otherwise
fight over one card.

    registry = Registry[Format]("format", "medhelm_local.scenarios.formats")
    registry.add("shc_med", Format(...))       # from the module's decorator
    registry.find("shc_med")                   # registered, or its own module (formats/shc_med.py) imported
    registry.all()                             # every built-in module imported: the whole list

Where each entry has a folder of its own (one per benchmark: card, reader hook, manifest), `hook` names
the module inside the folder that declares it: `Registry[Reader]("reader", "...scenarios.benchmarks",
hook="reader")` finds `pubmed_qa` in `benchmarks/pubmed_qa/reader.py`, and a folder without that module
(a benchmark whose card needs no Python) declares nothing.

A registry without a package (aggregation kinds, declared in two stages) imports nothing: its entries are
those their modules registered.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """Entries by name, and the package whose modules declare the built-in ones."""

    def __init__(self, kind: str, package: str | None, *, hook: str | None = None,
                 not_entries: frozenset[str] = frozenset(), same: Callable[[T, T], bool] | None = None) -> None:
        self.kind = kind
        self.package = package
        self.hook = hook  # entries live in PACKAGE.NAME.HOOK (a folder per entry), not PACKAGE.NAME
        self._not_entries = not_entries  # modules of the package that declare nothing (helpers)
        self._same = same or (lambda a, b: a is b)  # what counts as registering the same entry again
        self._entries: dict[str, T] = {}
        self._loaded = False

    def add(self, name: str, entry: T) -> T:
        """Register `entry` as `name` (again is fine when it is the same entry)."""
        existing = self._entries.get(name)
        if existing is not None and not self._same(existing, entry):
            raise ValueError(f"{self.kind} {name!r} registered twice")
        self._entries[name] = entry
        return entry

    def registered(self, name: str) -> T | None:
        """The entry registered as `name` so far (no module imported)."""
        return self._entries.get(name)

    def find(self, name: str) -> T | None:
        """The entry `name`: registered already, or declared by the package's module of that name."""
        found = self._entries.get(name)
        if found is None and self.package and name.isidentifier() and name not in self._not_entries:
            self._import(name)
            found = self._entries.get(name)
        return found

    def _import(self, name: str) -> None:
        """Import the module that declares `name`, if there is one."""
        module = f"{self.package}.{name}"
        hook = f"{module}.{self.hook}" if self.hook else module
        try:
            importlib.import_module(hook)
        except ModuleNotFoundError as exc:
            if exc.name not in (module, hook):  # the module exists and lacks something it imports: a real error
                raise

    def load_all(self) -> None:
        """Import every module of the package (once), so every built-in entry is registered."""
        if self._loaded or not self.package:
            return
        package = importlib.import_module(self.package)
        for module in pkgutil.iter_modules(package.__path__):
            if module.name not in self._not_entries and (module.ispkg or not self.hook):
                self._import(module.name)
        self._loaded = True

    def all(self) -> dict[str, T]:
        """Every entry, built-ins included, by name."""
        self.load_all()
        return dict(sorted(self._entries.items()))

    def in_order(self) -> list[T]:
        """The entries registered so far, in the order they were registered."""
        return list(self._entries.values())

    def __iter__(self) -> Iterator[str]:
        """The names registered so far (`all()` for every built-in)."""
        return iter(sorted(self._entries))
