#!/usr/bin/env bash
# Fuzzes every target of fuzz/ for SECONDS each (default 60) with cargo fuzz
# (libFuzzer + AddressSanitizer), seeding the corpora from tests/fixtures and
# fuzz/seeds. Prints executions and coverage per target; exits 1 if any target
# found a crash (the input is kept in fuzz/artifacts/<target>/).
#
#   scripts/fuzz.sh [SECONDS]             all targets
#   FUZZ_TARGETS="extract mcp_input" scripts/fuzz.sh 300
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`). cargo fuzz passes
# nightly-only flags (-Zsanitizer); RUSTC_BOOTSTRAP=1 lets the stable toolchain
# take them. FUZZ_SANITIZER=none builds without ASan.
set -euo pipefail
cd "$(dirname "$0")/.."

secs="${1:-60}"
targets="${FUZZ_TARGETS:-toon_roundtrip mcp_input hyphae_parse chain_parse extract}"
sanitizer="${FUZZ_SANITIZER:-address}"
export RUSTC_BOOTSTRAP=1
# Known leaks of third-party C code (see the file).
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: cargo-fuzz is missing; install it with: cargo install cargo-fuzz --locked" >&2
    exit 2
fi

# Seeds: fixture files (extraction gets each file with its language's byte in
# front, the language's position in the registry of crates/tsa-lang).
seed() {
    local corpus=fuzz/corpus
    mkdir -p "$corpus"/{toon_roundtrip,mcp_input,hyphae_parse,chain_parse,extract}
    local langs i=0 lang dir f n=0
    langs=$(grep -oE '^\s*"[a-z]+" => [A-Za-z]+ =>' crates/tsa-lang/src/languages/mod.rs |
        grep -oE '"[a-z]+"' | tr -d '"')
    for lang in $langs; do
        dir="tests/fixtures/$lang"
        if [ -d "$dir" ]; then
            while IFS= read -r -d '' f; do
                n=$((n + 1))
                { printf "\\$(printf '%03o' "$i")"; head -c 8192 "$f"; } \
                    >"$corpus/extract/fixture-$lang-$n"
            done < <(find "$dir" -type f -size -64k -print0)
        fi
        i=$((i + 1))
    done
    find tests/fixtures -name '*.json' -size -16k -print0 |
        while IFS= read -r -d '' f; do
            cp "$f" "$corpus/toon_roundtrip/fixture-$(echo "$f" | tr '/' '_')"
        done
}

seed
echo "fuzz: building targets (sanitizer: $sanitizer)"
cargo fuzz build --sanitizer "$sanitizer" >/dev/null

logs=$(mktemp -d)
failed=()
printf '%-16s %12s %10s %8s %8s %s\n' target executions exec/s cov ft result
for t in $targets; do
    dict=()
    [ -f "fuzz/dict/$t.dict" ] && dict=("-dict=fuzz/dict/$t.dict")
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    dirs=("fuzz/corpus/$t")
    [ -d "fuzz/seeds/$t" ] && dirs+=("fuzz/seeds/$t")
    result=ok
    if ! cargo fuzz run --sanitizer "$sanitizer" "$t" "${dirs[@]}" -- \
        -max_total_time="$secs" -timeout="${FUZZ_TIMEOUT:-60}" -rss_limit_mb=4096 \
        -print_final_stats=1 "${dict[@]}" >"$logs/$t.log" 2>&1; then
        result=FAILED
        failed+=("$t")
    fi
    execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$logs/$t.log" | grep -oE '[0-9]+$' || true)
    rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$logs/$t.log" | grep -oE '[0-9]+$' || true)
    last=$(grep -E '^#[0-9]+.*cov: ' "$logs/$t.log" | tail -n 1 || true)
    cov=$(echo "$last" | grep -oE 'cov: [0-9]+' | grep -oE '[0-9]+' || true)
    ft=$(echo "$last" | grep -oE 'ft: [0-9]+' | grep -oE '[0-9]+' || true)
    printf '%-16s %12s %10s %8s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$result"
    if [ "$result" = FAILED ]; then
        echo "----- $t: last lines of the libFuzzer log -----"
        tail -n 60 "$logs/$t.log"
        echo "-----"
    fi
done
rm -rf "$logs"

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes in: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
    exit 1
fi
echo "fuzz: no crash in $secs s per target"
