"""Citations and helpers shared by the Skiff case families: schema-description builders, value tokens, and
`Entries`, which makes each case together with its own base (one base per expectation, docs/skiff.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from parquet_conformance.corpus.model import Case, Citation, Level, own_rule
from parquet_conformance.generators.skiff.bases import Base
from parquet_conformance.generators.skiff.mutations import Mutation

SEED = "YTsaurus documentation «Формат Skiff»"
SEED_COPY = "shared/seeds/004"
UP_SKIFF = "ytsaurus/ytsaurus library/cpp/skiff/skiff.cpp @ 7d3f53a2452e9a715ecd2eb6a491bae1d82b0eb3"
UP_MATCH = "ytsaurus/ytsaurus yt/yt/library/skiff_ext/schema_match.cpp @ 08b4009e7c430b3f8b8e04949807421101451861"
UP_PUBLIC = "ydb-platform/ydb library/cpp/skiff/public.h @ 0cb33d8c17c651a741145d4ea499913e1de1fd5a"
ROLE = "codec"
NOTES = "docs/spec-notes.md#skiff"


def seed(section: str, quote: str) -> Citation:
    """A sentence of seed 004: the format's definition, a `must` (its rules, layouts, examples and permissions)."""
    return Citation(SEED, section, quote, SEED_COPY, level=Level.MUST)


def upstream(source: str, section: str, quote: str) -> Citation:
    """Upstream code: evidence of a reading, never a requirement (`policy`, docs/spec-notes.md#levels)."""
    return Citation(source, section, quote, level=Level.POLICY)


rule = own_rule  # this suite's own rules where the seed does not decide (docs/spec-notes.md#rules-of-this-suite)


def requiring(cites: Sequence[Citation], *, but: Sequence[Citation] = ()) -> list[Citation]:
    """The citations of a `reject` case, each of the seed's sentences among them (but those in `but`, which only give
    context) marked as requiring the codec's expectation; upstream code is evidence, never a requirement. A list
    that marks a sentence itself is left as it is (docs/spec-notes.md#expectations)."""
    if any(c.requires for c in cites):
        return list(cites)
    return [c.requiring(ROLE) if c.seed == SEED_COPY and c not in but else c for c in cites]


# The seed is the format's spec (docs/spec-notes.md#levels): a golden stream that follows its encodings is `read` at
# `must` by its definition of the format, as a golden Parquet file of released features is by the README's.
DEFINITION = seed("Формат Skiff", "Skiff (от schemaful format) — один из форматов передачи схематизированных данных "
                                  "между job_proxy и джобом.").requiring(ROLE)
NOTHING = seed("Nothing", "nothing — отсутствие значения, специальный тип, который может быть использован только "
                          "как дочерний составных типов Variant* / RepeatedVariant*.")
BOOLEAN = seed("Boolean", "Кодируется одним байтом: 001 для true, 000 для false.")
INT64 = seed("Int64 / Uint64", "Кодируется 8-байтным числом, закодированным в little endian.")
INT_EXAMPLES = seed("Int64 / Uint64", "Примеры: \\x2a\\x00\\x00\\x00\\x00\\x00\\x00\\x00 (42), "
                                      "\\x94\\x88\\x01\\x00\\x00\\x00\\x00\\x00 (100500).")
DOUBLE = seed("Double", "double — 8-байтное представление double.")
DOUBLE_EXAMPLE = seed("Double", "Примеры: \\x9B\\x91\\x04\\x8B\\x0A\\xBF\\x05\\x40 (2.718281828).")
STRING32 = seed("String32", "string32 — длина строки, закодированная как 32-битный uint в little endian, затем "
                            "сама строка.")
STRING32_EXAMPLE = seed("String32", "Примеры:\\x06\\x00\\x00\\x00foobar")
YSON32 = seed("Yson32", "Кодируется длина закодированного YSON, закодированная как 32-битный uint, за которым "
                        "следует сам закодированный YSON.")
YSON32_EXAMPLES = seed("Yson32", "Примеры: \\x09\\x00\\x00\\x00{foo=bar}, \\x07\\x00\\x00\\x00100500u")
VARIANT = seed("Variant8 / variant16", "Кодируются 8-битным (для variant8) или 16-битным (для variant16) "
                                       "беззнаковым числом i — тегом, за которым следует значение, описанное типом "
                                       "дочернего узла под индексом i.")
VARIANT_NOTHING = seed("Variant8 / variant16", "Так как тип nothing кодируется пустой строкой, то, например, "
                                               "строка \\x00 является валидным значением типа variant8.")
REPEATED = seed("RepeatedVariant8 / RepeatedVariant16",
                "Кодируется как непрерывная последовательность вариантов 8-битным (для repeated_variant8) или "
                "16-битным (для repeated_variant16) тегом, оканчивающаяся специальным тегом 0xFF (для "
                "repeated_variant8) или 0xFFFF (для для repeated_variant16), обозначающим конец последовательности.")
TUPLE = seed("Tuple", "Кодируется последовательностью значений, первое значение имеет тип первого дочернего узла, "
                      "второе значение — тип второго дочернего узла и так далее.")
