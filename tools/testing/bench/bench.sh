#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Side-by-side benchmarks of rftrace and the kernel's own ftrace, run in one
# VM (`make bench`). They print ratios; under TCG only the ratios mean
# anything. This is a benchmark, not a test: it asserts nothing.
EVENTS=${EVENTS:-2000000}
MARKERS=${MARKERS:-20000}
ko=/lib/modules
tracing=/sys/kernel/tracing
rftrace=/sys/kernel/rftrace

# Nanoseconds now, with microsecond resolution (busybox date has no %N):
# the "now ts" of rftrace's stats, on the local clock.
now_ns() { awk '/^now ts:/ { split($3, t, "."); printf "%d%06d000\n", t[1], t[2] }' "$rftrace/per_cpu/cpu0/stats"; }
mount -t tracefs nodev "$tracing" 2>/dev/null

# 1. Cost of writing one 10-byte event, producer only.
insmod "$ko/rftrace.ko" bench_events="$EVENTS"
mount -t rftracefs nodev "$rftrace"
rf_event_ns=$(dmesg | sed -n 's/.*benchmark: .* \([0-9][0-9]*\) ns per event.*/\1/p' | tail -n 1)
echo > "$tracing/trace"
insmod "$ko/ring_buffer_benchmark.ko" disable_reader=1
sleep 12
k_event_ns=$(grep -o '[0-9]* ns per entry' "$tracing/trace" | head -n 1 | cut -d' ' -f1)
rmmod ring_buffer_benchmark
echo > "$tracing/trace"

# 2. trace_marker writes per second (one dd write each), same buffer size.
marker_rate() { # tracing dir
	start=$(now_ns)
	dd if=/dev/zero of="$1/trace_marker" bs=32 count="$MARKERS" 2>/dev/null
	end=$(now_ns)
	echo $((MARKERS * 1000000000 / (end - start)))
}
rf_markers=$(marker_rate "$rftrace")
k_markers=$(marker_rate "$tracing")

# 3. Reading the buffer as text (the `trace` file), bytes per second.
read_rate() { # tracing dir
	start=$(now_ns)
	bytes=$(dd if="$1/trace" bs=65536 2>/dev/null | wc -c)
	end=$(now_ns)
	echo $((bytes * 1000000000 / (end - start)))
}
rf_read=$(read_rate "$rftrace")
k_read=$(read_rate "$tracing")

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
echo "rftrace-bench: benchmark                              rftrace       ftrace   rftrace/ftrace"
printf 'rftrace-bench: %-38s %10s %12s %10s\n' "ns per 10-byte event (lower is better)" "$rf_event_ns" "$k_event_ns" "$(ratio "$rf_event_ns" "$k_event_ns")"
printf 'rftrace-bench: %-38s %10s %12s %10s\n' "trace_marker writes/s (higher better)" "$rf_markers" "$k_markers" "$(ratio "$rf_markers" "$k_markers")"
printf 'rftrace-bench: %-38s %10s %12s %10s\n' "trace read bytes/s (higher better)" "$rf_read" "$k_read" "$(ratio "$rf_read" "$k_read")"
