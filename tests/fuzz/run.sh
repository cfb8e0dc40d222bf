#!/usr/bin/env bash
# Builds the core's libFuzzer targets with clang (build-fuzz/, -DAGUI_FUZZ=ON)
# and runs each for AGUI_FUZZ_SECONDS (default 45) from its committed seed
# corpus (tests/fuzz/corpus/<target>/, which holds every fixed crash's
# reproducer, so each run is also a regression run). Prints a table of
# executions and crashes per target; exits non-zero when a target crashes,
# hangs, leaks or runs out of memory (the input is left in build-fuzz/artifacts/).
#
#   tests/fuzz/run.sh                          # ~3 minutes: 45 s per target
#   AGUI_FUZZ_SECONDS=600 tests/fuzz/run.sh    # the long run (40 minutes)
#   AGUI_FUZZ_TARGETS="fuzz_driver" tests/fuzz/run.sh
#
# Standalone and idempotent: the build is incremental, and what a run learns is
# kept in build-fuzz/corpus/ for the next one (never in the committed seeds).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FUZZ="$ROOT/tests/fuzz"
BUILD="${AGUI_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
SECONDS_EACH="${AGUI_FUZZ_SECONDS:-45}"
TARGETS=(${AGUI_FUZZ_TARGETS:-fuzz_sse fuzz_reducer fuzz_schema fuzz_driver})
JOBS="${JOBS:-2}"

say() { printf '\n== %s\n' "$*"; }

for tool in cmake clang++; do
  command -v "$tool" >/dev/null 2>&1 || { echo "$tool is needed (apt-get install cmake clang)" >&2; exit 2; }
done
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
    clang++ -x c++ -fsanitize=fuzzer,address,undefined -o /dev/null - 2>/dev/null; then
  echo "clang++ cannot link libFuzzer: install libclang-rt-14-dev" >&2
  exit 2
fi

say "building ${TARGETS[*]} in $BUILD"
cmake -S "$ROOT" -B "$BUILD" -DAGUI_FUZZ=ON -DAGUI_BUILD_TESTS=OFF \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null ||
  exit 2
cmake --build "$BUILD" -j"$JOBS" --target "${TARGETS[@]}" || exit 2

# One report line per target: executions, crashes now, reproducers replayed.
declare -A EXECS RATE FOUND FIXED NOTE
status=0
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
for target in "${TARGETS[@]}"; do
  seeds="$FUZZ/corpus/$target"
  work="$BUILD/corpus/$target"
  artifacts="$BUILD/artifacts/$target"
  log="$BUILD/logs/$target.log"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  rm -f "$artifacts"/*
  flags=(-max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
         -artifact_prefix="$artifacts/")
  if [ "$target" = fuzz_schema ]; then flags+=(-dict="$FUZZ/schema.dict"); else flags+=(-dict="$FUZZ/agui.dict"); fi
  say "$target: ${SECONDS_EACH}s from $(ls "$seeds" | wc -l) seeds (+ $(ls "$work" | wc -l) learnt)"
  # New inputs go to the first directory: the build's, never the committed seeds.
  "$BUILD/tests/fuzz/$target" "${flags[@]}" "$work" "$seeds" >"$log" 2>&1
  rc=$?
  EXECS[$target]=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  RATE[$target]=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  FOUND[$target]=$(find "$artifacts" -type f | wc -l)
  FIXED[$target]=$(find "$seeds" -name 'repro-*' -type f | wc -l)
  NOTE[$target]=""
  if [ $rc -ne 0 ] || [ "${FOUND[$target]}" -ne 0 ]; then
    status=1
    NOTE[$target]="see $log"
    grep -E "INVARIANT BROKEN|ERROR: |SUMMARY: |runtime error" "$log" | head -5
    echo "reproduce: $BUILD/tests/fuzz/$target $(find "$artifacts" -type f | head -1)"
  fi
  tail -3 "$log"
done

say "what the targets tried (AGUI_FUZZ_COUNT: problems by code, faults injected, actions)"
for target in "${TARGETS[@]}"; do
  log="$BUILD/logs/$target.log"
  [ -f "$log" ] || continue
  printf '%s:' "$target"
  awk '/^AGUI_FUZZ_COUNT /{n[$2]+=$3} END{for (k in n) printf "%s %d\n", k, n[k]}' "$log" | sort |
    awk '{printf " %s=%s", $1, $2} END{print ""}' | fold -s -w 110 | sed '2,$s/^/    /'
done

say "fuzz report (${SECONDS_EACH}s per target)"
printf '%-14s %12s %9s %14s %16s  %s\n' target executions exec/s "crashes found" "fixed (replayed)" ""
for target in "${TARGETS[@]}"; do
  printf '%-14s %12s %9s %14s %16s  %s\n' "$target" "${EXECS[$target]:-0}" "${RATE[$target]:-0}" \
    "${FOUND[$target]}" "${FIXED[$target]}" "${NOTE[$target]}"
done
exit $status
