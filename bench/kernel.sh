#!/usr/bin/env bash
# The Linux kernel benchmark (issue 17): Debian's linux-source-6.1 package, as a new
# user would get it, never committed. One command:
#
#     bash bench/kernel.sh            # BENCH_DIR (default /tmp/tsa-bench)/kernel
#
# 1. downloads and unpacks the package (apt-get download; the tree is not a git
#    repository, so its top-level `.gitignore` ending in `/*` does not apply);
# 2. runs the index benchmark on it in one process (benches/
#    index_cpython.rs with TSA_BENCH_CORPUS): cold build and its peak RSS against the
#    raw parallel parse of the same files, no-change and one-file sync, a callers
#    query, index size;
# 3. counts, for kmalloc, kfree, mutex_lock and copy_from_user, the calls
#    `grep -w` finds in .c files (comment and string lines left out) against the
#    sites bound in the index (and what `tsa nav callers` lists), release binary.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR="${BENCH_DIR:-/tmp/tsa-bench}"
K="$BENCH_DIR/kernel"
mkdir -p "$K"
if [ ! -d "$K/src/linux-source-6.1" ]; then
  (cd "$K" && apt-get download linux-source-6.1)
  deb="$(ls "$K"/linux-source-6.1_*_all.deb | head -n 1)"
  rm -rf "$K/pkg" && dpkg-deb -x "$deb" "$K/pkg"
  mkdir -p "$K/src" && tar -C "$K/src" -xJf "$K"/pkg/usr/src/linux-source-6.1.tar.xz
  rm -rf "$K/pkg"
fi
TREE="$K/src/linux-source-6.1"
echo "tree: $TREE ($(find "$TREE/" -name '*.c' | wc -l) .c files, $(find "$TREE/" -name '*.h' | wc -l) .h files)"
TSA_BENCH_CORPUS="$TREE" TSA_BENCH_RUNS="${TSA_BENCH_RUNS:-1}" TSA_BENCH_SYNC_RUNS="${TSA_BENCH_SYNC_RUNS:-5}" \
  cargo bench --bench index_cpython 2>&1 | grep -v '^\s*Compiling\|^\s*Finished\|^\s*Running'
cargo build --release --quiet --bin tsa
TSA="$PWD/target/release/tsa"
rm -rf "$TREE/.tsa"
/usr/bin/time -f "tsa index full: %e s wall, %M KiB peak RSS" "$TSA" index full --project-root "$TREE" >/dev/null
for f in kmalloc kfree mutex_lock copy_from_user; do
  # Call sites: `name(` on lines that are not comment lines, outside string literals
  # (a rough reading, as the issue states it).
  # (`\b` rather than -w: -w would also demand a non-word character after the `(`.)
  grep_calls=$( { grep -rh --include='*.c' -E "\b$f[[:space:]]*\(" "$TREE/" || true; } \
    | { grep -v -E '^[[:space:]]*(\*|/\*|//)' || true; } | sed -E 's/"([^"\\]|\\.)*"//g' \
    | { grep -o -E "\b$f[[:space:]]*\(" || true; } | wc -l)
  out=$("$TSA" nav callers --function-name "$f" --limit 100000 --include-bodies none --output-format json --project-root "$TREE")
  echo "$out" | TREE="$TREE" FN="$f" GREP="$grep_calls" python3 -c '
import json, os, sqlite3, sys
v = json.load(sys.stdin)
f, g = os.environ["FN"], int(os.environ["GREP"])
db = sqlite3.connect(os.path.join(os.environ["TREE"], ".tsa", "index.db"))
# Sites in .c files bound to a definition (a site first target; variants are further rows).
bound, total = db.execute(
    "SELECT sum(c.target_id IS NOT NULL), count(*) FROM calls c"
    " JOIN names n ON n.id = c.callee_id JOIN files f ON f.id = c.file_id"
    " WHERE n.name = ? AND c.alt = 0 AND f.path LIKE ?", (f, "%.c")).fetchone()
bound = bound or 0
sites, callers = v.get("call_site_count", 0), v.get("caller_count", 0)
open_sites, defs = v.get("unresolved_call_sites", 0), len(v.get("definitions", []))
complete = v.get("completeness")
print(f"{f}: grep {g:,} call sites in .c files; tsa: {bound:,} bound of {total:,} sites"
      f" in .c files ({100 * bound / max(g, 1):.1f}% of grep); nav callers: {sites:,} sites"
      f" in {callers:,} callers, {open_sites:,} unresolved, {defs} definitions,"
      f" completeness {complete}")
'
done
