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

# "total_ns calls" -> ns per call, one decimal; n/a without a total.
per_call() { awk -v t="$1" -v n="$2" 'BEGIN { if (t != "" && n > 0) printf "%.1f\n", t / n; else print "n/a" }'; }
# The smallest of the numbers on stdin (n/a if any is n/a or none came).
least() { awk '$1 == "n/a" { bad = 1 } NR == 1 || $1 + 0 < m { m = $1 + 0 } END { if (bad || NR == 0) print "n/a"; else print m }'; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a") print "n/a"; else printf "%.1f\n", a - b }'; }

# ns per call of ftrace-ops' tracee_relevant, called CALLS times by the
# module's init, on CPU 0 (the module registers no ftrace_ops of its own).
kernel_loop() {
	dmesg -c > /dev/null
	taskset -c 0 insmod "$ko/ftrace-ops.ko" nr_function_calls="$CALLS" \
		nr_ops_relevant=0 nr_ops_irrelevant=0 persist=1 || { echo n/a; return; }
	total=$(dmesg | sed -n 's/.*Attempted [0-9]* calls to .* in \([0-9]*\)ns .*/\1/p')
	rmmod ftrace_ops
	per_call "$total" "$CALLS"
}
# ns per getpid system call, GETPIDS of them on CPU 0.
getpid_loop() {
	out=$(taskset -c 0 "$bin/getpid-loop" "$GETPIDS")
	per_call "$(echo "$out" | sed -n 's/.* in \([0-9]*\) ns .*/\1/p')" "$GETPIDS"
}

# The median of the numbers on stdin (n/a if any is n/a or none came).
median() { sort -n | awk '$1 == "n/a" { bad = 1 } { v[NR] = $1 } END { if (bad || NR == 0) print "n/a"; else print v[int((NR + 1) / 2)] }'; }

# Runs "$1 A" and "$1 B" alternately, ROUNDS times each, so that a change
# of the host's speed during the benchmark hits both alike; prints the
# best (lowest) figure of each, "A B".
alternate() { # function a b
	i=0
	while [ $i -lt "$ROUNDS" ]; do
		i=$((i + 1))
		echo "a $("$1" "$2")"
		echo "b $("$1" "$3")"
	done > /tmp/bench-alternate
	echo "$(sed -n 's/^a //p' /tmp/bench-alternate | ${PICK:-least}) $(sed -n 's/^b //p' /tmp/bench-alternate | ${PICK:-least})"
}
