"""The same rule, the same expectation and level (issue 36, item 2): cases are grouped by the rule they rest on, and
every group agrees in what a reader must do and how strongly.

Two groupings, each a rule:
- by what the file varies: the enum fields set (struct, field) and union members set, each with the kind of value
  as a reader of the latest release (tests/data/format-facts.json) meets it: `known` (its parquet.thrift defines it),
  `undefined` (it does not: a value of the main line only, or of no text at all), `negative`. Cases whose sets of
  such variations are equal vary the file the same way and must expect the same of each role, at the same level.
- by the sentence that requires the expectation: the cases a citation requires for a role must expect the same of
  that role.

Both run over the Parquet catalog and the regression store (the Skiff catalog varies no enum of parquet.thrift;
its requiring sentences are grouped too).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable

from parquet_conformance.corpus.model import Case, Expectation, Level
from parquet_conformance.corpus.parquet.catalog import all_cases as parquet_cases
from parquet_conformance.corpus.skiff.catalog import all_cases as skiff_cases
from parquet_conformance.generators.parquet.footer import ENUM_FIELDS, SCHEMA
from parquet_conformance.generators.parquet.mutations.fields import SetField, SetUnion
from tests.format_facts import FACTS

Key = tuple[str, str, str, str]  # (struct, field, "enum" | "union", kind)


def facts() -> dict:
    return json.loads(FACTS.read_text())


def union_of(struct: str, field: str) -> str | None:
    for name, kind in SCHEMA.get(struct, {}).values():
        if name == field:
            inner = kind.removeprefix("list<").removesuffix(">")
            return inner if inner in facts()["release_unions"] else None
    return None


def enum_kind(enum: str, value: int) -> str:
    if value < 0:
        return "negative"
    return "known" if value in facts()["release_enums"][enum] else "undefined"


def variations(case: Case) -> frozenset[Key]:
    """What the case's steps set: enum values and union members, each with its kind for a reader of the release."""
    out: set[Key] = set()
    for step in case.mutations:
        if isinstance(step, SetField) and isinstance(step.value, int) and (step.struct, step.field) in ENUM_FIELDS:
            out.add((step.struct, step.field, "enum", enum_kind(ENUM_FIELDS[step.struct, step.field], step.value)))
        elif isinstance(step, SetUnion) and (union := union_of(step.struct, step.field)):
            known = facts()["release_unions"][union]
            kinds = sorted("known" if m.id in known else "undefined" for m in step.members) or ["none"]
            out.add((step.struct, step.field, "union", "+".join(kinds)))
    return frozenset(out)


def disagreements(groups: dict[object, list[tuple[str, Expectation, Level]]]) -> list[str]:
    bad = []
    for key, members in groups.items():
        seen = {(e, lv) for _, e, lv in members}
        if len(seen) > 1:
            shown = ", ".join(f"{cid}: {e}/{lv}" for cid, e, lv in sorted(members)[:6])
            bad.append(f"{key}: {shown}")
    return bad


def by_variation(cases: Iterable[Case]) -> dict[object, list[tuple[str, Expectation, Level]]]:
    groups: dict[object, list[tuple[str, Expectation, Level]]] = defaultdict(list)
    for case in cases:
        if keys := variations(case):
            for role, word in case.expect.items():
                groups[(keys, role)].append((case.id, word, case.level(role)))
    return groups


def by_requiring_sentence(cases: Iterable[Case]) -> dict[object, list[tuple[str, Expectation, Level]]]:
    groups: dict[object, list[tuple[str, Expectation, Level]]] = defaultdict(list)
    for case in cases:
        for c in case.citations:
            for role in c.requires:
                groups[(c.source, c.section, c.quote[:60], role)].append((case.id, case.expect[role],
                                                                           case.level(role)))
    # the level may differ where a stronger sentence requires the same role too: group on the expectation alone
    return {k: [(cid, e, Level.MUST) for cid, e, _ in v] for k, v in groups.items()}


def test_cases_that_vary_the_file_alike_expect_alike() -> None:
    bad = disagreements(by_variation(parquet_cases()))
    assert not bad, "cases of one rule disagree:\n" + "\n".join(bad)


def test_a_sentence_requires_one_expectation() -> None:
    bad = disagreements(by_requiring_sentence([*parquet_cases(), *skiff_cases()]))
    assert not bad, "one sentence requires different expectations:\n" + "\n".join(bad)


def test_the_grouping_finds_the_pairs_of_the_audit() -> None:
    """Issue 36's two pairs fall into one group each: an ALP value (10, on the main line only) and an undefined one
    (11) in PageEncodingStats.encoding; FieldRepetitionType 3 in `evolution/vector/*` and `storage/enum`."""
    groups = by_variation(parquet_cases())
    ids = {cid: key for key, members in groups.items() for cid, _, _ in members}
    assert ids["evolution/alp/listed-in-encoding-stats"] == ids["storage/enum/page-encoding-stats-encoding/value-11"]
    assert ids["evolution/vector/repetition-only"] == ids["storage/enum/schema-element-repetition-type/value-3"]
    assert ids["unions/column-order/unknown-only"] == ids["evolution/column-order/int96-timestamp-order"]


def test_the_test_flags_a_disagreement() -> None:
    """A group whose members disagree in expectation or in level is reported (the shape of today's catalog before
    issue 36: `evolution/vector/*` reject at must beside `storage/enum/.../value-3` reject at policy)."""
    groups = {"k": [("a", Expectation.REJECT, Level.MUST), ("b", Expectation.REJECT, Level.POLICY)],
              "l": [("c", Expectation.READ, Level.MUST), ("d", Expectation.EITHER, Level.MUST)],
              "m": [("e", Expectation.READ, Level.SHOULD), ("f", Expectation.READ, Level.SHOULD)]}
    assert [b.split(":")[0] for b in disagreements(groups)] == ["k", "l"]
