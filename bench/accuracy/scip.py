"""A minimal reader of SCIP index files (protobuf wire format, no dependencies).

Only the fields the accuracy harness needs are decoded:

    Index:        2 documents (repeated Document)
    Document:     1 relative_path, 2 occurrences (repeated Occurrence), 4 language
    Occurrence:   1 range (packed int32: [line, start, end] or
                  [start_line, start_col, end_line, end_col]), 2 symbol, 3 symbol_roles

An index file may be several Index messages written one after the other
(scip-python writes one per document): on the wire that is the same as one
Index whose repeated fields are concatenated, so a single pass reads it all.
Lines and columns are 0-based, as SCIP stores them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ROLE_DEFINITION = 0x1
ROLE_IMPORT = 0x2


@dataclass
class Occurrence:
    line: int
    col: int
    end_line: int
    end_col: int
    symbol: str
    roles: int

    @property
    def is_definition(self) -> bool:
        return bool(self.roles & ROLE_DEFINITION)


@dataclass
class Document:
    path: str
    language: str = ""
    occurrences: list[Occurrence] = field(default_factory=list)


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _fields(buf: bytes, start: int = 0, end: int | None = None):
    """Yield (field number, wire type, value) where value is an int for varints
    and a (start, end) slice for length-delimited fields."""
    pos = start
    end = len(buf) if end is None else end
    while pos < end:
        key, pos = _varint(buf, pos)
        num, wt = key >> 3, key & 7
        if wt == 0:
            val, pos = _varint(buf, pos)
            yield num, wt, val
        elif wt == 2:
            ln, pos = _varint(buf, pos)
            yield num, wt, (pos, pos + ln)
            pos += ln
        elif wt == 1:
            pos += 8
        elif wt == 5:
            pos += 4
        else:
            raise ValueError(f"unsupported wire type {wt} at byte {pos}")


def _int32(v: int) -> int:
    # int32 fields are sign-extended to 64 bits on the wire.
    v &= 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v >= 1 << 63 else v


def _occurrence(buf: bytes, s: int, e: int) -> Occurrence | None:
    rng: list[int] = []
    symbol = ""
    roles = 0
    for num, wt, val in _fields(buf, s, e):
        if num == 1:
            if wt == 2:
                p, q = val
                while p < q:
                    x, p = _varint(buf, p)
                    rng.append(_int32(x))
            else:
                rng.append(_int32(val))
        elif num == 2:
            symbol = buf[val[0] : val[1]].decode("utf-8", "replace")
        elif num == 3:
            roles = _int32(val)
    if len(rng) == 3:
        return Occurrence(rng[0], rng[1], rng[0], rng[2], symbol, roles)
    if len(rng) == 4:
        return Occurrence(rng[0], rng[1], rng[2], rng[3], symbol, roles)
    return None


def _document(buf: bytes, s: int, e: int) -> Document:
    doc = Document(path="")
    for num, wt, val in _fields(buf, s, e):
        if wt != 2:
            continue
        if num == 1:
            doc.path = buf[val[0] : val[1]].decode("utf-8", "replace")
        elif num == 4:
            doc.language = buf[val[0] : val[1]].decode("utf-8", "replace")
        elif num == 2:
            occ = _occurrence(buf, *val)
            if occ is not None and occ.symbol:
                doc.occurrences.append(occ)
    return doc


def read_index(path: str) -> list[Document]:
    """All documents of a SCIP index file; documents of one path are merged."""
    with open(path, "rb") as f:
        buf = f.read()
    docs: dict[str, Document] = {}
    for num, wt, val in _fields(buf):
        if num == 2 and wt == 2:
            d = _document(buf, *val)
            old = docs.get(d.path)
            if old is None:
                docs[d.path] = d
            else:
                old.occurrences.extend(d.occurrences)
    return list(docs.values())


def is_local(symbol: str) -> bool:
    return symbol.startswith("local ")


def descriptor_kind(symbol: str) -> str:
    """The kind of the last descriptor of a global symbol: `method` (`name().` or
    `name(disambiguator).`), `type` (`Name#`), `term` (`name.`), `namespace`
    (`name/`), `parameter` (`(name)`), `type_parameter` (`[name]`), `meta`
    (`name:`), `macro` (`name!`), or `` for local or unparsable symbols."""
    if is_local(symbol) or not symbol:
        return ""
    s = symbol
    if s.endswith(")."):
        return "method"
    last = s[-1]
    if last == "#":
        return "type"
    if last == ".":
        return "term"
    if last == "/":
        return "namespace"
    if last == ")":
        return "parameter"
    if last == "]":
        return "type_parameter"
    if last == ":":
        return "meta"
    if last == "!":
        return "macro"
    return ""


def read_json(path: str) -> list[Document]:
    """Documents of an oracle that writes SCIP's shape as JSON (the javac oracle,
    oracles/java/JavaCallOracle.java): {"documents": [{"path": P, "occurrences":
    [[line, col, end_col, symbol, roles], ...]}]}, 0-based, UTF-16 columns."""
    import json

    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    docs: dict[str, Document] = {}
    for d in data["documents"]:
        doc = docs.setdefault(d["path"], Document(path=d["path"], language=d.get("language", "")))
        for line, col, end_col, symbol, roles in d["occurrences"]:
            doc.occurrences.append(Occurrence(line, col, line, end_col, symbol, roles))
    return list(docs.values())


def read_any(path: str) -> list[Document]:
    """A SCIP protobuf index, or the JSON form when the file name ends in `.json`."""
    return read_json(path) if str(path).endswith(".json") else read_index(path)
