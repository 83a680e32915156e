#!/usr/bin/env python3
"""Call-graph accuracy of tsa against compiler-grade oracles (scip-python, scip-typescript, javac).

    python3 bench/accuracy/run.py                  # every corpus in corpora.toml
    python3 bench/accuracy/run.py --corpus flask   # one (repeatable)
    python3 bench/accuracy/run.py --json out.json  # also write every number and list

Environment: TSA_BIN (default /work/main/target/debug/tsa), ACCURACY_DIR (scratch
folder for downloads, corpus copies, the oracles and their indexes; default
/work/scratch/accuracy). See bench/accuracy/README.md for what is measured.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import shutil
import time
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import compare  # noqa: E402
import prepare  # noqa: E402
import scip  # noqa: E402


def pct(x) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}"


def load_corpora() -> list[dict]:
    with open(HERE / "corpora.toml", "rb") as f:
        return tomllib.load(f)["corpus"]


def run_one(c: dict, args, base: Path, oracles: dict) -> dict:
    root = prepare.prepare(c, base)
    work = base / "work" / f"{c['name']}-{c['version']}"
    work.mkdir(parents=True, exist_ok=True)
    scip_path, oracle_secs, cached = prepare.run_oracle(c, root, base, oracles, args.fresh_oracle)
    # --with-scip: tsa imports the oracle's own SCIP file (`index.scip` at the root is
    # picked up by the build), which measures the import, not the heuristics.
    placed = root / "index.scip"
    if args.with_scip and scip_path.suffix == ".scip":
        shutil.copyfile(scip_path, placed)
    else:
        placed.unlink(missing_ok=True)
    tsa_secs = prepare.run_tsa(args.tsa_bin, root, work)
    t0 = time.monotonic()
    docs = scip.read_any(str(scip_path))
    tsa = compare.Tsa(root / ".tsa" / "index.db")
    cmp = compare.Comparison(tsa, docs, root, c["oracle"])
    scores = cmp.scores()
    misses = cmp.misses()
    extras = cmp.extras()
    return {
        "corpus": c["name"],
        "package": f"{c['package']}=={c['version']}" if c["registry"] == "pypi" else f"{c['package']}@{c['version']}",
        "oracle": prepare.oracle_name(c["oracle"], base),
        "oracle_seconds": round(oracle_secs, 1),
        "oracle_cached": cached,
        "tsa_seconds": round(tsa_secs, 2),
        "compare_seconds": round(time.monotonic() - t0, 1),
        "files_in_universe": Counter(cmp.lang_of.values()),
        "files_with_parse_errors": sorted(tsa.files[f][0] for f in cmp.universe if tsa.parse_errors.get(f)),
        "oracle_documents": len(docs),
        "scores": scores,
        "tsa_call_rows_by_resolution": dict(sorted(cmp.res_rows.items())),
        "tsa_bound_rows_by_resolution": dict(sorted(cmp.res_bound.items())),
        "precision_by_resolution": cmp.precision_by_resolution(),
        "harness_caller_rule_vs_tsa": dict(cmp.caller_agree),
        "notes": dict(cmp.notes),
        "misses": misses,
        "extras": [{k: v for k, v in x.items() if k != "edge"} for x in extras],
    }


def print_causes(title: str, rows: list[dict], samples: int) -> None:
    by: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by[r["cause"]].append(r)
    print(f"  {title}: {len(rows)} edges")
    for cause, lst in sorted(by.items(), key=lambda kv: -len(kv[1])):
        print(f"    {cause:<22} {len(lst):5d}")
        shapes = Counter(r.get("receiver_shape") for r in lst if r.get("receiver_shape"))
        if shapes and cause in ("unknown", "external", "stdlib", "builtin", "bound_elsewhere"):
            print("      by receiver: " + ", ".join(f"{k} {v}" for k, v in shapes.most_common()))
        for r in lst[:samples]:
            print(f"        {r['where']}  `{r['code']}`")
            print(f"            callee {r['callee']!r}; tsa: {r['tsa']}; oracle: {r['oracle']}")


def report(results: list[dict], samples: int) -> None:
    for r in results:
        print(f"\n=== {r['corpus']} ({r['package']}; {r['oracle']} {r['oracle_seconds']}s"
              f"{' cached' if r['oracle_cached'] else ''}; tsa index {r['tsa_seconds']}s)")
        print(f"  files compared: {dict(r['files_in_universe'])}; oracle documents: {r['oracle_documents']}")
        if r["files_with_parse_errors"]:
            print(f"  files tsa parsed with errors: {', '.join(r['files_with_parse_errors'])}")
        print(f"  tsa call rows by resolution: {r['tsa_call_rows_by_resolution']}")
        print(f"  tsa rows with a target:      {r['tsa_bound_rows_by_resolution']}")
        prec = ", ".join(f"{k} {v['confirmed']}/{v['edges']}" for k, v in r["precision_by_resolution"].items())
        print(f"  tsa edges confirmed by the oracle, by resolution: {prec}")
        agree = r["harness_caller_rule_vs_tsa"]
        print(f"  harness caller rule vs tsa caller_id: {agree}")
        if r["notes"]:
            print(f"  notes: {r['notes']}")
        for lang, s in r["scores"].items():
            print(f"  {lang:<11} precision {pct(s['precision'])}% (judged {pct(s['precision_judged'])}%)"
                  f"  recall {pct(s['recall'])}%"
                  f"  (tsa {s['tsa_edges']}, unjudged {s['tsa_edges_unjudged']}, oracle {s['oracle_edges']},"
                  f" common {s['common']}; recall on mapped callees {pct(s['recall_mapped_only'])}%)")
        print_causes("misses (oracle edges tsa lacks)", r["misses"], samples)
        print_causes("extras (tsa edges the oracle lacks)", r["extras"], samples)

    # Summary table.
    print("\n=== summary (edge sets; precision = common/tsa, recall = common/oracle)")
    print("(judged: without tsa edges at call sites the oracle leaves unresolved)")
    print(f"{'corpus':<10} {'lang':<11} {'prec%':>6} {'judged%':>8} {'recall%':>8} {'tsa':>6} "
          f"{'oracle':>7} {'common':>7}  oracle s")
    tot: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        for lang, s in r["scores"].items():
            print(f"{r['corpus']:<10} {lang:<11} {pct(s['precision']):>6} {pct(s['precision_judged']):>8} "
                  f"{pct(s['recall']):>8} {s['tsa_edges']:>6} {s['oracle_edges']:>7} {s['common']:>7}  "
                  f"{r['oracle_seconds']:>7}")
            for k in ("tsa_edges", "oracle_edges", "common", "tsa_edges_unjudged"):
                tot[lang][k] += s[k]
    for lang, t in sorted(tot.items()):
        p = t["common"] / t["tsa_edges"] if t["tsa_edges"] else None
        judged = t["tsa_edges"] - t["tsa_edges_unjudged"]
        pj = t["common"] / judged if judged else None
        rc = t["common"] / t["oracle_edges"] if t["oracle_edges"] else None
        print(f"{'ALL':<10} {lang:<11} {pct(p):>6} {pct(pj):>8} {pct(rc):>8} {t['tsa_edges']:>6} "
              f"{t['oracle_edges']:>7} {t['common']:>7}")
    # Causes per language over all corpora.
    print("\n=== causes per language, all corpora")
    for kind in ("misses", "extras"):
        agg: dict[str, Counter] = defaultdict(Counter)
        for r in results:
            for row in r[kind]:
                agg[row["lang"]][row["cause"]] += 1
        for lang, cnt in sorted(agg.items()):
            print(f"  {kind} {lang}: " + ", ".join(f"{k} {v}" for k, v in cnt.most_common()))
    agg2: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        for row in r["misses"]:
            if row["cause"] == "unknown":
                agg2[row["lang"]][f"{row['receiver_shape']} -> {row['callee_kind']}"] += 1
    for lang, cnt in sorted(agg2.items()):
        print(f"  unresolved misses {lang} by receiver -> callee kind: "
              + ", ".join(f"{k} {v}" for k, v in cnt.most_common(12)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", action="append", help="run only this corpus (repeatable)")
    ap.add_argument("--json", metavar="OUT", help="write all numbers and lists to OUT")
    ap.add_argument("--samples", type=int, default=5, help="samples printed per cause (default 5)")
    ap.add_argument("--fresh-oracle", action="store_true", help="re-run the oracle even when its index is cached")
    ap.add_argument("--tsa-bin", default=os.environ.get("TSA_BIN", "/work/main/target/debug/tsa"))
    ap.add_argument("--dir", default=os.environ.get("ACCURACY_DIR", "/work/scratch/accuracy"),
                    help="scratch folder (default $ACCURACY_DIR or /work/scratch/accuracy)")
    ap.add_argument("--list", action="store_true", help="list the corpora and exit")
    ap.add_argument("--with-scip", action="store_true",
                    help="let tsa import the oracle's SCIP file (measures `index scip`, not the heuristics)")
    args = ap.parse_args()

    corpora = load_corpora()
    if args.list:
        for c in corpora:
            print(f"{c['name']:<10} {c['oracle']:<11} {c['registry']}:{c['package']}@{c['version']}")
        return 0
    if args.corpus:
        names = {c["name"] for c in corpora}
        bad = [n for n in args.corpus if n not in names]
        if bad:
            print(f"unknown corpus {', '.join(bad)}; known: {', '.join(sorted(names))}", file=sys.stderr)
            return 2
        corpora = [c for c in corpora if c["name"] in args.corpus]
    if not Path(args.tsa_bin).exists():
        print(f"tsa binary not found: {args.tsa_bin} (set TSA_BIN)", file=sys.stderr)
        return 2
    base = Path(args.dir).resolve()
    base.mkdir(parents=True, exist_ok=True)
    oracles = prepare.ensure_oracles(base)

    results, failed = [], []
    for c in corpora:
        try:
            results.append(run_one(c, args, base, oracles))
        except Exception as e:  # one broken corpus must not hide the others
            print(f"corpus {c['name']} failed: {e}", file=sys.stderr)
            failed.append({"corpus": c["name"], "error": str(e)})
    report(results, args.samples)
    if failed:
        print("\nfailed corpora: " + ", ".join(f["corpus"] for f in failed))
    if args.json:
        out = {
            "date": dt.date.today().isoformat(),
            "tsa_bin": args.tsa_bin,
            "results": results,
            "failed": failed,
        }
        Path(args.json).write_text(json.dumps(out, indent=1, default=str) + "\n")
        print(f"\nwrote {args.json}")
    return 1 if failed and not results else 0


if __name__ == "__main__":
    sys.exit(main())
