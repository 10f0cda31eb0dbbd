#!/usr/bin/env bash
# fuzz-run.sh SRC_DIR BUILD_DIR SECONDS [CORPUS_DIR]: the libFuzzer harness tests/cc/fuzz_wire.c,
# built with clang (libFuzzer, ASan, UBSan) in BUILD_DIR/fuzz, run for SECONDS over the seed
# corpus kept in the repo (tests/cc/fuzz-corpus) plus a scratch corpus (CORPUS_DIR, default a
# temporary one; new inputs stay there). Prints the executions and fails on any finding (the
# crashing input is kept in BUILD_DIR/fuzz/findings). Exit 77 (skip) when clang cannot link
# -fsanitize=fuzzer (./amcast build installs clang and libclang-rt-14-dev).
# Used by the test cc-fuzz (60 s) and by `./amcast fuzz [SECONDS]`.
set -uo pipefail
src=${1:?usage: fuzz-run.sh SRC_DIR BUILD_DIR SECONDS [CORPUS_DIR]}; build=${2:?}; secs=${3:?}
fb=$build/fuzz
seeds=$src/tests/cc/fuzz-corpus
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){(void)d;(void)n;return 0;}' \
  >"$build/fuzz-probe.c"
if ! clang -fsanitize=fuzzer,address,undefined "$build/fuzz-probe.c" -o "$build/fuzz-probe" \
    >/dev/null 2>&1; then
  echo "# skipped: clang with libFuzzer not found (apt-get install clang libclang-rt-14-dev)"
  exit 77
fi
if [ ! -f "$fb/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$fb" "$src" -Dgst=disabled -Dnet-tests=false \
    -Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link \
    >"$fb.setup.log" 2>&1 || { tail -20 "$fb.setup.log"; echo "FAIL fuzz build setup"; exit 1; }
fi
ninja -C "$fb" tests/cc/fuzz_wire >"$fb.ninja.log" 2>&1 \
  || { tail -20 "$fb.ninja.log"; echo "FAIL fuzz build"; exit 1; }
corpus=${4:-}
tmp=""
if [ -z "$corpus" ]; then tmp=$(mktemp -d); corpus=$tmp; fi
trap '[ -n "$tmp" ] && rm -rf "$tmp"' EXIT
mkdir -p "$corpus" "$fb/findings"
log=$fb/fuzz.log
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
  "$fb/tests/cc/fuzz_wire" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
  -artifact_prefix="$fb/findings/" -print_final_stats=1 "$corpus" "$seeds" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
echo "# fuzz_wire: ${runs:-?} executions in ${secs} s, ${cov:-cov: ?}, corpus $(ls "$corpus" | wc -l) + $(ls "$seeds" | wc -l) seeds"
if [ $rc -ne 0 ] || ls "$fb/findings" | grep -q .; then
  grep -E 'ERROR|SUMMARY|invariant failed|runtime error' "$log" | head -10
  echo "FAIL fuzz_wire found a problem (rc $rc; inputs in $fb/findings)"
  echo "# amtest: checks=1 failures=1"
  exit 1
fi
echo "ok   fuzz_wire: no sanitizer report or invariant failure"
echo "# amtest: checks=1 failures=0"
