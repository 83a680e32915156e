#!/usr/bin/env python3
"""What an agent pays for tsa's answers: characters and tokens, on a real corpus.

    python3 bench/tokens.py [--corpus django] [--tsa-bin PATH] [--names N]
                            [--no-peers | --peers-from RESULTS.json] [--keep-index]
    python3 bench/tokens.py --report RESULTS.json    # rewrite the Markdown from its JSON

Over MCP (stdio, one server per tool, driven from here) on one corpus, prints and saves:

* the size of `tools/list` (minified JSON of its result, characters and tokens);
* per action, with default arguments, over a fixed set of names: the median and largest
  answer (the whole text block an MCP client hands to the model);
* per action, the TOON/JSON ratio: `toon_content` against the minified JSON answer of the
  same call with `output_format=json` (median and worst);
* the same figures for tree-sitter-analyzer (PyPI) and CodeGraph (npm) where they have the
  action (installed by bench/peers.py into $BENCH_DIR, default /tmp/tsa-bench). The
  question asked of a peer is the same; the call is the peer's own (see PEER_CALLS): an
  action a peer lacks is recorded as absent, never approximated by another.

`--peers-from` takes the peer figures from an earlier results JSON instead of running the
peers again (they are slow), so the table can be regenerated after a change to tsa alone;
the names and files must be the same. `--keep-index` reuses an index a tool already has in
$BENCH_DIR/tokens/<corpus> (answer sizes do not depend on how the index was timed).

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
import queue
import statistics
import subprocess
import time
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


# The same question asked of each peer, as the peer's own MCP call. A label missing
# from a peer's map (or whose tool/action its tools/list lacks) is recorded as absent.
def _tsap(label: str, facade: str, args: dict) -> tuple[str, dict] | None:
    # tree-sitter-analyzer 3.x has the same facades and action names, and the same
    # argument names for these actions (checked with action=help target_action=...);
    # its literal text search is `search action=text`, tsa's is `search action=content`.
    if label == "search content":
        return "search", {"action": "text", "query": args["query"]}
    return facade, dict(args)


CODEGRAPH_CALLS = {
    # CodeGraph 1.6.1 MCP tools: search, callers, callees, impact, node, explore, status,
    # files (dist/mcp/tools.js). No caller tree, no literal text search, no signatures
    # listing, no file health.
    "nav callers": lambda a: ("codegraph_callers", {"symbol": a["function_name"]}),
    "nav callees": lambda a: ("codegraph_callees", {"symbol": a["function_name"]}),
    "search symbol": lambda a: ("codegraph_search", {"query": a["query"]}),
    "nav impact": lambda a: ("codegraph_impact", {"symbol": a["function_name"]}),
    # No `context` MCP tool (the CLI has one); explore is what it offers for a task.
    "nav context": lambda a: ("codegraph_explore", {"query": a["task"]}),
    "structure explore": lambda a: ("codegraph_explore", {"query": a["query"]}),
    # File mode of codegraph_node, symbol map only: its structural overview of a file.
    "structure outline": lambda a: ("codegraph_node", {"file": a["file_path"], "symbolsOnly": True}),
}


def _codegraph(label: str, _facade: str, args: dict) -> tuple[str, dict] | None:
    f = CODEGRAPH_CALLS.get(label)
    return f(args) if f else None


PEER_CALLS = {"tree-sitter-analyzer": _tsap, "codegraph": _codegraph}


def minified(text: str) -> str:
    try:
        return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
    except json.JSONDecodeError:
        return text


def is_error(msg: dict, text: str) -> bool:
    if "error" in msg or msg.get("result", {}).get("isError"):
        return True
    try:
        d = json.loads(text)
    except json.JSONDecodeError:
        return False
    return isinstance(d, dict) and d.get("success") is False


def listing_of(tool: peers.Tool, env: dict, err: Path) -> tuple[dict, dict[str, set | None]]:
    """tools/list of one server session: (result, tool name -> its action enum or None)."""
    m = peers.Mcp(tool.mcp_cmd(), tool.root, env, err)
    try:
        m.initialize()
        return _listing(m.request("tools/list", {}))
    finally:
        m.close()


def _listing(tl: dict) -> tuple[dict, dict[str, set | None]]:
    res = tl.get("result", {})
    names = {}
    for t in res.get("tools", []):
        enum = (t.get("inputSchema", {}).get("properties", {}).get("action") or {}).get("enum")
        names[t["name"]] = set(enum) if enum else None
    return res, names


def measure(tool: peers.Tool, calls, tok: peers.Tokens, has_json: bool, mapper=None,
            call_timeout: float = 900) -> dict:
    env = tool.env()
    tool.home.mkdir(parents=True, exist_ok=True)
    m = peers.Mcp(tool.mcp_cmd(), tool.root, env, tool.work / "mcp-tokens.err")
    rows: dict[str, list[dict]] = {}
    absent: dict[str, str] = {}
    mapping: dict[str, str] = {}
    try:
        m.initialize()
        res, names = _listing(m.request("tools/list", {}))
        listing = json.dumps(res, separators=(",", ":"), ensure_ascii=False)
        for label, facade, args in calls:
            if label in absent:
                continue
            call = mapper(label, facade, args) if mapper else (facade, args)
            if call is None:
                absent[label] = "no such tool or action"
                continue
            name, a = call
            if name not in names or (names[name] is not None and a.get("action") not in names[name]):
                absent[label] = f"`{name}`{' action=' + a['action'] if 'action' in a else ''} not in its tools/list"
                continue
            shown = {k: v for k, v in a.items() if k not in ("function_name", "symbol", "query", "task", "file_path", "file")}
            mapping.setdefault(label, f"`{name}` {json.dumps(shown) if shown else ''}".strip())
            t0 = time.perf_counter()
            try:
                r = m.request("tools/call", {"name": name, "arguments": a}, timeout=call_timeout)
            except queue.Empty:
                peers.log(f"    {label} {a}: no answer in {call_timeout:.0f}s")
                rows.setdefault(label, []).append({"args": a, "timeout_s": call_timeout})
                continue
            ms = (time.perf_counter() - t0) * 1000
            text = peers.mcp_text(r)
            row = {"args": a, "chars": len(text), "tokens": tok.count(text), "ms": round(ms, 1),
                   "error": is_error(r, text)}
            if row["error"]:
                row["error_text"] = text[:400]
            peers.log(f"    {label} {json.dumps(a)[:80]}: {row['chars']:,} chars, {ms:,.0f} ms"
                      + (" (error)" if row["error"] else ""))
            if has_json:
                try:
                    toon = json.loads(text).get("toon_content")
                except (json.JSONDecodeError, AttributeError):
                    toon = None
                if toon is not None:
                    rj = m.request("tools/call", {"name": name, "arguments": {**a, "output_format": "json"}},
                                   timeout=call_timeout)
                    js = minified(peers.mcp_text(rj))
                    row["toon_chars"], row["json_chars"] = len(toon), len(js)
            rows.setdefault(label, []).append(row)
    finally:
        m.close()
    return {"tools_list_chars": len(listing), "tools_list_tokens": tok.count(listing),
            "tools": len(names), "tool_names": sorted(names), "actions": rows, "absent": absent,
            "calls_used": mapping}


def summarise(all_rows: list[dict]) -> dict:
    rows = [r for r in all_rows if "chars" in r]
    out = {"calls": len(all_rows), "timeouts": len(all_rows) - len(rows),
           "errors": sum(bool(r.get("error")) for r in rows)}
    if not rows:
        return out
    chars = [r["chars"] for r in rows]
    out.update(median_chars=statistics.median(chars), max_chars=max(chars),
               max_tokens=max(r["tokens"] for r in rows),
               over_claude_cap=sum(r["tokens"] > CLAUDE_CODE_CAP_TOKENS for r in rows))
    if all("ms" in r for r in rows):
        out["median_ms"] = statistics.median(r["ms"] for r in rows)
    ratios = [r["toon_chars"] / r["json_chars"] for r in rows if r.get("json_chars")]
    if ratios:
        out["toon_json_median"] = statistics.median(ratios)
        out["toon_json_max"] = max(ratios)
        out["toon_larger"] = sum(x > 1 for x in ratios)
    return out


def index(t: peers.Tool, keep: bool) -> dict:
    """A cold index of one tool (niced: the machine is shared), unless --keep-index and
    one is there."""
    if keep and any((t.root / d).exists() for d in t.index_dirs):
        peers.log(f"[{t.label}] {t.version()}: keeping its index")
        return {"kept": True}
    t.wipe_index()
    peers.log(f"[{t.label}] {t.version()}: indexing")
    cmd = ["nice", "-n", "10", *[str(c) for c in t.cold()]]
    t0 = time.perf_counter()
    with open(t.work / "index.out", "wb") as so, open(t.work / "index.err", "wb") as se:
        try:
            rc = subprocess.run(cmd, cwd=t.root, env=t.env(), stdout=so, stderr=se,
                                stdin=subprocess.DEVNULL, timeout=3600).returncode
        except subprocess.TimeoutExpired:
            rc = -9
    wall = time.perf_counter() - t0
    peers.log(f"[{t.label}] index rc {rc} in {wall:.0f}s")
    out = {"command": " ".join(cmd), "rc": rc, "wall_s": round(wall, 1)}
    if rc != 0:
        out["stderr_tail"] = peers.tail(t.work / "index.err", 600)
    return out


def main() -> None:
    peers.bootstrap(__file__)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="django")
    ap.add_argument("--tsa-bin")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--no-peers", action="store_true", help="tsa alone")
    g.add_argument("--peers-from", metavar="JSON",
                   help="take the peers' figures from an earlier results JSON instead of running them")
    ap.add_argument("--keep-index", action="store_true",
                    help="reuse an index a tool already has in $BENCH_DIR/tokens/<corpus>")
    ap.add_argument("--names", type=int, default=10)
    ap.add_argument("--files", type=int, default=3)
    ap.add_argument("--peer-call-timeout", type=float, default=600,
                    help="seconds a peer may take over one call before it is recorded as a timeout")
    ap.add_argument("--report", metavar="JSON", help="only rewrite the Markdown of an earlier run from its JSON")
    args = ap.parse_args()
    if args.report:
        d = json.loads(Path(args.report).read_text())
        md = markdown(d["corpus"], d["names"], d["files"], calls_for(d["names"], d["files"]), d["results"],
                      d.get("tokenizer", "?"), d.get("started", "?"))
        Path(args.report).with_suffix(".md").write_text(md)
        print(md)
        return
    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    run_peers = not args.no_peers and not args.peers_from
    reused: dict = {}
    if args.peers_from:
        prev = json.loads(Path(args.peers_from).read_text())
        reused = {k: v for k, v in prev["results"].items() if k != "tsa"}
        if not reused:
            raise SystemExit(f"{args.peers_from} holds no peer results")
    if run_peers:
        peers.install_peers(False)
    tok = peers.Tokens()
    src, label = peers.corpus_source(args.corpus)
    names = common_names(src, args.names)
    files = biggest_py(src, args.files)
    if args.peers_from and (prev["names"] != names or prev["files"] != files or prev["corpus"] != label):
        raise SystemExit(f"{args.peers_from} measured other names, files or corpus; run the peers again")
    calls = calls_for(names, files)
    peers.log(f"corpus: {label}\nnames: {', '.join(names)}\nfiles: {', '.join(files)}")
    work = peers.BENCH_DIR / "tokens" / args.corpus
    tools = [peers.Tsa(work / "tsa", peers.tsa_binary(args.tsa_bin))]
    if run_peers:
        tools += [peers.TreeSitterAnalyzer(work / "tree-sitter-analyzer"),
                  peers.CodeGraph(work / "codegraph", mcp_tools=peers.CodeGraph.ALL_MCP_TOOLS)]
    results = {}
    for t in tools:
        t.work.mkdir(parents=True, exist_ok=True)
        if not t.root.exists():
            peers.copy_tree(src, t.root)
        ix = index(t, args.keep_index)
        is_peer = not isinstance(t, peers.Tsa)
        t_calls = calls
        peers.log(f"[{t.label}] {len(t_calls)} questions over MCP")
        r = measure(t, t_calls, tok, has_json=isinstance(t, peers.Tsa),
                    mapper=PEER_CALLS.get(t.key) if is_peer else None,
                    call_timeout=args.peer_call_timeout if is_peer else 900)
        r["index"] = ix
        r["version"] = t.version()
        r["mcp_command"] = " ".join(str(c) for c in t.mcp_cmd())
        if isinstance(t, peers.Tsa) and args.tsa_bin:
            r["version"] = r["version"].replace("(release build)", f"({args.tsa_bin})")
        if isinstance(t, peers.CodeGraph):
            r["mcp_env"] = f"CODEGRAPH_MCP_TOOLS={t.mcp_tools}"
            # What an agent is shown when CODEGRAPH_MCP_TOOLS is not set.
            d = peers.CodeGraph(t.work, mcp_tools=None)
            res, dnames = listing_of(d, d.env(), t.work / "mcp-default.err")
            lst = json.dumps(res, separators=(",", ":"), ensure_ascii=False)
            r["default_listing"] = {"tools_list_chars": len(lst), "tools_list_tokens": tok.count(lst),
                                    "tools": len(dnames), "tool_names": sorted(dnames)}
        r["summary"] = {k: summarise(v) for k, v in r["actions"].items()}
        results[t.key] = r
        peers.log(f"[{t.label}] done")
    for k, v in reused.items():
        results[k] = {**v, "reused_from": Path(args.peers_from).name}
    md = markdown(label, names, files, calls, results, tok.source, started)
    print(md)
    peers.RESULTS.mkdir(parents=True, exist_ok=True)
    stem = peers.RESULTS / f"{dt.date.today().isoformat()}-tokens-{args.corpus}"
    stem.with_suffix(".md").write_text(md)
    stem.with_suffix(".json").write_text(json.dumps({"corpus": label, "names": names, "files": files,
                                                     "tokenizer": tok.source, "started": started,
                                                     "results": results}, indent=1))
    peers.log(f"wrote {stem}.md and .json")


def markdown(label, names, files, calls, results, tokenizer, started) -> str:
    lines = [f"# Tokens: {label}", "", f"names: {', '.join(names)}; files: {', '.join(files)}", "",
             "| tool | tools | tools/list chars | tokens |", "|---|---:|---:|---:|"]
    for k, r in results.items():
        extra = f" ({r['mcp_env']})" if r.get("mcp_env") else ""
        lines.append(f"| {k} {r['version']}{extra} | {r.get('tools', '?')} | {r['tools_list_chars']:,} | "
                     f"{r['tools_list_tokens']:,} |")
        d = r.get("default_listing")
        if d:
            lines.append(f"| {k} {r['version']} (its default surface: {', '.join(d['tool_names'])}) | "
                         f"{d['tools']} | {d['tools_list_chars']:,} | {d['tools_list_tokens']:,} |")
    lines += ["", "| action | tool | calls | median chars | largest chars | largest tokens | over 25k tokens "
                  "| errors | TOON/JSON median | worst | TOON > JSON |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    labels = list(dict.fromkeys(c[0] for c in calls))
    for a in sorted(labels):
        for k, r in results.items():
            s = r["summary"].get(a)
            if not s:
                if a in r.get("absent", {}):
                    lines.append(f"| {a} | {k} | absent | | | | | | | | |")
                continue
            if "median_chars" not in s:
                lines.append(f"| {a} | {k} | {s['calls']} ({s['timeouts']} timed out) | - | - | - | - | "
                             f"{s['errors']} | - | - | - |")
                continue
            tj = (f"{s['toon_json_median']:.2f} | {s['toon_json_max']:.2f} | {s['toon_larger']}"
                  if "toon_json_median" in s else "- | - | -")
            calls_cell = f"{s['calls']}" + (f" ({s['timeouts']} timed out)" if s.get("timeouts") else "")
            lines.append(f"| {a} | {k} | {calls_cell} | {s['median_chars']:,.0f} | {s['max_chars']:,} | "
                         f"{s['max_tokens']:,} | {s['over_claude_cap']} | {s.get('errors', 0)} | {tj} |")
    peers_ = [k for k in results if k != "tsa"]
    if peers_:
        lines += ["", "How each question was put to each peer (default arguments beyond the name, task or file):", "",
                  "| action | tsa | " + " | ".join(peers_) + " |", "|---|---|" + "---|" * len(peers_)]
        for a in labels:
            tsa_call = results.get("tsa", {}).get("calls_used", {}).get(a, "")
            cells = []
            for k in peers_:
                r = results[k]
                cells.append(r.get("calls_used", {}).get(a) or ("absent: " + r.get("absent", {}).get(a, "not measured")))
            lines.append(f"| {a} | {tsa_call} | " + " | ".join(cells) + " |")
        lines += [""]
        for k in peers_:
            r = results[k]
            ix = r.get("index", {})
            how = ("index kept from an earlier run" if ix.get("kept") else
                   f"index `{ix.get('command', '?')}`: rc {ix.get('rc')}, {ix.get('wall_s', '?')} s (niced, shared machine)")
            lines.append(f"- {k} {r['version']}: MCP `{r.get('mcp_command', '?')}`"
                         + (f" with `{r['mcp_env']}`" if r.get("mcp_env") else "") + f"; {how}"
                         + (f"; figures reused from {r['reused_from']}" if r.get("reused_from") else "") + ".")
    fails = []
    for k, r in results.items():
        ix = r.get("index", {})
        if ix.get("rc") not in (None, 0):
            fails.append(f"- {k}: index command exited {ix['rc']}: {ix.get('stderr_tail', '')}")
        for a, rows in r["actions"].items():
            errs = [x for x in rows if x.get("error")]
            if errs:
                fails.append(f"- {k} {a}: {len(errs)} of {len(rows)} answers were errors, e.g. "
                             f"`{errs[0]['args']}` -> `{errs[0].get('error_text', '')[:300]}`")
            tos = [x for x in rows if "timeout_s" in x]
            if tos:
                fails.append(f"- {k} {a}: {len(tos)} of {len(rows)} calls had no answer within "
                             f"{tos[0]['timeout_s']:.0f} s, e.g. `{tos[0]['args']}`")
    if fails:
        lines += ["", "Errors and timeouts (an error answer still counts in the sizes above: it is what the "
                      "agent is handed):", ""] + fails
    if peers_:
        lines += ["", "Notes: the TOON/JSON columns are tsa's alone (tree-sitter-analyzer answers JSON only, "
                  "its `output_format` enum being `[\"json\"]`; CodeGraph answers Markdown). An answer is "
                  "counted as an error when the MCP result has `isError` or its JSON has `success: false`. "
                  "One MCP server per tool for all its calls, in the order of the calls above."]
    lines += ["", f"Tokens: {tokenizer}. Started {started}."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
