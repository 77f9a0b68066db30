#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The ring buffer side by side with the kernel's: write cost, marker rate,
# read rates and losses (part of `make bench`, see bench.sh).
BENCH_MS=${BENCH_MS:-10000}
MARKERS=${MARKERS:-20000}
ROUNDS=${ROUNDS:-5}
here=$(dirname "$0")
. "$here/lib.sh"

# 1. Cost of writing one 10-byte event, with the reader off and on: the
# kernel's ring_buffer_benchmark (10 s per run) against rftrace's load-time
# loop doing the same work for as long.
rf_buffer_bench() { # reader: 0 or 1; prints "ns overruns read"
	dmesg -c > /dev/null
	insmod "$ko/rftrace.ko" bench_ms="$BENCH_MS" bench_reader="$1"
	ns=$(dmesg | sed -n 's/.*benchmark: \([0-9]*\) ns per entry.*/\1/p')
	line=$(dmesg | grep 'benchmark: .* hit ')
	log "rftrace: $(echo "$line" | sed 's/.*benchmark: //') $ns ns per entry"
	rmmod rftrace
	echo "$ns $(echo "$line" | sed 's/.* overruns \([0-9]*\) read \([0-9]*\).*/\1 \2/')"
}
k_buffer_bench() { # reader: 0 or 1; prints "ns overruns read"
	echo > "$tracing/trace"
	disable=$((1 - $1))
	insmod "$ko/ring_buffer_benchmark.ko" disable_reader=$disable
	# One run is 10 s; its report is in the trace when it ends.
	i=0
	while ! grep -q 'ns per entry' "$tracing/trace" && [ $i -lt 60 ]; do
		sleep 1
		i=$((i + 1))
	done
	rmmod ring_buffer_benchmark
	# trace_printk lines: "<context> 22.279794: <caller>: Overruns: 0".
	report=$(sed -n '/Starting ring buffer hammer/,/ns per entry/p' "$tracing/trace" |
		sed 's/^.*[0-9]\.[0-9]*: [^:]*: //')
	log "ftrace: $(echo "$report" | grep -E 'Overruns|Read|Hit|Missed' | tr -s ' \n' ' ')"
	ns=$(echo "$report" | sed -n 's/^\([0-9]*\) ns per entry/\1/p' | head -n 1)
	over=$(echo "$report" | sed -n 's/^Overruns: *\([0-9]*\).*/\1/p')
	read=$(echo "$report" | sed -n 's/^Read: *\([0-9]*\).*/\1/p')
	echo > "$tracing/trace"
	echo "$ns ${over:-0} ${read:-0}"
}
set -- $(rf_buffer_bench 0); rf_ns=$1
set -- $(k_buffer_bench 0); k_ns=$1
set -- $(rf_buffer_bench 1); rf_rns=$1 rf_rover=$2 rf_rread=$3
set -- $(k_buffer_bench 1); k_rns=$1 k_rover=$2 k_rread=$3

insmod "$ko/rftrace.ko"
mount -t rftracefs nodev "$rftrace"

# 2. trace_marker writes per second (one dd write each), same buffer size,
# the median of ROUNDS runs, rftrace and the kernel alternately (each run
# empties the buffer first: the last one's markers stay for part 3). Not
# the best: now and then a run is timed far too short or long on either
# side (768 ns a write among runs of 1734), from the clock read, not the
# writes (all are written).
marker_ns() { # tracing dir; ns per write
	echo > "$1/trace"
	start=$(now_ns)
	written=$(dd if=/dev/zero of="$1/trace_marker" bs=32 count="$MARKERS" 2>&1 | sed -n 's/+0 records out$//p')
	end=$(now_ns)
	ns=$(((end - start) / MARKERS))
	log "$1: $written of $MARKERS markers written, $ns ns per write"
	if [ "$written" = "$MARKERS" ]; then echo "$ns"; else echo n/a; fi
}
rate() { awk -v ns="$1" 'BEGIN { if (ns > 0) printf "%d\n", 1e9 / ns; else print "n/a" }'; }
# The same without record-cmd: rftrace saves the writer's name at each
# marker while it is on (the kernel only at context switches of traced
# tasks), which this leaves out.
echo norecord-cmd > "$rftrace/trace_options"
echo norecord-cmd > "$tracing/trace_options"
set -- $(PICK=median alternate marker_ns "$rftrace" "$tracing")
rf_markers_nocmd=$(rate "$1") k_markers_nocmd=$(rate "$2")
echo record-cmd > "$rftrace/trace_options"
echo record-cmd > "$tracing/trace_options"
set -- $(PICK=median alternate marker_ns "$rftrace" "$tracing")
rf_markers=$(rate "$1") k_markers=$(rate "$2")

# 3. Reading the buffer as text: bytes per second of `trace`, then of
# `trace_pipe` (consuming) over the same markers, each read non-blocking
# until empty.
drain=$bin/rawdecode
read_rate() { # file
	$drain --drain "$1" | awk '{ if ($2 > 0) printf "%d\n", $1 * 1000000000 / $2; else print 0 }'
}
rf_read=$(read_rate "$rftrace/trace")
k_read=$(read_rate "$tracing/trace")
rf_pipe=$(read_rate "$rftrace/trace_pipe")
k_pipe=$(read_rate "$tracing/trace_pipe")

# 4. Events lost with a reader keeping up: markers written on CPU 0 as fast
# as one task can while trace_pipe is read on CPU 1. The buffer is made as
# small as it can be while the kernel still loses none (the highest load it
# takes without loss); then rftrace gets the same load at that size.
lost_at() { # tracing dir, buffer kb; prints the overruns of CPU 0
	echo "$2" > "$1/buffer_size_kb"
	echo > "$1/trace"
	taskset -c 1 cat "$1/per_cpu/cpu0/trace_pipe" > /dev/null &
	reader=$!
	sleep 1
	taskset -c 0 dd if=/dev/zero of="$1/trace_marker" bs=32 count="$MARKERS" 2>/dev/null
	sleep 2
	kill "$reader"
	wait "$reader" 2>/dev/null
	sed -n 's/^overrun: *//p' "$1/per_cpu/cpu0/stats"
}
size=
for kb in 8 16 32 64 128 256 512 1024 2048 4096; do
	if [ "$(lost_at "$tracing" "$kb")" = 0 ]; then size=$kb; break; fi
done
if [ -n "$size" ]; then
	k_lost=$(lost_at "$tracing" "$size")
	rf_lost=$(lost_at "$rftrace" "$size")
else
	size="(none up to 4096)" k_lost=n/a rf_lost=n/a
fi
echo 1408 > "$tracing/buffer_size_kb"
echo 1408 > "$rftrace/buffer_size_kb"

header "ring buffer" rftrace ftrace
row "ns per 10-byte event, no reader (lower better)" "$rf_ns" "$k_ns"
row "ns per 10-byte event, reader on (lower better)" "$rf_rns" "$k_rns"
row "  events read by the reader" "$rf_rread" "$k_rread"
row "  events overwritten before read" "$rf_rover" "$k_rover"
row "trace_marker writes/s (higher better)" "$rf_markers" "$k_markers"
row "  the same without record-cmd" "$rf_markers_nocmd" "$k_markers_nocmd"
row "trace read bytes/s (higher better)" "$rf_read" "$k_read"
row "trace_pipe read bytes/s (higher better)" "$rf_pipe" "$k_pipe"
row "events lost, $MARKERS markers at ${size} kb" "$rf_lost" "$k_lost"

umount "$rftrace"
rmmod rftrace
