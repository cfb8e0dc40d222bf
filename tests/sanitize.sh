#!/usr/bin/env bash
# Builds the core's GoogleTest suites with AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/, -DAGUI_SANITIZE=ON) and runs them:
# any leak, out-of-bounds access, use after free or undefined behaviour fails.
#
#   tests/sanitize.sh                       # g++ (libasan and libubsan come with gcc)
#   AGUI_SANITIZE_CXX=clang++ tests/sanitize.sh   # clang (libclang-rt-14-dev)
#
# Standalone and idempotent: the build is incremental.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${AGUI_SANITIZE_BUILD_DIR:-$ROOT/build-asan}"
CXX="${AGUI_SANITIZE_CXX:-g++}"
JOBS="${JOBS:-2}"

command -v cmake >/dev/null 2>&1 || { echo "cmake is needed" >&2; exit 2; }
command -v "$CXX" >/dev/null 2>&1 || { echo "$CXX is needed" >&2; exit 2; }
if ! echo 'int main() { return 0; }' |
    "$CXX" -x c++ -fsanitize=address,undefined -o /dev/null - 2>/dev/null; then
  case "$CXX" in
    clang*) echo "$CXX cannot link the sanitizers: install libclang-rt-14-dev" >&2 ;;
    *) echo "$CXX cannot link the sanitizers: install libasan8 and libubsan1 (gcc 12)" >&2 ;;
  esac
  exit 2
fi
CC="${CXX/clang++/clang}"
CC="${CC/g++/gcc}"

printf '\n== building the core suites with ASan + UBSan (%s) in %s\n' "$CXX" "$BUILD"
cmake -S "$ROOT" -B "$BUILD" -DAGUI_SANITIZE=ON -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_COMPILER="$CC" \
  -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target agui_core_tests

printf '\n== core suites under ASan + UBSan\n'
# detect_leaks: LeakSanitizer at exit. halt_on_error: the first UB report fails
# the run (the core is also built with -fno-sanitize-recover=all).
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
"$BUILD/tests/agui_core_tests" --gtest_brief=1
