#!/usr/bin/env bash
# fuzz-run.sh SRC_DIR BUILD_DIR SECONDS [CORPUS_DIR [HARNESS]]: the libFuzzer harnesses of
# tests/cc/fuzz_wire.c (fuzz_decode, fuzz_machines, fuzz_controller), built with clang
# (libFuzzer, ASan, UBSan) in BUILD_DIR/fuzz, each run over its seed corpus kept in the repo
# (tests/cc/fuzz-corpus/HARNESS) plus a scratch corpus (CORPUS_DIR/HARNESS, default a temporary
# one; new inputs stay there). SECONDS is the total, split 1:2:3 between decode, machines and
# controller (the slower the inputs, the more time), or all of it for the one HARNESS named.
# Prints each harness's executions and fails on any finding (the crashing input is kept in
# BUILD_DIR/fuzz/findings). Exit 77 (skip) when clang cannot link -fsanitize=fuzzer
# (./amcast build installs clang and libclang-rt-14-dev).
# FUZZ_SEED=N FUZZ_RUNS="D M C" (environment): libFuzzer's -seed=N and a fixed number of
# executions per harness (decode, machines, controller) instead of SECONDS, so that a run is the
# same on any machine however fast: the test cc-fuzz (about a minute). Without them, a random
# seed for SECONDS: `./amcast fuzz [SECONDS [HARNESS]]` searches anew each time.
set -uo pipefail
usage='usage: fuzz-run.sh SRC_DIR BUILD_DIR SECONDS [CORPUS_DIR [decode|machines|controller]]'
src=${1:?$usage}; build=${2:?}; secs=${3:?}
fb=$build/fuzz
case "${5:-all}" in
  all) names=(decode machines controller); times=($((secs / 6)) $((secs / 3)) $((secs - secs / 6 - secs / 3))) ;;
  decode|machines|controller) names=("$5"); times=("$secs") ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
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
ninja -C "$fb" "${names[@]/#/tests/cc/fuzz_}" >"$fb.ninja.log" 2>&1 \
  || { tail -20 "$fb.ninja.log"; echo "FAIL fuzz build"; exit 1; }
corpus=${4:-}
tmp=""
if [ -z "$corpus" ]; then tmp=$(mktemp -d); corpus=$tmp; fi
trap '[ -n "$tmp" ] && rm -rf "$tmp"' EXIT
mkdir -p "$fb/findings"
failures=0
total=0
for i in "${!names[@]}"; do
  h=${names[$i]}; t=${times[$i]}
  seeds=$src/tests/cc/fuzz-corpus/$h
  mkdir -p "$corpus/$h"
  log=$fb/fuzz-$h.log
  # The entropic schedule's rare-feature list is searched for every feature an input hits; at
  # the default threshold (255) it grows to thousands and that search took 70-87 % of the time
  # (fuzz_controller: 100 inputs/s). At 16 the list stays near its 100 rarest features.
  budget=(-max_total_time="$t")
  san=(UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1)
  fixed=(env "${san[@]}")
  if [ -n "${FUZZ_RUNS:-}" ]; then
    # Addresses steer libFuzzer (compared values, pointers among them, feed its mutations):
    # with address-space randomisation, or an environment of another size (meson's random
    # MALLOC_PERTURB_ moves the stack), two runs of one seed parted after ~10^5 executions.
    # So: no randomisation and a fixed environment (the search still depends on the build
    # directory's path, as the binary and argv do: CI checks out to the same path each time).
    fixed=(env -i PATH=/usr/local/bin:/usr/bin:/bin "${san[@]}")
    setarch -R true 2>/dev/null && fixed+=(setarch -R)
    read -r -a n_runs <<<"$FUZZ_RUNS"
    case $h in decode) k=0 ;; machines) k=1 ;; *) k=2 ;; esac
    # -reload=0: re-reading the corpus directory on a timer made the search depend on speed
    budget=(-runs="${n_runs[$k]:?FUZZ_RUNS needs three counts}" -seed="${FUZZ_SEED:-1}" -reload=0)
  fi
  "${fixed[@]}" "$fb/tests/cc/fuzz_$h" "${budget[@]}" -timeout=10 -rss_limit_mb=1024 \
    -entropic_feature_frequency_threshold=16 -artifact_prefix="$fb/findings/$h-" \
    -print_final_stats=1 "$corpus/$h" "$seeds" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
  total=$((total + ${runs:-0}))
  echo "# fuzz_$h: ${runs:-?} executions (${budget[*]}; ${rate:-?}/s), ${cov:-cov: ?}, corpus $(ls "$corpus/$h" | wc -l) + $(ls "$seeds" | wc -l) seeds"
  if [ $rc -ne 0 ] || ls "$fb/findings" | grep -q "^$h-"; then
    grep -E 'ERROR|SUMMARY|invariant failed|runtime error' "$log" | head -10
    echo "FAIL fuzz_$h found a problem (rc $rc; inputs in $fb/findings, log $log)"
    failures=$((failures + 1))
  else
    echo "ok   fuzz_$h: no sanitizer report or invariant failure"
  fi
done
echo "# fuzz: $total executions in all"
echo "# amtest: checks=${#names[@]} failures=$failures"
[ $failures -eq 0 ]
