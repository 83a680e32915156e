#!/usr/bin/env bash
# Installs the official MCP Inspector (@modelcontextprotocol/inspector, pinned) for
# the e2e test that drives tsa with its CLI (tests/e2e/inspector.rs), and prints
# the folder it is installed in; run `npx --offline @modelcontextprotocol/inspector
# --cli ...` from that folder. .ci/run calls it before the tests; the test calls it
# too and prints SKIP with the reason when it fails (no node/npm, no registry).
#
# The Inspector is installed with npm into a cache folder (never into the
# repository): $TSA_INSPECTOR_DIR, else
# ${XDG_CACHE_HOME:-~/.cache}/tsa-mcp-inspector/<version>.
#
# Pinned to 0.16.4: its CLI sends every `--tool-arg key=value` value as a string
# (`limit=2` arrives as "2", what issue 16 reported), as models sometimes do.
# Later versions convert values by the tool's schema before sending them, which
# would hide what the test is about. It runs on Node 20 (its engines field asks
# for 22; npm only warns).
set -euo pipefail

VERSION=0.16.4

DIR="${TSA_INSPECTOR_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tsa-mcp-inspector/$VERSION}"
PKG="$DIR/node_modules/@modelcontextprotocol/inspector/package.json"
for tool in node npm npx; do
  command -v "$tool" >/dev/null 2>&1 || { echo "$tool is not on PATH" >&2; exit 1; }
done
if [ ! -f "$PKG" ] || ! grep -q "\"version\": \"$VERSION\"" "$PKG"; then
  mkdir -p "$DIR"
  if ! npm install --prefix "$DIR" --no-audit --no-fund --no-save --loglevel=error \
      "@modelcontextprotocol/inspector@$VERSION" >"$DIR/install.log" 2>&1; then
    echo "npm install @modelcontextprotocol/inspector@$VERSION failed: $(tail -n 3 "$DIR/install.log" | tr '\n' ' ')" >&2
    exit 1
  fi
fi
echo "$DIR"
