#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned)
# against `tsa mcp --http` on a copy of tests/fixtures/python. Fails on any failed
# check, except in the scenarios listed in FIXTURE_SCENARIOS below.
#
# The suite's active server scenarios, run against a server URL, are written for
# the suite's own reference server: many call tools, resources and prompts by fixed
# names (`test_image_content`, `test://static-text`, `test_simple_prompt`, ...) that
# only that server has. tsa answers those names as what they are for it (unknown
# tool: an error envelope; unknown resource or prompt: a JSON-RPC error), so those
# scenarios cannot pass without adding made-up tools to tsa. They still run and are
# reported; the protocol scenarios (initialize, ping, logging, completion,
# tools/list, tool errors, resources/list, prompts/list, concurrent SSE streams)
# must pass.
#
# The suite is installed with npm into a cache folder (never into the repository):
# $TSA_CONFORMANCE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/tsa-mcp-conformance/<version>.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=0.1.10
FIXTURE_SCENARIOS=(
  tools-call-image tools-call-audio tools-call-embedded-resource tools-call-mixed-content
  tools-call-with-logging tools-call-with-progress tools-call-sampling
  resources-read-text resources-read-binary resources-templates-read
  resources-subscribe resources-unsubscribe
  prompts-get-simple prompts-get-with-args prompts-get-embedded-resource prompts-get-with-image
)

CACHE="${TSA_CONFORMANCE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tsa-mcp-conformance/$VERSION}"
SUITE="$CACHE/node_modules/.bin/conformance"
if [ ! -x "$SUITE" ]; then
  mkdir -p "$CACHE"
  npm install --prefix "$CACHE" --no-audit --no-fund --no-save --loglevel=error \
    "@modelcontextprotocol/conformance@$VERSION" >/dev/null
fi

cargo build -q --bin tsa
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps | node -e \
  'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')"
BIN="$TARGET_DIR/debug/tsa"

WORK="$(mktemp -d)"
SERVER_PID=""
stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
trap 'stop_server; rm -rf "$WORK"' EXIT

cp -r tests/fixtures/python "$WORK/project"
"$BIN" mcp --http 127.0.0.1:0 --project-root "$WORK/project" 2>"$WORK/server.log" &
SERVER_PID=$!
URL=""
for _ in $(seq 1 300); do
  URL="$(sed -n 's/^tsa mcp: listening on \(http:[^ ]*\)$/\1/p' "$WORK/server.log")"
  [ -n "$URL" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$URL" ] || { echo "mcp conformance: server did not start" >&2; cat "$WORK/server.log" >&2; exit 1; }

# The suite's own exit status counts the fixture scenarios too; the verdict is ours.
"$SUITE" server --url "$URL" --suite active -o "$WORK/results" >"$WORK/suite.log" 2>&1 || true
stop_server

VERSION="$VERSION" node - "$WORK/results" "${FIXTURE_SCENARIOS[@]}" <<'EOF'
const fs = require("fs");
const path = require("path");
const [dir, ...fixture] = process.argv.slice(2);
const tally = { SUCCESS: 0, FAILURE: 0, WARNING: 0, INFO: 0 };
const exempt = { SUCCESS: 0, FAILURE: 0 };
const failed = [];
let scenarios = 0;
for (const run of fs.readdirSync(dir).sort()) {
  const scenario = run.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
  const checks = JSON.parse(fs.readFileSync(path.join(dir, run, "checks.json"), "utf8"));
  scenarios += 1;
  for (const c of checks) {
    if (fixture.includes(scenario)) {
      if (c.status in exempt) exempt[c.status] += 1;
      continue;
    }
    tally[c.status] = (tally[c.status] || 0) + 1;
    if (c.status === "FAILURE") failed.push(`${scenario}/${c.id}: ${c.errorMessage || ""}`);
  }
}
for (const f of failed) console.log(`FAILED ${f}`);
console.log(
  `mcp conformance ${process.env.VERSION || ""}: ${scenarios} scenarios; protocol checks ` +
    `${tally.SUCCESS} ok, ${tally.FAILURE} failing, ${tally.WARNING} warnings; ` +
    `reference-server fixture scenarios (${fixture.length}, not applicable): ` +
    `${exempt.SUCCESS} ok, ${exempt.FAILURE} failing`,
);
if (scenarios === 0 || tally.SUCCESS === 0) {
  console.log("mcp conformance: no result was written");
  process.exit(1);
}
process.exit(failed.length ? 1 : 0);
EOF
