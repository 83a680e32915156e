"""tsa's call graph against a SCIP oracle, edge by edge.

An edge is (caller definition, callee definition), both identified by tsa
symbol ids: the oracle's definitions are mapped to tsa's by (file, line, name),
and the oracle's call sites get their caller from tsa's own definition spans
(the innermost definition around the line, or the file's `<module>`), which is
tsa's rule for `calls.caller_id`. Definitions are not what is under test; the
binding of a call site to its callee is.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import scip

RESOLUTION = {0: "local", 1: "project", 2: "stdlib", 3: "builtin", 4: "external", 5: "unknown"}

LANGS = {"python": ("python",), "typescript": ("typescript", "javascript", "tsx", "jsx"), "java": ("java",)}


def res_name(code: int) -> str:
    return RESOLUTION.get(code, f"res{code}")


# ---------------------------------------------------------------- tsa side


@dataclass(frozen=True)
class Sym:
    id: int
    fid: int
    name: str
    kind: str
    qualname: str
    line: int
    end_line: int


@dataclass(frozen=True)
class Call:
    id: int
    fid: int
    caller: int | None
    name: str
    receiver: str | None
    line: int
    target: int | None
    resolution: int


class Tsa:
    """The parts of a tsa index the comparison reads."""

    def __init__(self, db: Path):
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        self.files: dict[int, tuple[str, str]] = {}
        self.parse_errors: dict[int, int] = {}
        for fid, path, lang, errs in con.execute("SELECT id, path, language, parse_errors FROM files"):
            self.files[fid] = (path, lang)
            self.parse_errors[fid] = errs
        self.fid_of = {path: fid for fid, (path, _) in self.files.items()}
        self.syms: dict[int, Sym] = {}
        self.by_file: dict[int, list[Sym]] = defaultdict(list)
        self.at_line_name: dict[tuple[int, int, str], list[Sym]] = defaultdict(list)
        for row in con.execute(
            "SELECT s.id, s.file_id, n.name, s.kind, s.qualname, s.line, s.end_line "
            "FROM symbols s JOIN names n ON n.id = s.name_id"
        ):
            s = Sym(*row)
            self.syms[s.id] = s
            self.by_file[s.fid].append(s)
            self.at_line_name[(s.fid, s.line, s.name)].append(s)
        for lst in self.by_file.values():
            lst.sort(key=lambda s: (s.line, -s.end_line, s.id))
        # Several definitions of one qualified name in one file (`@overload` stubs
        # and their implementation, TS overload signatures, `if X: def f` / `else:
        # def f`) are one callee: the first is the canonical id of all.
        first: dict[tuple[int, str, str], int] = {}
        self.same_def: dict[int, int] = {}
        for s in sorted(self.syms.values(), key=lambda s: s.id):
            self.same_def[s.id] = first.setdefault((s.fid, s.kind, s.qualname), s.id)
        self.calls: list[Call] = [
            Call(*row)
            for row in con.execute(
                "SELECT c.id, c.file_id, c.caller_id, n.name, c.receiver, c.line, c.target_id, "
                "c.resolution FROM calls c JOIN names n ON n.id = c.callee_id"
            )
        ]
        self.import_aliases: dict[int, set[str]] = defaultdict(set)
        for fid, alias in con.execute("SELECT file_id, alias FROM imports"):
            self.import_aliases[fid].add(alias)
        self.calls_at: dict[tuple[int, int], list[Call]] = defaultdict(list)
        for c in self.calls:
            self.calls_at[(c.fid, c.line)].append(c)
        con.close()

    def enclosing(self, fid: int, line: int) -> int | None:
        """The innermost definition of the file whose lines span LINE (1-based)."""
        best = None
        for s in self.by_file.get(fid, ()):
            if s.line > line:
                break
            if s.end_line >= line:
                if best is None or (s.line, -s.end_line, s.id) >= (best.line, -best.end_line, best.id):
                    best = s
        return best.id if best else None

    def receiver_shape(self, c: Call) -> str:
        """What the call's receiver looks like, for grouping unresolved calls."""
        r = (c.receiver or "").strip()
        if not r:
            return "bare name"
        if r in ("self", "this", "cls"):
            return "self/this"
        head = r.split(".", 1)[0].split("?", 1)[0]
        if r.endswith(")") or r.endswith(")!"):
            return "call result"
        if head in ("self", "this", "cls"):
            return "self/this field"
        if head in self.import_aliases.get(c.fid, ()):
            return "imported name"
        if head == "super()" or r.startswith("super"):
            return "super"
        if re.fullmatch(r"[A-Za-z_$][\w$]*", r):
            return "plain name (local/param)" if not r[:1].isupper() else "Capitalized name"
        if re.fullmatch(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+", r):
            return "dotted name"
        return "other expression"

    def describe(self, sid: int | None) -> str:
        if sid is None:
            return "-"
        s = self.syms.get(sid)
        if s is None:
            return f"#{sid}?"
        return f"{s.kind} {s.qualname} @{self.files[s.fid][0]}:{s.line}"


# ---------------------------------------------------------------- source text


class Sources:
    """Lines of the corpus files, with SCIP's UTF-16 columns mapped to str indexes."""

    def __init__(self, root: Path):
        self.root = root
        self._lines: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        ls = self._lines.get(path)
        if ls is None:
            try:
                ls = (self.root / path).read_text(encoding="utf-8", errors="replace").split("\n")
            except OSError:
                ls = []
            self._lines[path] = ls
        return ls

    def line(self, path: str, line0: int) -> str:
        ls = self.lines(path)
        return ls[line0] if 0 <= line0 < len(ls) else ""

    @staticmethod
    def col(text: str, utf16_col: int) -> int:
        if text.isascii():
            return utf16_col
        units = 0
        for i, ch in enumerate(text):
            if units >= utf16_col:
                return i
            units += 2 if ord(ch) > 0xFFFF else 1
        return len(text)

    def span_text(self, path: str, occ: scip.Occurrence) -> str:
        if occ.line != occ.end_line:
            return ""
        t = self.line(path, occ.line)
        return t[self.col(t, occ.col) : self.col(t, occ.end_col)]

    def after(self, path: str, line0: int, utf16_col: int, limit: int = 600) -> str:
        """Source text from a position on, across at most a few lines."""
        ls = self.lines(path)
        if not 0 <= line0 < len(ls):
            return ""
        t = ls[line0]
        out = t[self.col(t, utf16_col) :]
        i = line0 + 1
        while len(out) < limit and i < len(ls) and i < line0 + 8:
            out += "\n" + ls[i]
            i += 1
        return out[:limit]

    def before(self, path: str, line0: int, utf16_col: int) -> str:
        t = self.line(path, line0)
        return t[: self.col(t, utf16_col)]


_DEF_BEFORE = re.compile(r"(?:\bdef|\bclass|\bfunction\s*\*?)\s+$")
_NEW_BEFORE = re.compile(r"\bnew\s+(?:[A-Za-z_$][\w$]*\s*\.\s*)*$")


def at_call_position(after: str, before: str, typescript: bool) -> bool:
    """Is the reference called: `name(`, `name?.(`, `name!(`, `name<T>(`, `new name`,
    or passed to be called as a method reference (`Foo::name`)."""
    if typescript and _NEW_BEFORE.search(before):
        return True
    if typescript and before.rstrip().endswith("::"):
        return True
    s = after.lstrip()
    if typescript:
        if s.startswith("!") and not s.startswith("!="):
            s = s[1:].lstrip()
        if s.startswith("?."):
            s = s[2:].lstrip()
        if s.startswith("<"):
            depth = 0
            for i, ch in enumerate(s):
                if ch == "<":
                    depth += 1
                elif ch == ">" and (i == 0 or s[i - 1] != "="):
                    depth -= 1
                    if depth == 0:
                        s = s[i + 1 :].lstrip()
                        break
                elif ch in ";)":
                    return False
            else:
                return False
    return s.startswith("(")


# ---------------------------------------------------------------- the oracle side


@dataclass
class Site:
    """A call site: where, the called name's text, caller and callee keys."""

    fid: int
    line: int  # 1-based
    name: str
    caller: object
    callee: object
    symbol: str = ""
    resolution: int | None = None  # tsa side only
    target: int | None = None  # tsa side only


@dataclass
class Side:
    edges: dict = field(default_factory=lambda: defaultdict(list))  # edge -> [Site]


def module_key(fid: int) -> tuple[str, int]:
    return ("<module>", fid)


def symbol_key(path: str, symbol: str) -> str:
    """Global symbols as they are; `local N` symbols are per document."""
    return f"{path}::{symbol}" if scip.is_local(symbol) else symbol


CONSTRUCTOR = "`<constructor>`()."
# SCIP descriptor kinds that may name a callee (`meta` is an object-literal
# property: `module.exports = { f }`, `export default { f }`).
CALLEE_KINDS = ("method", "type", "term", "meta")
CALLABLE_TSA_KINDS = ("function", "method", "class")
# Extras the oracle cannot judge: it has no binding at all for the name.
UNJUDGED = ("oracle_unresolved", "oracle_silent", "oracle_inconsistent")


def callee_kind(key: str) -> str:
    """method / type / term (a local is a term: a value that may hold a function)."""
    if "::local " in key:
        return "term"
    return scip.descriptor_kind(key)


_LITERAL_METHOD_HEAD = re.compile(
    r"^(?:.*[,{]\s*)?(?:(?:async|get|set|static|public|private|protected|readonly|override)\s+|\*\s*)*$")
_BODY_AFTER_PARAMS = re.compile(r"^\s*(?::[^;{}=()]*)?\{")


def looks_like_method_definition(before: str, after: str) -> bool:
    """`name(params) {` (or `name(params): T {`) starting a line or following
    `{`/`,`: an object-literal or class method written where the oracle records
    a reference (to the interface member it implements), not a call."""
    if not _LITERAL_METHOD_HEAD.match(before.lstrip()):
        return False
    s = after.lstrip()
    if not s.startswith("("):
        return False
    depth = 0
    for i, ch in enumerate(s):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return bool(_BODY_AFTER_PARAMS.match(s[i + 1 :]))
    return False


class Comparison:
    def __init__(self, tsa: Tsa, docs: list[scip.Document], root: Path, oracle: str):
        self.tsa = tsa
        self.src = Sources(root)
        self.typescript = oracle == "typescript"
        # `new X(...)` and `name<T>(...)` call shapes (TypeScript and Java).
        self.new_and_generics = oracle in ("typescript", "java")
        langs = LANGS[oracle]
        self.doc_paths = {d.path for d in docs}
        # The comparable universe: tsa files of the oracle's languages that the oracle indexed.
        self.universe = {
            fid for fid, (path, lang) in tsa.files.items() if lang in langs and path in self.doc_paths
        }
        self.lang_of = {fid: tsa.files[fid][1] for fid in self.universe}
        self.notes: Counter = Counter()
        self._map_definitions(docs)
        self._join_stubs()
        self._oracle_sites(docs)
        self._tsa_sites()

    # -- definitions

    def _map_definitions(self, docs: list[scip.Document]) -> None:
        """SCIP symbol -> tsa symbol ids of its definitions; alias: tsa id -> canonical id."""
        defs: dict[str, list[tuple[str, scip.Occurrence]]] = defaultdict(list)
        refs_at: dict[tuple, list[str]] = defaultdict(list)
        for d in docs:
            for o in d.occurrences:
                key = symbol_key(d.path, o.symbol)
                if o.is_definition:
                    defs[key].append((d.path, o))
                else:
                    refs_at[(d.path, o.line, o.col, o.end_line, o.end_col)].append(key)
        self.project_symbols = set(defs)
        self._defs = defs
        self._refs_at = refs_at
        self.sym_targets: dict[str, list[int]] = {}
        self.alias: dict[int, int] = {}
        for symbol in defs:
            if callee_kind(symbol) in CALLEE_KINDS:
                self._targets(symbol)

    def _targets(self, symbol: str, depth: int = 0) -> list[int]:
        """The tsa definitions a SCIP symbol stands for (memoized). Methods and
        classes map by (file, line, name); a variable, property or local maps
        only to a tsa function/method/class there, or else through the symbol
        its definition names (`export default { forEach }`: the property
        `forEach` is the function `forEach`)."""
        got = self.sym_targets.get(symbol)
        if got is not None:
            return got
        self.sym_targets[symbol] = []  # cycle guard
        kind = callee_kind(symbol)
        ids: list[int] = []
        for path, o in self._defs.get(symbol, ()):
            fid = self.tsa.fid_of.get(path)
            if fid is None:
                continue
            name = self.src.span_text(path, o)
            s = self._tsa_def_at(fid, o.line + 1, name)
            if s is not None and (kind in ("method", "type") or s.kind in CALLABLE_TSA_KINDS):
                if s.id not in ids:
                    ids.append(s.id)
        if not ids and kind in ("term", "meta") and depth < 4:
            for path, o in self._defs.get(symbol, ()):
                for other in self._refs_at.get((path, o.line, o.col, o.end_line, o.end_col), ()):
                    if other != symbol and other in self.project_symbols:
                        for t in self._targets(other, depth + 1):
                            if t not in ids:
                                ids.append(t)
        ids = list(dict.fromkeys(self.tsa.same_def[i] for i in ids))
        self.sym_targets[symbol] = ids
        if ids:
            for i in ids:
                self.alias.setdefault(i, self.alias.get(ids[0], ids[0]))
        return ids

    def _join_stubs(self) -> None:
        """A definition in a `.pyi` stub and the one `.py` definition of the same
        qualified name and kind are one callee: pyright binds calls to the stub,
        a resolver may rightly bind them to the implementation."""
        by_qual: dict[tuple[str, str], list[Sym]] = defaultdict(list)
        for sym in self.tsa.syms.values():
            path = self.tsa.files[sym.fid][0]
            if path.endswith(".py") and sym.fid in self.universe:
                by_qual[(sym.qualname, sym.kind)].append(sym)
        # A package stub (`attr/__init__.pyi`) declares names its modules implement
        # (`attr/_funcs.py`): a top-level stub definition joins the one `.py`
        # top-level definition of that name under the stub's folder, whatever its
        # kind (a stub may declare a class as a function).
        under: dict[tuple[str, str], list[Sym]] = defaultdict(list)
        for sym in self.tsa.syms.values():
            path = self.tsa.files[sym.fid][0]
            if path.endswith(".py") and sym.fid in self.universe and "." not in sym.qualname:
                d = path.rsplit("/", 1)[0] if "/" in path else ""
                while True:
                    under[(d, sym.name)].append(sym)
                    if not d:
                        break
                    d = d.rsplit("/", 1)[0] if "/" in d else ""
        joined = 0
        for sym in self.tsa.syms.values():
            path = self.tsa.files[sym.fid][0]
            if not path.endswith(".pyi") or sym.fid not in self.universe:
                continue
            impls = by_qual.get((sym.qualname, sym.kind), [])
            if len(impls) != 1 and "." not in sym.qualname:
                # The stub's own `.py` module says where the name comes from
                # (`from ._funcs import asdict`): read as text, not through tsa.
                impl = self._imported_by_sibling(path, sym.name)
                if impl is not None:
                    impls = [impl]
            if len(impls) != 1 and "." not in sym.qualname:
                d = path.rsplit("/", 1)[0] if "/" in path else ""
                pkg = [s for s in under.get((d, sym.name), [])]
                if len(pkg) == 1:
                    impls = pkg
            if len(impls) == 1:
                stub = self.canon(sym.id)
                impl = self.tsa.same_def[impls[0].id]
                for i in [k for k, v in self.alias.items() if v == impl] + [impl]:
                    self.alias[i] = stub
                joined += 1
        if joined:
            self.notes["pyi_stub_definitions_joined_to_their_implementation"] = joined

    def _imported_by_sibling(self, stub_path: str, name: str) -> "Sym | None":
        """The top-level definition that the `.py` beside a `.pyi` stub imports
        under `name` with a relative `from .mod import ... name` (or defines)."""
        py = stub_path[:-1]
        fid = self.tsa.fid_of.get(py)
        if fid is None:
            return None
        own = [s for s in self.tsa.by_file.get(fid, []) if s.qualname == name]
        if own:
            return own[0]
        text = "\n".join(self.src.lines(py))
        text = re.sub(r"\(\s*([^)]*)\)", lambda m: m.group(1).replace("\n", " "), text)
        pkg = py.rsplit("/", 1)[0] if "/" in py else ""
        for m in re.finditer(r"^from\s+(\.+)([\w.]*)\s+import\s+(.+)$", text, re.M):
            dots, mod, names = m.group(1), m.group(2), m.group(3)
            for item in names.split(","):
                parts = item.split()
                if not parts:
                    continue
                orig, alias = parts[0], parts[-1]
                if alias != name:
                    continue
                base = pkg
                for _ in range(len(dots) - 1):
                    base = base.rsplit("/", 1)[0] if "/" in base else ""
                rel = mod.replace(".", "/")
                stem = f"{base}/{rel}" if base else rel
                for cand in (f"{stem}.py", f"{stem}/__init__.py"):
                    cfid = self.tsa.fid_of.get(cand)
                    if cfid is not None:
                        hits = [s for s in self.tsa.by_file.get(cfid, []) if s.qualname == orig]
                        if hits:
                            return hits[0]
        return None

    def _tsa_def_at(self, fid: int, line: int, name: str) -> Sym | None:
        cands = self.tsa.at_line_name.get((fid, line, name))
        if cands:
            return cands[0]
        # tsa's line is a decorator or `export` line above the name, or the line
        # of the function value below it (`export const f =\n  (x) => ...`).
        best = None
        for s in self.tsa.by_file.get(fid, ()):
            if s.name != name:
                continue
            if s.line <= line <= s.end_line and line - s.line <= 8:
                d = line - s.line
            elif line < s.line <= line + 3:
                d = s.line - line
            else:
                continue
            if best is None or d < best[0]:
                best = (d, s)
        return best[1] if best else None

    def canon(self, sid: int | None):
        if sid is None:
            return None
        sid = self.tsa.same_def.get(sid, sid)
        return self.alias.get(sid, sid)

    def caller_of(self, fid: int, line: int):
        c = self.tsa.enclosing(fid, line)
        return c if c is not None else module_key(fid)

    # -- oracle call sites

    def _oracle_sites(self, docs: list[scip.Document]) -> None:
        self.oracle = Side()
        self.oracle_at: dict[tuple[int, int], list[Site]] = defaultdict(list)
        # Every named occurrence on a line, for explaining extras.
        self.occ_at: dict[tuple[int, int], list[tuple[str, str, int, bool]]] = defaultdict(list)
        self.inconsistent: set[tuple[int, int, str]] = set()
        for d in docs:
            fid = self.tsa.fid_of.get(d.path)
            if fid not in self.universe:
                continue
            for o in d.occurrences:
                if o.is_definition:
                    continue
                text = self.src.span_text(d.path, o)
                called = at_call_position(self.src.after(d.path, o.line, o.end_col),
                                          self.src.before(d.path, o.line, o.col), self.new_and_generics)
                key = symbol_key(d.path, o.symbol)
                if key.endswith(CONSTRUCTOR) and text != "constructor":
                    # `new X(...)` names X's constructor; tsa's callee is the class X.
                    cls = key[: -len(CONSTRUCTOR)]
                    if cls in self.project_symbols:
                        key = cls
                self.occ_at[(fid, o.line + 1)].append((text, key, o.roles, called))
                if o.roles & scip.ROLE_IMPORT or key not in self.project_symbols:
                    continue
                kind = callee_kind(key)
                if kind not in CALLEE_KINDS or not called:
                    continue
                before = self.src.before(d.path, o.line, o.col)
                if _DEF_BEFORE.search(before):
                    # The name of a definition that the oracle records as a reference
                    # (pyright: the second and later `@overload` of a function).
                    self.notes["oracle_reference_at_a_def_name"] += 1
                    continue
                if self.typescript and looks_like_method_definition(
                        before, self.src.after(d.path, o.line, o.end_col)):
                    self.notes["oracle_reference_at_a_method_definition"] += 1
                    continue
                targets = self._targets(key)
                if not targets and kind in ("term", "meta"):
                    # A called variable or property that is no definition tsa has
                    # (a callback parameter, a field holding a function).
                    self.notes["oracle_called_values_without_tsa_def"] += 1
                    continue
                line = o.line + 1
                if targets:
                    callee = self.alias[targets[0]]
                    if self.tsa.syms[callee].fid not in self.universe:
                        self.notes["oracle_callee_outside_universe"] += 1
                        continue
                    if before.rstrip().endswith(".") and self.tsa.syms[callee].name != text:
                        # `obj.name(` whose oracle callee has another name: the oracle
                        # contradicts itself (scip-python resolves `pkg.X` through a
                        # star import to another name of the module). Not judged.
                        self.notes["oracle_inconsistent_sites"] += 1
                        self.inconsistent.add((fid, line, text))
                        continue
                else:
                    callee = ("unmapped", key)
                site = Site(fid, line, text, self.caller_of(fid, line), callee, key)
                self.oracle.edges[(site.caller, site.callee)].append(site)
                self.oracle_at[(fid, line)].append(site)

    # -- tsa call sites

    def _tsa_sites(self) -> None:
        self.tsa_side = Side()
        self.res_rows: Counter = Counter()  # resolution -> call rows in the universe
        self.res_bound: Counter = Counter()  # resolution -> rows with a target
        self.caller_agree = Counter()
        for c in self.tsa.calls:
            if c.fid not in self.universe:
                continue
            self.res_rows[res_name(c.resolution)] += 1
            # How well this harness's caller rule reproduces tsa's own caller_id.
            mine = self.tsa.enclosing(c.fid, c.line)
            self.caller_agree["same" if mine == c.caller else "different"] += 1
            if c.target is None:
                continue
            self.res_bound[res_name(c.resolution)] += 1
            t = self.tsa.syms.get(c.target)
            if t is None or t.fid not in self.universe:
                self.notes["tsa_target_outside_universe"] += 1
                continue
            caller = c.caller if c.caller is not None else module_key(c.fid)
            site = Site(c.fid, c.line, c.name, caller, self.canon(c.target), "", c.resolution, c.target)
            self.tsa_side.edges[(caller, site.callee)].append(site)

    # -- results

    def lang_of_edge(self, edge) -> str:
        caller = edge[0]
        fid = caller[1] if isinstance(caller, tuple) else self.tsa.syms[caller].fid
        return self.lang_of.get(fid, "?")

    def scores(self) -> dict[str, dict]:
        """Per language: tsa, oracle and common edge counts, precision, recall."""
        out: dict[str, dict] = {}
        o_edges, t_edges = set(self.oracle.edges), set(self.tsa_side.edges)
        unjudged = {x["edge"] for x in self.extras() if x["cause"] in UNJUDGED}
        for lang in sorted({self.lang_of_edge(e) for e in o_edges | t_edges}):
            o = {e for e in o_edges if self.lang_of_edge(e) == lang}
            t = {e for e in t_edges if self.lang_of_edge(e) == lang}
            both = o & t
            unmapped = {e for e in o if isinstance(e[1], tuple)}
            judged = t - unjudged
            out[lang] = {
                "tsa_edges": len(t),
                "tsa_edges_unjudged": len(t) - len(judged),
                "precision_judged": len(both) / len(judged) if judged else None,
                "oracle_edges": len(o),
                "common": len(both),
                "oracle_edges_unmapped_callee": len(unmapped),
                "precision": len(both) / len(t) if t else None,
                "recall": len(both) / len(o) if o else None,
                "recall_mapped_only": len(both) / len(o - unmapped) if o - unmapped else None,
            }
        return out

    def _where(self, site: Site) -> str:
        return f"{self.tsa.files[site.fid][0]}:{site.line}"

    def _code(self, site: Site) -> str:
        return self.src.line(self.tsa.files[site.fid][0], site.line - 1).strip()[:140]

    def misses(self) -> list[dict]:
        out = []
        t_edges = self.tsa_side.edges
        for edge, sites in self.oracle.edges.items():
            if edge in t_edges:
                continue
            site = sites[0]
            rows = self._tsa_rows_near(site)
            if isinstance(site.callee, tuple):
                def_fids = {self.tsa.fid_of.get(path) for path, _ in self._defs.get(site.callee[1], ())}
                cause = ("parse_error" if any(self.tsa.parse_errors.get(f) for f in def_fids)
                         else "callee_unmapped")
            elif not rows:
                cause = "parse_error" if self.tsa.parse_errors.get(site.fid) else "no_call_site"
            elif any(self.canon(c.target) == site.callee for c in rows):
                cause = "caller_mismatch"
            elif any(c.target is not None for c in rows):
                cause = "bound_elsewhere"
            else:
                cause = res_name(rows[0].resolution)
            shape = self.tsa.receiver_shape(rows[0]) if rows else ""
            if rows:
                r = rows[0]
                said = f"{res_name(r.resolution)} -> {self.tsa.describe(r.target)}"
                if r.receiver:
                    said += f" [receiver {r.receiver[:60]!r}]"
                if cause == "caller_mismatch":
                    said += f" (caller {self.tsa.describe(r.caller) if r.caller else '<module>'})"
            else:
                other = [c.name for c in self.tsa.calls_at.get((site.fid, site.line), [])]
                said = "no call of this name on the line" + (f" (calls there: {', '.join(other[:6])})" if other else "")
            out.append({
                "cause": cause,
                "lang": self.lang_of_edge(edge),
                "where": self._where(site),
                "callee": site.name,
                "code": self._code(site),
                "tsa": said,
                "oracle": (f"{self.tsa.describe(site.callee)}" if not isinstance(site.callee, tuple)
                           else f"unmapped {site.symbol}")
                + f" (caller {self._caller_text(site.caller)})",
                "sites": len(sites),
                "receiver_shape": shape,
                "callee_kind": ("unmapped" if isinstance(site.callee, tuple)
                                else self.tsa.syms[site.callee].kind),
            })
        return out

    # tsa stores a call at the first line of the call expression, SCIP at the
    # called name: in a chain spread over lines (`a\n  .b()\n  .c()`) the name
    # is below the expression's start. Sites are looked up within WINDOW lines.
    WINDOW = 30

    def _tsa_rows_near(self, site: Site) -> list[Call]:
        for line in range(site.line, max(0, site.line - self.WINDOW), -1):
            rows = [c for c in self.tsa.calls_at.get((site.fid, line), []) if c.name == site.name]
            if rows:
                return rows
        return []

    def _oracle_near(self, site: Site) -> tuple[list[Site], list[tuple]]:
        for line in range(site.line, site.line + self.WINDOW):
            osites = [s for s in self.oracle_at.get((site.fid, line), []) if s.name == site.name]
            occs = [x for x in self.occ_at.get((site.fid, line), []) if x[0] == site.name]
            occs.sort(key=lambda x: not x[3])  # a called occurrence explains best
            if osites or occs:
                return osites, occs
        return [], []

    def _caller_text(self, caller) -> str:
        return "<module>" if isinstance(caller, tuple) else self.tsa.syms[caller].qualname

    def extras(self) -> list[dict]:
        if getattr(self, "_extras", None) is None:
            self._extras = self._compute_extras()
        return self._extras

    def _compute_extras(self) -> list[dict]:
        out = []
        o_edges = self.oracle.edges
        for edge, sites in self.tsa_side.edges.items():
            if edge in o_edges:
                continue
            site = sites[0]
            osites, occs = self._oracle_near(site)
            oracle_said = ""
            if any((site.fid, ln, site.name) in self.inconsistent
                   for ln in range(site.line, site.line + self.WINDOW)) and not osites:
                cause = "oracle_inconsistent"
                oracle_said = "the oracle's callee here has another name than the call (oracle defect)"
            elif any(s.callee == site.callee for s in osites):
                cause = "caller_mismatch"
                s = next(s for s in osites if s.callee == site.callee)
                oracle_said = f"same callee, caller {self._caller_text(s.caller)}"
            elif osites:
                cause = "wrong_target"
                oracle_said = self.tsa.describe(osites[0].callee) if not isinstance(osites[0].callee, tuple) \
                    else f"unmapped {osites[0].symbol}"
            elif not occs:
                cause = "oracle_silent"
                oracle_said = "no reference at this name on the line"
            else:
                text, symbol, roles, called = occs[0]
                oracle_said = symbol
                if symbol not in self.project_symbols and "::local " in symbol:
                    cause = "oracle_unresolved"
                    oracle_said += " (a local name without a definition: an unresolved import)"
                elif symbol not in self.project_symbols:
                    cause = "oracle_external"
                elif callee_kind(symbol) not in CALLEE_KINDS:
                    cause = "oracle_noncallable"
                elif not called:
                    cause = "not_call_position"
                elif "::local " in symbol:
                    cause = "oracle_local_value"
                    oracle_said += " (a local name the oracle binds to a variable or import, not a definition tsa has)"
                elif callee_kind(symbol) in ("term", "meta"):
                    cause = "oracle_property"
                    oracle_said += " (a variable or property, no definition tsa has)"
                else:
                    cause = "oracle_other"
            out.append({
                "cause": cause,
                "lang": self.lang_of_edge(edge),
                "where": self._where(site),
                "callee": site.name,
                "code": self._code(site),
                "tsa": f"{res_name(site.resolution)} -> {self.tsa.describe(site.target)}"
                + f" (caller {self._caller_text(site.caller)})",
                "oracle": oracle_said,
                "sites": len(sites),
                "resolution": res_name(site.resolution),
                "edge": edge,
            })
        return out

    def precision_by_resolution(self) -> dict[str, dict]:
        """tsa edges by the resolution class of their first call row, and how many
        the oracle confirms."""
        agg: dict[str, Counter] = defaultdict(Counter)
        for edge, sites in self.tsa_side.edges.items():
            r = res_name(sites[0].resolution)
            agg[r]["edges"] += 1
            if edge in self.oracle.edges:
                agg[r]["confirmed"] += 1
        return {r: {"edges": c["edges"], "confirmed": c["confirmed"],
                    "precision": c["confirmed"] / c["edges"] if c["edges"] else None}
                for r, c in sorted(agg.items())}
