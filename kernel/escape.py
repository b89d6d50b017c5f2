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
from typing import TextIO

# What a terminal, a Markdown renderer or a line-oriented reader may act on instead of showing: C0 and C1 controls,
# DEL, line and paragraph separators, bidirectional marks, overrides and isolates, lone surrogates, non-characters,
# and the byte-order mark (a renderer drops it at the start of a document: it would vanish from the text).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                     "\ud800-\udfff\ufeff\ufffe\uffff]")
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character (CommonMark: escapable)
# GFM's e-mail autolink is found in text after escapes are resolved (cmark-gfm's autolink extension post-processes
# text nodes), so `a\@b\.co` still becomes a mailto: link. An empty HTML comment splits the text node before `@`:
# it renders as nothing, and GitHub keeps or drops it, the text is the same either way. Only after a character of
# the text: at its start (or after its leading spaces) a comment would open an HTML block when the text begins a line,
# and the whole line would vanish; there, no address can be made of the text's own characters.
_AT = re.compile(r"(?<=\S)\\@")


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
    """Safe as inline Markdown (CommonMark, GFM): one line, every ASCII punctuation character backslash-escaped, so no
    link, image, emphasis, code span, table pipe, HTML tag or entity can start, and no GFM autolink (`www.`,
    `https:`, e-mail) is recognised; unsafe characters as escapes."""
    return _AT.sub("<!-- -->\\\\@", _PUNCTUATION.sub(r"\\\1", terminal(text)))


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
