"""The reproducing capability: an adapter that can give `report --upstream` (app/upstream.py) a script in
its library's own API puts `Reproducing` beside its adapter class; its script is filled in next to its read
(adapters/<track>/reproducers.py)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Reproducer:
    """A script that reads a file with the library's own public API and nothing of ours, for a vendor's issue.
    `text` is the script, the same for every finding: it reads the finding's data from finding.json beside it (nothing
    from outside is written into code); `install` and `run` may name {version}."""

    language: str  # "Python", "JavaScript", "Java": how its literals and comments are written
    script: str  # its file name in the finding's folder
    text: str
    install: str  # what a vendor installs, e.g. "pip install polars=={version} pyarrow"
    run: str  # how it runs from the finding's folder, e.g. "python repro.py"
    # column -> why the script cannot read it (a type the library hands over in a form its language cannot): never
    # compared, and a finding that differs only there gets no script
    not_compared: dict[str, str] = field(default_factory=dict)
    # other files the script runs, written beside it (file name -> text; the same for every finding too): Java's
    # launcher checks the classpath, then compiles and runs the program that reads
    companions: dict[str, str] = field(default_factory=dict)


class Reproducing:
    def reproducer(self) -> Reproducer:
        """The script a vendor runs to see a finding with the library alone, reading the file as `read` does."""
        raise NotImplementedError


def reproducer_of(adapter: object) -> Reproducer | None:
    """The adapter's script, or None when it has the capability not."""
    return adapter.reproducer() if isinstance(adapter, Reproducing) else None
