"""Unit checks of the harness's own rules: `python3 -m unittest bench/accuracy/test_harness.py`."""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare  # noqa: E402
import scip  # noqa: E402


def _varint(n: int) -> bytes:
    out = bytearray()
    n &= 0xFFFFFFFFFFFFFFFF
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num: int, payload: bytes) -> bytes:
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def _occurrence(rng, symbol: str, roles: int) -> bytes:
    packed = b"".join(_varint(x) for x in rng)
    return _field(1, packed) + _field(2, symbol.encode()) + _varint(3 << 3) + _varint(roles)


class ScipReader(unittest.TestCase):
    def test_documents_split_over_index_messages_are_merged(self):
        occ1 = _occurrence([3, 4, 9], "pkg/f().", 1)
        occ2 = _occurrence([7, 2, 8, 5], "pkg/f().", 8)
        doc_a = _field(1, b"a.py") + _field(2, occ1)
        doc_b = _field(1, b"a.py") + _field(2, occ2)
        data = _field(2, doc_a) + _field(2, doc_b)
        with tempfile.NamedTemporaryFile(suffix=".scip", delete=False) as f:
            f.write(data)
        docs = scip.read_index(f.name)
        self.assertEqual(len(docs), 1)
        a, b = docs[0].occurrences
        self.assertEqual((a.line, a.col, a.end_line, a.end_col, a.is_definition), (3, 4, 3, 9, True))
        self.assertEqual((b.line, b.col, b.end_line, b.end_col, b.is_definition), (7, 2, 8, 5, False))

    def test_descriptor_kinds(self):
        k = scip.descriptor_kind
        self.assertEqual(k("scip-python python p 1 `m.a`/C#run()."), "method")
        self.assertEqual(k("scip-python python p 1 `m.a`/C#"), "type")
        self.assertEqual(k("scip-typescript npm p 1 src/`a.ts`/f."), "term")
        self.assertEqual(k("scip-typescript npm p 1 lib/`u.js`/forEach0:"), "meta")
        self.assertEqual(k("scip-python python p 1 `m`/f().(x)"), "parameter")
        self.assertEqual(k("local 3"), "")


class CallPosition(unittest.TestCase):
    def test_calls(self):
        f = compare.at_call_position
        self.assertTrue(f("(x)", "y = ", False))
        self.assertTrue(f(" (x)", "", False))
        self.assertTrue(f("?.(x)", "", True))
        self.assertTrue(f("!(x)", "", True))
        self.assertTrue(f("<T, Map<K, V>>(x)", "", True))
        self.assertTrue(f(";", "const a = new ", True))
        self.assertTrue(f("(1)", "x = new ns.", True))

    def test_not_calls(self):
        f = compare.at_call_position
        self.assertFalse(f(".x", "", False))
        self.assertFalse(f(" = 1", "", True))
        self.assertFalse(f(" < b) (c)", "if (a ", True))
        self.assertFalse(f("!= null", "", True))

    def test_method_definitions_are_not_calls(self):
        f = compare.looks_like_method_definition
        self.assertTrue(f("  ", "(a, b) {"))
        self.assertTrue(f("  async ", "(data) {"))
        self.assertTrue(f("  get ", '(): T["x"] {'))
        self.assertTrue(f("{ ", "() { return 1 }"))
        self.assertFalse(f("  x = ", "(a) {"))
        self.assertFalse(f("  return ", "(a)"))
        self.assertFalse(f("  ", "(a) + 1"))


if __name__ == "__main__":
    unittest.main()
