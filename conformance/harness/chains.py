"""Chained errors: the root cause of an error message that names its causes, as Java prints them (`Caused by: X: m`,
py4j's messages from Spark included), as our Python worker writes a `__cause__` chain (the same way), and as Rust's
anyhow does (`Caused by:` then one indented cause per line). The root cause is what a maintainer acts on: the
reports show it first, clusters key on it, and a message cut to size keeps it (protocol.clean)."""

from __future__ import annotations

import re

_CAUSED_BY = re.compile(r"^\s*Caused by:[ \t]*(.*)$")
_LISTED = re.compile(r"^\s+(?:\d+:\s*)?(\S.*)$")  # anyhow: "    0: cause"


def root_cause(message: str) -> str | None:
    """The deepest cause the message names, in one line, or None when it names none."""
    lines = message.splitlines()
    found: str | None = None
    for i, line in enumerate(lines):
        m = _CAUSED_BY.match(line)
        if not m:
            continue
        if m.group(1).strip():
            found = m.group(1).strip()
            continue
        for nxt in lines[i + 1:]:  # a bare "Caused by:" lists its causes below it, indented
            listed = _LISTED.match(nxt)
            if not listed:
                break
            found = listed.group(1).strip()
    return found


def cause_block(message: str) -> str | None:
    """What a message that must be cut keeps of its chain: every `Caused by:` line, and the lines after the last
    (the root cause's first frames, or anyhow's list)."""
    lines = message.splitlines()
    at = [i for i, ln in enumerate(lines) if _CAUSED_BY.match(ln)]
    if not at:
        return None
    return "\n".join([lines[i][:300] for i in at[:-1]] + [ln[:300] for ln in lines[at[-1]:at[-1] + 4]])


MARK = " [...]"


def cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, " [...]" where it was cut; a chained error keeps its root cause."""
    if len(text) <= limit:
        return text
    block = cause_block(text)
    if block is None or block in text[:limit - len(MARK)] or len(block) > limit // 2:
        return text[:limit - len(MARK)] + MARK
    return text[:limit - len(MARK) - len(block) - 1] + MARK + "\n" + block


def chain_text(message: str, causes: list[tuple[str, str]]) -> str:
    """A Python exception and its `__cause__`/`__context__` chain written as Java writes a chain."""
    return "\n".join([message] + [f"Caused by: {c}: {m}" if m else f"Caused by: {c}" for c, m in causes])
