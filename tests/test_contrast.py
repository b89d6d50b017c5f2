"""Contrast, computed from the CSS of report.html (templates/style.css.j2, shared by the site and writers.html, and
writers.html's own rules): every text colour against every background it is drawn on is at least WCAG AA's 4.5:1,
and the focus ring (a dark ring and a light one) is at least 3:1 (WCAG 1.4.11, non-text contrast) against every
cell's background in one of its rings.

The rule that makes this checkable: a rule that sets a background sets the text's colour too (pseudo-elements and
bars without text aside); a rule that sets only a colour is checked against the page's light surfaces."""

from __future__ import annotations

import re
from pathlib import Path

from parquet_conformance.reports.html import ENGINE_COLOURS

TEMPLATES = Path(__file__).resolve().parents[1] / "reports" / "templates"
COLOUR = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")
NO_TEXT = ("::after", "::before", ".bar")  # drawn without text
SURFACES = ["#fff", "#fffbe6", "#f4f4f4", "#fafafa", "#e8eef7", "#f2f6fc", "#eee"]  # where plain text sits
TEXT_AA, NON_TEXT = 4.5, 3.0


def luminance(colour: str) -> float:
    h = colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)

    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(int(h[i:i + 2], 16) / 255) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def rules(css: str) -> list[tuple[str, dict[str, str]]]:
    """(selector, declarations) of a style sheet without comments or nested at-rules' wrappers."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"@media[^{]*\{((?:[^{}]*\{[^{}]*\})*)\s*\}", r"\1", css)
    out = []
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        decls = {}
        for d in body.split(";"):
            if ":" in d:
                k, _, v = d.partition(":")
                decls[k.strip()] = v.strip()
        out.append((" ".join(selector.split()), decls))
    return out


def sheets() -> list[str]:
    writers = (TEMPLATES / "writers.html.j2").read_text()
    own = re.findall(r"<style>(.*?)</style>", writers, flags=re.S)
    return [(TEMPLATES / "style.css.j2").read_text(), *[s.replace('{% include "style.css.j2" %}', "") for s in own]]


def pairs() -> list[tuple[str, str, str]]:
    """(selector, text colour, background colour) of every rule that draws text."""
    out = []
    for css in sheets():
        for selector, decls in rules(css):
            background = decls.get("background", decls.get("background-color", ""))
            colour = COLOUR.findall(decls.get("color", ""))
            backgrounds = COLOUR.findall(background)
            if any(n in selector for n in NO_TEXT):
                continue
            if backgrounds:
                assert colour, f"{selector}: sets a background ({background}) but not the text's colour"
                out += [(selector, colour[0], b) for b in backgrounds]
            elif colour:
                out += [(selector, colour[0], s) for s in SURFACES]
    return out


def test_every_text_has_aa_contrast() -> None:
    found = pairs()
    assert len(found) > 50
    bad = [(s, c, b, round(contrast(c, b), 2)) for s, c, b in found if contrast(c, b) < TEXT_AA]
    assert not bad, bad


def test_engine_badges_have_aa_contrast() -> None:
    assert all(contrast("#fff", c) >= TEXT_AA for c in ENGINE_COLOURS), ENGINE_COLOURS


def test_the_focus_ring_shows_on_every_cell() -> None:
    css = (TEMPLATES / "style.css.j2").read_text()
    focus = next(d for s, d in rules(css) if s == ":focus-visible")
    rings = COLOUR.findall(focus["outline"]) + COLOUR.findall(focus["box-shadow"])
    assert len(rings) == 2, rings
    cells = [b for s, _, b in pairs() if re.search(r"\.(pass|fail-[\w-]+|flaky|skip|harness-error)\b", s)]
    assert len(set(cells)) >= 10
    bad = [b for b in cells if max(contrast(r, b) for r in rings) < NON_TEXT]
    assert not bad, bad
