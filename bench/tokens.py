#!/usr/bin/env python3
"""What an agent pays for tsa's answers: characters and tokens, on a real corpus.

    python3 bench/tokens.py [--corpus django] [--tsa-bin PATH] [--no-peers] [--names N]

Over MCP (stdio, one server per tool, driven from here) on one corpus, prints and saves:

* the size of `tools/list` (minified JSON of its result, characters and tokens);
* per action, with default arguments, over a fixed set of names: the median and largest
  answer (the whole text block an MCP client hands to the model);
* per action, the TOON/JSON ratio: `toon_content` against the minified JSON answer of the
  same call with `output_format=json` (median and worst);
* the same figures for tree-sitter-analyzer (PyPI) and CodeGraph (npm) where they have the
  action (installed by bench/peers.py into $BENCH_DIR, default /tmp/tsa-bench).

The names are chosen from the corpus by Python's own `ast` (no tool picks them): the N
function names called most often that the corpus also defines, and `__init__` (what
agents ask about most). Results go to bench/results/<date>-tokens-<corpus>.{json,md}.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import json
import os
import statistics
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import peers  # noqa: E402

CLAUDE_CODE_CAP_TOKENS = 25_000


def common_names(src: Path, k: int) -> list[str]:
    defs: Counter = Counter()
    calls: Counter = Counter()
    for path in sorted(src.rglob("*.py")):
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs[node.name] += 1
            elif isinstance(node, ast.Call):
                f = node.func
                n = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                if n:
                    calls[n] += 1
    ranked = sorted((n for n in calls if defs[n] > 0), key=lambda n: (-calls[n], n))
    # `__init__` is rarely called by name yet is what agents ask about most, and the
    # largest answer of all: always measured.
    return ["__init__", *[n for n in ranked if n != "__init__"][: k - 1]]


def biggest_py(src: Path, k: int) -> list[str]:
    files = sorted(src.rglob("*.py"), key=lambda p: (-p.stat().st_size, str(p)))
    return [str(p.relative_to(src)) for p in files[:k]]


def calls_for(names: list[str], files: list[str]) -> list[tuple[str, str, dict]]:
    """(label, tool, arguments) with default arguments beyond the required ones."""
    out = []
    for n in names:
        out.append(("nav callers", "nav", {"action": "callers", "function_name": n}))
        out.append(("nav callees", "nav", {"action": "callees", "function_name": n}))
        out.append(("search symbol", "search", {"action": "symbol", "query": n}))
        out.append(("nav context", "nav", {"action": "context", "task": f"change how {n} works"}))
        out.append(("nav caller_tree", "nav", {"action": "caller_tree", "symbol": n}))
        out.append(("nav impact", "nav", {"action": "impact", "function_name": n}))
        out.append(("structure explore", "structure", {"action": "explore", "query": n}))
        out.append(("search content", "search", {"action": "content", "query": n}))
    for f in files:
        out.append(("structure outline", "structure", {"action": "outline", "file_path": f}))
        out.append(("structure signatures", "structure", {"action": "signatures", "file_path": f}))
        out.append(("health file", "health", {"action": "file", "file_path": f}))
    return out


def minified(text: str) -> str:
    try:
        return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
    except json.JSONDecodeError:
        return text


def measure(tool: peers.Tool, calls, tok: peers.Tokens, has_json: bool) -> dict:
    env = tool.env()
    tool.home.mkdir(parents=True, exist_ok=True)
    m = peers.Mcp(tool.mcp_cmd(), tool.root, env, tool.work / "mcp-tokens.err")
    try:
        m.initialize()
        tl = m.request("tools/list", {})
        listing = json.dumps(tl.get("result", {}), separators=(",", ":"), ensure_ascii=False)
        names = {t["name"] for t in tl.get("result", {}).get("tools", [])}
        rows: dict[str, list[dict]] = {}
        for label, facade, args in calls:
            if facade not in names:
                continue
            r = m.request("tools/call", {"name": facade, "arguments": args}, timeout=900)
            text = peers.mcp_text(r)
            row = {"args": args, "chars": len(text), "tokens": tok.count(text), "error": bool(r.get("result", {}).get("isError"))}
            if has_json:
                try:
                    toon = json.loads(text).get("toon_content")
                except (json.JSONDecodeError, AttributeError):
                    toon = None
                if toon is not None:
                    rj = m.request("tools/call", {"name": facade, "arguments": {**args, "output_format": "json"}}, timeout=900)
                    js = minified(peers.mcp_text(rj))
                    row["toon_chars"], row["json_chars"] = len(toon), len(js)
            rows.setdefault(label, []).append(row)
    finally:
        m.close()
    return {"tools_list_chars": len(listing), "tools_list_tokens": tok.count(listing),
            "tools": len(names), "actions": rows}


def summarise(rows: list[dict]) -> dict:
    chars = [r["chars"] for r in rows]
    out = {"calls": len(rows), "median_chars": statistics.median(chars), "max_chars": max(chars),
           "max_tokens": max(r["tokens"] for r in rows),
           "over_claude_cap": sum(r["tokens"] > CLAUDE_CODE_CAP_TOKENS for r in rows)}
    ratios = [r["toon_chars"] / r["json_chars"] for r in rows if r.get("json_chars")]
    if ratios:
        out["toon_json_median"] = statistics.median(ratios)
        out["toon_json_max"] = max(ratios)
        out["toon_larger"] = sum(x > 1 for x in ratios)
    return out


def main() -> None:
    peers.bootstrap(__file__)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="django")
    ap.add_argument("--tsa-bin")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--names", type=int, default=10)
    ap.add_argument("--files", type=int, default=3)
    args = ap.parse_args()
    if not args.no_peers:
        peers.install_peers(False)
    tok = peers.Tokens()
    src, label = peers.corpus_source(args.corpus)
    names = common_names(src, args.names)
    files = biggest_py(src, args.files)
    calls = calls_for(names, files)
    peers.log(f"corpus: {label}\nnames: {', '.join(names)}\nfiles: {', '.join(files)}")
    work = peers.BENCH_DIR / "tokens" / args.corpus
    tools = [peers.Tsa(work / "tsa", peers.tsa_binary(args.tsa_bin))]
    if not args.no_peers:
        tools += [peers.TreeSitterAnalyzer(work / "tree-sitter-analyzer"), peers.CodeGraph(work / "codegraph")]
    results = {}
    for t in tools:
        if not t.root.exists():
            peers.copy_tree(src, t.root)
        t.wipe_index()
        peers.log(f"[{t.label}] {t.version()}: indexing")
        peers.quick_run(t.cold(), t.root, t.env(), timeout=3600)
        t_calls = calls
        if isinstance(t, peers.CodeGraph):
            t_calls = [("nav callers", "codegraph_callers", {"symbol": n}) for n in names]
        peers.log(f"[{t.label}] {len(t_calls)} calls over MCP")
        r = measure(t, t_calls, tok, has_json=isinstance(t, (peers.Tsa, peers.TreeSitterAnalyzer)))
        r["version"] = t.version()
        if isinstance(t, peers.Tsa) and args.tsa_bin:
            r["version"] = r["version"].replace("(release build)", f"({args.tsa_bin})")
        r["summary"] = {k: summarise(v) for k, v in r["actions"].items()}
        results[t.key] = r
    lines = [f"# Tokens: {label}", "", f"names: {', '.join(names)}; files: {', '.join(files)}", "",
             "| tool | tools/list chars | tokens |", "|---|---:|---:|"]
    for k, r in results.items():
        lines.append(f"| {k} {r['version']} | {r['tools_list_chars']:,} | {r['tools_list_tokens']:,} |")
    lines += ["", "| action | tool | calls | median chars | largest chars | largest tokens | over 25k tokens | TOON/JSON median | worst | TOON > JSON |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    labels = sorted({a for r in results.values() for a in r["summary"]})
    for a in labels:
        for k, r in results.items():
            s = r["summary"].get(a)
            if not s:
                continue
            tj = (f"{s['toon_json_median']:.2f} | {s['toon_json_max']:.2f} | {s['toon_larger']}"
                  if "toon_json_median" in s else "- | - | -")
            lines.append(f"| {a} | {k} | {s['calls']} | {s['median_chars']:,.0f} | {s['max_chars']:,} | "
                         f"{s['max_tokens']:,} | {s['over_claude_cap']} | {tj} |")
    md = "\n".join(lines) + "\n"
    print(md)
    peers.RESULTS.mkdir(parents=True, exist_ok=True)
    stem = peers.RESULTS / f"{dt.date.today().isoformat()}-tokens-{args.corpus}"
    stem.with_suffix(".md").write_text(md)
    stem.with_suffix(".json").write_text(json.dumps({"corpus": label, "names": names, "files": files,
                                                     "results": results}, indent=1))
    peers.log(f"wrote {stem}.md and .json")


if __name__ == "__main__":
    main()
