"""The error taxonomy (docs/adapters.md#error-taxonomy): what an error a library raised on a file means, by one rule
for every language.

Each adapter declares how its library refuses input on purpose (`Refusals`: its documented error classes, and for
a library that raises plain errors, the messages it raises on purpose, its own or those of a dependency it calls to
decode, whatever their class: a dependency's validation error). An error is a **refusal** (`rejected`) when the
declaration covers it and no link of its cause chain is one of the runtime's safety nets (a null dereference, a
type, index or key error, a panic) that the declaration does not cover, and no link is an assertion, which no
declaration covers; anything else is an **unhandled error**: the library lost control and its runtime caught it.
Running out of memory is `oom` and running out of stack a `crash`, as they are for a native reader that dies of
them.

The rule runs where the exception is alive: in the Python worker (conformance/harness/worker.py, with the adapter's
`refusals`), and, expressed in their language, in the Java worker (parquet/java/JavaErrors.java, also applied to
Spark's errors through py4j) and the Node workers (parquet/js/shared.mjs). A Python class is named by its qualified
name and matched by the names in the error's MRO, or by the class that name resolves to among the modules already
loaded (`duckdb.Error` is `_duckdb.Error` in 2.x and `duckdb.duckdb.Error` in 1.x); a name no release defines
matches nothing.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

Outcome = Literal["rejected", "unhandled-error", "oom", "crash"]
Pattern = tuple[str, str]  # (a class's qualified name, a regex searched in the message; "" matches any)

# What the Python runtime raises when code meets a state it did not expect: never a refusal in a cause chain, and not
# one for an adapter that declares nothing (GENERIC), unless the library declares that very class (pyarrow's
# ArrowKeyError is a KeyError). struct.error is a bounds check of struct.unpack; a pyo3 PanicException is a Rust
# panic caught at the boundary (a BaseException, so no declared class covers it).
SAFETY_NETS: tuple[Pattern, ...] = tuple((name, "") for name in (
    "builtins.TypeError", "builtins.AttributeError", "builtins.LookupError", "builtins.NameError",
    "builtins.AssertionError", "builtins.ArithmeticError", "builtins.SystemError", "builtins.BufferError",
    "builtins.StopIteration", "struct.error", "pyo3_runtime.PanicException"))
# A language assertion claims that a state cannot occur; a file that makes one fail shows the claim false, whatever
# the library meant by it (Python and Java drop assertions under -O or without -ea, so the same library would read on
# unchecked), so no declaration makes it a refusal (docs/adapters.md#error-taxonomy, rule 5).
ASSERTIONS: tuple[Pattern, ...] = (("builtins.AssertionError", ""),)
CHAIN = 8  # cause links looked at


@dataclass(frozen=True)
class Refusals:
    """How a library refuses input on purpose. Checked in order: `oom`, `unhandled` (carve-outs: a panic wrapped in
    a refusal class), then `classes` and `messages`; an error that matches none of them is an unhandled error."""

    classes: tuple[str, ...] = ()  # qualified class names: their instances (subclasses included) are refusals
    messages: tuple[Pattern, ...] = ()  # refusals when the error is an instance and its message matches
    unhandled: tuple[Pattern, ...] = ()  # never refusals, even inside a class above
    oom: tuple[Pattern, ...] = ()  # the library's own out-of-memory errors (MemoryError always is)


# An adapter that declares nothing: every Exception but the runtime's safety nets is a refusal.
GENERIC = Refusals(classes=("builtins.Exception",), unhandled=SAFETY_NETS)


def classify(refusals: Refusals, error: BaseException) -> Outcome:
    """What `error`, raised by the library on a file, means under the adapter's declaration."""
    if isinstance(error, MemoryError) or matches(refusals.oom, error):
        return "oom"
    if isinstance(error, RecursionError):  # the stack ran out: a native reader dies of it (SIGSEGV)
        return "crash"
    if any(matches(ASSERTIONS, e) for e in (error, *causes(error))) or not refused(refusals, error):
        return "unhandled-error"
    if any(not refused(refusals, c) and matches(SAFETY_NETS, c) for c in causes(error)):
        return "unhandled-error"  # a refusal that wraps a loss of control (`raise ... from e`)
    return "rejected"


def refused(refusals: Refusals, error: BaseException) -> bool:
    if matches(refusals.unhandled, error):
        return False
    return matches(tuple((c, "") for c in refusals.classes), error) or matches(refusals.messages, error)


def matches(patterns: tuple[Pattern, ...], error: BaseException) -> bool:
    if not patterns:
        return False
    names = {f"{c.__module__}.{c.__qualname__}" for c in type(error).__mro__}
    text: str | None = None
    for name, regex in patterns:
        if name in names or ((cls := _resolve(name)) is not None and isinstance(error, cls)):
            if not regex:
                return True
            text = message(error) if text is None else text
            if re.search(regex, text):
                return True
    return False


def causes(error: BaseException) -> Iterator[BaseException]:
    """The explicit cause chain (`raise ... from e`), as Java's getCause(): not the context of an except block."""
    seen = {id(error)}
    cause = error.__cause__
    while cause is not None and id(cause) not in seen and len(seen) <= CHAIN:
        seen.add(id(cause))
        yield cause
        cause = cause.__cause__


def message(error: BaseException) -> str:
    try:
        return str(error)
    except Exception as inner:  # a library's exception whose str() raises: still its error
        return f"[str() of the exception raised {type(inner).__name__}: {inner}]"


def _resolve(name: str) -> type | None:
    """The class a qualified name names among the modules loaded now (never an import: the library that raised is
    loaded, and a module that is not cannot have raised)."""
    module, _, attr = name.rpartition(".")
    while module:
        if (loaded := sys.modules.get(module)) is not None:
            return _attribute(loaded, attr)
        module, _, head = module.rpartition(".")
        attr = f"{head}.{attr}"
    return None


def _attribute(obj: object, path: str) -> type | None:
    for part in path.split("."):
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, type) else None
