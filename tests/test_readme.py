"""README.md is what a newcomer reads first (issue 32): at most 6 KB, opening with the two set-up commands (.ci/run
runs the second line of its first code block), a small screenshot of the report, and links that land; the detail is
in docs/."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMANDS = ["python3 -m venv .venv && time .venv/bin/pip install -q -e '.[all]' && .venv/bin/parquet-conformance run",
            "python3 -m venv .venv && .venv/bin/pip install -q -e '.[all]' && .venv/bin/python -m pytest -q -n 2"]


def test_the_readme_is_short_and_opens_with_the_two_commands() -> None:
    text = (REPO / "README.md").read_text()
    assert len(text.encode()) <= 6 * 1024
    first_block = text.split("```", 2)[1].splitlines()[1:]
    assert first_block == COMMANDS


def test_every_link_of_the_readme_lands() -> None:
    text = (REPO / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert len(targets) >= 10
    for target in targets:
        assert (REPO / target).is_file(), target
    assert (REPO / "docs" / "report.png").stat().st_size <= 150 * 1024  # committed small