INPUT = seed("Skiff-схема таблицы", "Общая схема имеет своим корнем узел Variant16, который в качестве детей имеет "
                                    "все skiff-схемы таблиц.")
OUTPUT = seed("Skiff-схема таблицы", "Из выходного потока для i-й выходной таблицы job_proxy пытается вычитать "
                                     "значения, которые описываются схемой с корневым узлом Variant16 с "
                                     "единственным ребёнком — skiff-схема i-й таблицы.")
RULES = "Ограничения на skiff-схему таблицы"
ROOT_TUPLE = seed(RULES, "Корневым узлом skiff-схемы таблицы должен быть узел типа tuple.")
NAMED = seed(RULES, "Все дети корневого узла skiff-схемы таблицы должны иметь имена.")
SPECIAL = seed(RULES, "Среди имён детей корневого узла skiff-схемы таблицы могут встречаться специальные имена, "
                      "начинающиеся с символа $.")
OTHER = seed(RULES, "Среди детей корневого узла skiff-схемы таблицы может быть узел, помеченный именем "
                    "$other_columns. Этот узел должен иметь тип yson32 и быть последним.")
SPARSE = seed(RULES, "Этот узел должен иметь тип RepeatedVariant16. Его дети образуют множество sparse-узлов и "
                     "также должны иметь имена. Узел $sparse_columns должен быть предпоследним, если есть узел "
                     "$other_columns, или последним, если такого узла нет.")
KEY_SWITCH = seed(RULES, "Среди детей корневого узла skiff-схемы таблицы может быть узел со специальным именем "
                         "$key_switch, он должен иметь тип boolean.")
ROW_INDEX = seed(RULES, "Среди детей корневого узла skiff-схемы таблицы могут быть узлы со специальными именами "
                        "$row_index / $range_index. Они должны иметь тип variant8<nothing;int64>")
DENSE = seed(RULES, "Все dense-узлы должны иметь схему, которая: / либо описывает простой тип: int64, uint64, "
                    "boolean, double, string32, yson32; / либо описывает тип variant8<nothing; TYPE;>, где TYPE — это "
                    "простой тип: int64, uint64, boolean, double, string32, yson32")
SPARSE_TYPES = seed(RULES, "Все sparse-узлы должны иметь схему, которая описывает простой тип int64, uint64, "
                           "boolean, double, string32, yson32.")
ROWS = RULES  # the paragraphs after the list: how a row is serialized
DENSE_NULL = seed(ROWS, "Если значение для dense-узла отсутствует или имеет тип NULL, то соответствующий dense-узел "
                        "skiff-схемы должен иметь тип variant8.")
SPARSE_PRESENT = seed(ROWS, "Значения, которые описываются sparse-частью схемы сериализуются, только если они "
                            "присутствуют и имеют тип, отличный от NULL. Они попадают в поле $sparse_columns в виде "
                            "списка.")
OTHER_MAP = seed(ROWS, "Те значения строки таблицы, которые не попали в dense или sparse-часть, отправляются в "
                       "колонку $other_columns. В этой колонке будет лежать yson map с такими значениями.")
OTHER_ERROR = seed(ROWS, "Если колонки $other_columns нет, но при этом есть значение, не описанное ни в dense, ни в "
                         "sparse-части, то будет сгенерирована ошибка.")
FIND_NODE = seed(ROWS, "Когда сериализуется строка таблицы, для каждого значения нужно найти dense или sparse-узел, "
                       "имеющий то же имя, что и имя колонки.")
DENSE_ALWAYS = seed(ROWS, "Значения, которые описываются dense-узлами сериализуются всегда, как требует корневой "
                          "узел skiff-схемы — tuple.")
CONFIG = seed("Конфигурация формата", "В атрибутах должен присутствовать ключ table_skiff_schemas со списком "
                                      "описаний skiff-схем таблиц. Кроме того, может присутствовать ключ "
                                      "skiff_schema_registry. Если он присутствует, то должен содержать YSON map, "
                                      "хранящий отображение имени во вспомогательной skiff-схеме.")
REFERENCE = seed("Конфигурация формата", "Строкой, начинающейся с $. Тогда символ =$ будет удален, а оставшаяся "
                                         "строка будет найдена в map skiff_schema_registry.")
DESCRIPTION = seed("Конфигурация формата", "(optional) children дети узла. Для составных типов это поле должно "
                                           "присутствовать.")
UP_BOOLEAN = upstream(UP_SKIFF, "TUncheckedSkiffParser::ParseBoolean",
                      "if (result > 1) { ythrow TSkiffException() << \"Invalid boolean value ...\"; }")
UP_WIDE = upstream(UP_SKIFF, "TUncheckedSkiffParser::ParseInt128",
                   "auto low = ParseSimple<ui64>(); auto high = ParseSimple<i64>(); return {low, high};")
UP_NARROW = upstream(UP_PUBLIC, "EWireType", "Int8, Int16, Int32, Int64, Int128, Int256, Uint8, Uint16, Uint32, "
                                             "Uint64, Uint128, Uint256")
