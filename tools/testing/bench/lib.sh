# SPDX-License-Identifier: GPL-2.0
# Shared by the benchmark scripts: where things are, and how rows print.
ko=/lib/modules
tracing=/sys/kernel/tracing
rftrace=/sys/kernel/rftrace
bin=/selftests/rftrace/bin

# Details go to stderr (the VM console), results to stdout.
log() { echo "rftrace-bench: # $*" >&2; }

# Nanoseconds now, with microsecond resolution (busybox date has no %N):
# the "now ts" of the kernel tracefs' stats, on the trace clock.
now_ns() { awk '/^now ts:/ { split($3, t, "."); printf "%d%06d000\n", t[1], t[2] }' "$tracing/per_cpu/cpu0/stats"; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "n/a" && b + 0 > 0) printf "%.2f", a / b; else print "n/a" }'; }
header() { printf 'rftrace-bench: %-48s %12s %12s %8s\n' "$1" "$2" "$3" "$2/$3"; }
row() { printf 'rftrace-bench: %-48s %12s %12s %8s\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"; }
