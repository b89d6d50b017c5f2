"""Text from outside (a worker's names and messages, file and column names, values, imported titles) made safe for
the sink it reaches: one escaper per output language, and each the only way outside text reaches that sink. HTML
goes through jinja2's autoescape (reports/text.py environment) and XML through reports/text.py `xml_text`.

Each escaper keeps the text readable and recognisable: what it cannot pass through, it shows as an escape
(`\\x1b`, `\\u2028`), never drops silently."""

from __future__ import annotations

import re

# What a terminal, a Markdown renderer or a line-oriented reader may act on instead of showing: C0 and C1 controls,
# DEL, line and paragraph separators, bidirectional overrides and isolates, lone surrogates, non-characters.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                     "\ud800-\udfff\ufffe\uffff]")
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character (CommonMark: escapable)


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
    link, image, emphasis, code span, table pipe, HTML tag or entity can start; unsafe characters as escapes."""
    return _PUNCTUATION.sub(r"\\\1", terminal(text))