UP_SIMPLIFY = upstream(UP_MATCH, "TFieldDescription::Simplify",
                       "if (IsSimpleType(wireType)) { if (wireType != EWireType::Nothing || required) { return "
                       "wireType; } }")
UP_INCREMENTAL_WITH_ERROR = upstream(UP_MATCH, "GetRowRangeIndexMode",
                                     "} else if (children == std::vector{EWireType::Nothing, EWireType::Int64, "
                                     "EWireType::Nothing}) { return ERowRangeIndexMode::IncrementalWithError;")


# --- schema descriptions -----------------------------------------------------------------------

def node(wire_type: str, name: str | None = None, *children: object) -> dict[str, Any]:
    out: dict[str, Any] = {"wire_type": wire_type}
    if name is not None:
        out["name"] = name
    if children or wire_type in ("tuple", "variant8", "variant16", "repeated_variant8", "repeated_variant16"):
        out["children"] = list(children)
    return out


def opt(name: str, wire_type: str) -> dict[str, Any]:
    """A nullable column: variant8<nothing;T>."""
    return node("variant8", name, node("nothing"), node(wire_type))


def table(*columns: object) -> dict[str, Any]:
    return node("tuple", None, *columns)


def sparse(*columns: object) -> dict[str, Any]:
    return node("repeated_variant16", "$sparse_columns", *columns)


OTHER_COLUMNS = node("yson32", "$other_columns")


def fmt(*tables: object, registry: Mapping[str, object] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"table_skiff_schemas": list(tables)}
    if registry is not None:
        out["skiff_schema_registry"] = dict(registry)
    return out


def one(wire_type: str, name: str = "c") -> dict[str, Any]:
    """The format of a one-column table."""
    return fmt(table(node(wire_type, name)))


# --- tokens -------------------------------------------------------------------------------------

def i(n: int) -> dict[str, str]:
    return {"int": str(n)}


def u(n: int) -> dict[str, str]:
    """A YSON uint64 (`42u`); integer columns use i() whatever their signedness."""
    return {"uint": str(n)}


def f(x: float) -> dict[str, str]:
    return {"float": repr(x)}


def b(data: bytes | str) -> dict[str, str]:
    return {"bin": (data.encode() if isinstance(data, str) else data).hex()}


def m(**items: object) -> dict[str, Any]:
    """A YSON map."""
    return {"struct": items}


def hexs(*parts: bytes | str) -> str:
    """Stream bytes from parts: bytes as they are, str as hex (spaces allowed)."""
    return b"".join(bytes.fromhex(p) if isinstance(p, str) else p for p in parts).hex()


def le(n: int, width: int, signed: bool = False) -> bytes:
    return n.to_bytes(width, "little", signed=signed)


def s32(data: bytes) -> bytes:
    """A string32 or yson32 field."""
    return le(len(data), 4) + data


# --- cases with their bases -------------------------------------------------------------------------

@dataclass
class Entries:
    """A family's cases and the bases they were made from (docs/architecture.md: adding a case family)."""

    family: str
    cases: list[Case] = field(default_factory=list)
    bases: dict[str, Base] = field(default_factory=dict)

    def base(self, base: Base) -> str:
        if base.name in self.bases and self.bases[base.name] != base:
            raise ValueError(f"base {base.name!r} defined twice, differently")
        self.bases[base.name] = base
        return base.name

    def add(self, name: str, op: str, title: str, cites: Sequence[Citation], *, format: Mapping[str, Any],
            rows: Sequence[Sequence[Any]] = (), kind: str = "golden", expect: str = "read",
            mutations: Sequence[Mutation] = (), notes: str = "", lenient: bool = False, stream: str | None = None,
            streams: Sequence[str] | None = None, base: str | None = None) -> Case:
        """Case `skiff/<family>/<name>/<op>` with its own base `skiff-<family>-<name>-<op>` (unless `base` names
        another): the format and rows, whose data (rows for decode, output streams for encode) a `read` returns.
        A golden `read` rests on the seed as the format's definition (DEFINITION: docs/spec-notes.md#levels)."""
        case_id = f"skiff/{self.family}/{name}/{op}"
        if base is None:
            base = self.base(Base(name=f"skiff-{self.family}-{name.replace('/', '-')}-{op}", description=title,
                                  op=op, format=format, rows=[list(r) for r in rows],
                                  lenient=lenient, stream=stream, streams=tuple(streams) if streams else None))
        if kind == "golden" and expect == "read":
            cites = (DEFINITION, *cites)
        case = Case(id=case_id, title=title, kind=kind, base=base, mutations=tuple(mutations),
                    expect={ROLE: expect}, citations=tuple(cites), notes=notes, op=op)
        self.cases.append(case)
        return case

    def both(self, name: str, title: str, cites: Sequence[Citation], *, format: Mapping[str, Any],
             rows: Sequence[Sequence[Any]], notes: str = "") -> None:
        """A golden pair: the rows' input stream decodes to them; the rows encode to their output streams."""
        self.add(name, "decode", f"decode: {title}", cites, format=format, rows=rows, notes=notes)
        self.add(name, "encode", f"encode: {title}", cites, format=format, rows=rows, notes=notes)
