"""Text from outside (a worker's names and messages, file and column names, values, imported titles) made safe for
the sink it reaches: one escaper per output language, and each the only way outside text reaches that sink.

- the terminal: `terminal`; every command's standard streams are `TerminalStream`s (`guard_streams`, called by the
  command line before anything is printed), so that no print of any module can bypass it;
- Markdown (summary.md, history.md, versions.md, skip-overhead.md, READMEs): `markdown`;
- HTML: jinja2's autoescape, after `terminal` with newlines kept (reports/text.py `environment`'s finalize);
- XML (JUnit): ElementTree's escaping, after reports/text.py `xml_text` (which is `terminal`, newlines kept).

Each escaper keeps the text readable and recognisable: what it cannot pass through, it shows as an escape
(`\\x1b`, `\\u2028`), never drops silently. tests/hostile/test_sinks.py holds each to a property over arbitrary
Unicode."""

from __future__ import annotations

import io
import re
import sys
import unicodedata
from typing import TextIO

# What a terminal, a Markdown renderer or a line-oriented reader may act on instead of showing: C0 and C1 controls,
# DEL, line and paragraph separators, bidirectional marks, overrides and isolates, lone surrogates, non-characters,
# and the byte-order mark (a renderer drops it at the start of a document: it would vanish from the text).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                     "\ud800-\udfff\ufeff\ufffe\uffff]")
# What GitHub's renderer (cmark-gfm: CommonMark, tables, strikethrough, autolinks; and its math) would read as syntax
# in text, and nothing else: the rest stays as it is, so that a summary reads the same raw (a CI log, a terminal) as
# rendered. Anywhere in the text:
_SYNTAX = re.compile(r"[`|$]"  # a code span, a table cell's end, math
                     r"|\\(?=[!-/:-@\[-`{-~]|$)"  # a backslash that would escape what follows (ours, at the end)
                     r"|<(?=[A-Za-z/!?])"  # a tag, a comment, an autolink
                     r"|&(?=#|[A-Za-z0-9]+;)"  # an entity
                     r"|\](?=[(\[])"  # a link's text ending
                     r"|(?:(?<=http)|(?<=https)|(?<=ftp)):(?=//)|(?<=mailto):|(?<=xmpp):"  # GFM's autolinks,
                     r"|(?<=www)\.", re.IGNORECASE)  # and www.
# Delimiters of emphasis and strikethrough: escaped unless they can neither open nor close one (CommonMark's flanking
# rules: between spaces; `_` also between two letters or digits). At the text's ends, what is beside them is unknown.
_DELIMITERS = "*_~"
# At the start of the text, which may start a line: a heading, a quote, a list item, a thematic break or setext
# underline, a link reference or footnote definition (a fence's ` and ~ are escaped anywhere).
_LEADING = re.compile(r"#{1,6}(?=[ \t]|$)|>|[-+](?=[ \t]|$)|(?:-+|=+)[ \t]*$|\[(?=.*\]:)|\d{1,9}[.)](?=[ \t]|$)")
# GFM's e-mail autolink is found in text after escapes are resolved (cmark-gfm's autolink extension post-processes
# text nodes), so `a\@b\.co` still becomes a mailto: link. An empty HTML comment splits the text node before `@`:
# it renders as nothing, and GitHub keeps or drops it, the text is the same either way. Only where an address would
# be (a local part before, a domain with a dot after): the `@` is then after a character of the text, where a comment
# cannot open an HTML block (at a line's start it would swallow the line).
_AT = re.compile(r"(?<=[A-Za-z0-9.+_-])@(?=[A-Za-z0-9_-]+\.[A-Za-z0-9_.-]*[A-Za-z0-9])")


def visible(ch: str) -> str:
    """One unsafe character as a visible escape."""
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def terminal(text: str, keep_newlines: bool = False) -> str:
    """Safe to print: no control sequence, no carriage return, no bidi reordering reaches the terminal.
    `keep_newlines`: a newline stays a newline (a multi-line message); else it is shown as `\\x0a`."""
    if keep_newlines:
        return "\n".join(_UNSAFE.sub(lambda m: visible(m.group()), line) for line in text.split("\n"))
    return _UNSAFE.sub(lambda m: visible(m.group()), text)


def markdown(text: str) -> str:
    """Safe as inline Markdown (CommonMark, GFM): one line in which no link, image, emphasis, code span, table pipe,
    HTML tag, entity, math or GFM autolink (`www.`, `https:`, e-mail) can start, nor a block where the text starts a
    line; unsafe characters as escapes. Only what would be read as syntax is escaped (a backslash before it), so that
    the text reads the same raw as rendered (tests/test_reports.py compares a summary's text both ways). What follows
    it in the document must not be `(` or `[` (a link's destination or label after a `]` of the text)."""
    line = terminal(text).lstrip(" \t")  # leading spaces: an indented code block where the text starts a line
    escaped = {m.start() for m in _SYNTAX.finditer(line)}
    escaped |= {i for i, ch in enumerate(line) if ch in _DELIMITERS and not _inert(line, i)}
    if lead := _LEADING.match(line):  # its first character, or an ordered list item's `.` or `)`
        escaped.add(len(lead.group().rstrip(" \t")) - 1 if lead.group()[0].isdigit() else 0)
    at = {m.start() for m in _AT.finditer(line)}
    return "".join(("\\" if i in escaped else "<!-- -->" if i in at else "") + ch for i, ch in enumerate(line))


def _space(ch: str) -> bool:
    return ch == "\t" or unicodedata.category(ch) == "Zs"


def _inert(line: str, i: int) -> bool:
    """Whether the delimiter at `i` can neither open nor close emphasis or strikethrough (both neighbours in the text:
    spaces; for `_`, also letters or digits)."""
    if i == 0 or i == len(line) - 1:
        return False
    before, after = line[i - 1], line[i + 1]
    return (_space(before) and _space(after)) or (line[i] == "_" and before.isalnum() and after.isalnum())


class TerminalStream(io.TextIOBase):
    """A text stream of the terminal (stdout, stderr) that passes everything written through `terminal`, newlines
    kept: the one way text reaches it. `control` writes this program's own control sequences (a progress line's
    carriage return) as they are."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(terminal(text, keep_newlines=True))
        return len(text)

    def control(self, sequence: str) -> None:
        self.inner.write(sequence)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.inner.encoding


def guard_streams() -> None:
    """sys.stdout and sys.stderr made TerminalStreams (once), for the rest of the process."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, TerminalStream):
            if isinstance(stream, io.TextIOWrapper):  # a character the terminal's encoding lacks: escaped, not an error
                stream.reconfigure(errors="backslashreplace")
            setattr(sys, name, TerminalStream(stream))


def control(sequence: str) -> None:
    """This program's own control sequence on stderr (it needs no escaping: it holds no outside text)."""
    stream = sys.stderr
    if isinstance(stream, TerminalStream):
        stream.control(sequence)
    else:
        stream.write(sequence)
