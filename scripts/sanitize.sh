#!/usr/bin/env bash
# The device suite under compute-sanitizer: memcheck, racecheck, synccheck and initcheck,
# the four tools side by side (each its own process), with PTXKIT_SANITIZE=1 (the slowest
# tests take smaller sizes) and PTXKIT_REQUIRE_GPU=1 (a missing GPU fails).
#
#   scripts/sanitize.sh DEVICE_TEST_BINARY [LOG_DIR] [SECONDS]
#
# Build the binary where Rust is (`cargo test --release --features cuda --test device
# --no-run` prints its path). Each tool's log goes to LOG_DIR/<tool>.log (default
# sanitize-logs); SECONDS bounds each tool (default 900). Exits non-zero if any tool
# reports an error, a test fails, or a tool runs out of time.
set -uo pipefail
bin=${1:?usage: scripts/sanitize.sh DEVICE_TEST_BINARY [LOG_DIR] [SECONDS]}
out=${2:-sanitize-logs}
limit=${3:-900}
mkdir -p "$out"
export PTXKIT_REQUIRE_GPU=1 PTXKIT_SANITIZE=1
export PATH="$PATH:/usr/local/cuda/bin"
cs=$(command -v compute-sanitizer) || { echo "compute-sanitizer not found" >&2; exit 2; }
"$cs" --version | tail -1
declare -A pid
for tool in memcheck racecheck synccheck initcheck; do
  case $tool in
    # API errors are not reported: tests/device/malformed.rs provokes failed module loads on
    # purpose, and every driver call's result is checked by the runtime and the tests.
    memcheck) extra=(--leak-check full --report-api-errors no) ;;
    racecheck) extra=(--racecheck-report all) ;;
    *) extra=() ;;
  esac
  timeout "$limit" "$cs" --tool "$tool" --error-exitcode 99 --print-limit 1000 "${extra[@]}" "$bin" >"$out/$tool.log" 2>&1 &
  pid[$tool]=$!
done
status=0
for tool in memcheck racecheck synccheck initcheck; do
  wait "${pid[$tool]}"; rc=$?
  summary=$(grep -E "^========= (ERROR SUMMARY|RACECHECK SUMMARY)" "$out/$tool.log" | tail -1)
  result=$(grep -E "^test result:" "$out/$tool.log" | tail -1)
  echo "$tool: exit $rc; ${summary:-no sanitizer summary}; ${result:-no test result}"
  [ "$rc" -eq 0 ] || status=1
done
exit $status
