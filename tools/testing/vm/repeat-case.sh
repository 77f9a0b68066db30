#!/usr/bin/env bash
# Run one selftest case N times, in as few VM boots as it takes, and count
# how the runs ended: for a rare failure (a crash takes the whole VM down,
# so the runs left are made in a new boot).
#
#   repeat-case.sh --kdir DIR CASE N
#
# CASE is relative to test.d (graph/switch_while_inside.tc). The runner's
# environment applies: RFTRACE_TCG=single|multi, RFTRACE_TRACING_DIR,
# RFTRACE_DEBUG_PATCHING=1. Prints one line per boot and a summary;
# console logs of boots that crashed are kept in $RFTRACE_OUT/repeat/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
kdir=
[ "${1:-}" = --kdir ] && { kdir=$2; shift 2; }
[ -n "$kdir" ] && [ $# -eq 2 ] || { echo "usage: repeat-case.sh --kdir DIR CASE N" >&2; exit 2; }
case=$1 want=$2
out=${RFTRACE_OUT:-$top/out}
keep=$out/repeat
mkdir -p "$keep"

done_runs=0 passed=0 failed=0 crashed=0 boots=0
while [ "$done_runs" -lt "$want" ]; do
	left=$((want - done_runs))
	list=$case
	for _ in $(seq 2 "$left"); do list=$list,$case; done
	boots=$((boots + 1))
	set +e
	RFTRACE_TESTS=$list RFTRACE_OUT=$out "$here/run-vm.sh" --kdir "$kdir" --mode test \
		--timeout $((left * 600 + 120)) > "$keep/console.$boots.log" 2>&1
	set -e
	ok=$(grep -c '^ok [0-9]' "$out/share/ktap.log" 2>/dev/null || true)
	bad=$(grep -c '^not ok [0-9]' "$out/share/ktap.log" 2>/dev/null || true)
	ran=$((ok + bad))
	passed=$((passed + ok))
	failed=$((failed + bad))
	done_runs=$((done_runs + ran))
	if grep -qE 'Oops|BUG:|Kernel panic|general protection' "$keep/console.$boots.log"; then
		crashed=$((crashed + 1))
		done_runs=$((done_runs + 1))
		echo "boot $boots: $ok passed, $bad failed, then a crash (log: $keep/console.$boots.log)"
	else
		echo "boot $boots: $ok passed, $bad failed"
		rm -f "$keep/console.$boots.log"
		[ "$ran" -gt 0 ] || { echo "repeat-case: a boot ran nothing; stopping" >&2; break; }
	fi
done
echo "repeat-case: $case, $done_runs runs in $boots boots (TCG ${RFTRACE_TCG:-single}, dir ${RFTRACE_TRACING_DIR:-rftracefs}): $passed passed, $failed failed, $crashed crashed"
