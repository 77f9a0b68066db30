#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A first look at rftrace: load it, mount rftracefs, trace functions with
# the sample of each tracer, and drive it with echo and cat as one drives
# /sys/kernel/tracing.
here=$(cd "$(dirname "$0")" && pwd)
set -x
insmod /lib/modules/rftrace.ko
mount -t rftracefs nodev /sys/kernel/rftrace
cd /sys/kernel/rftrace
cat available_tracers
# Each tracer's sample (TRACER.sh here) shows the start of a trace and puts
# the tracer back to nop; in name order, so function comes first. Only the
# samples' command lines are traced, not the loop's tests.
{ set +x; } 2>/dev/null
for tracer in $(tr ' ' '\n' < available_tracers | sort); do
	[ ! -x "$here/$tracer.sh" ] || (set -x; "$here/$tracer.sh")
done
set -x
ls -l
cat README
cat current_tracer
echo nop > current_tracer
cat tracing_cpumask
echo 0 > tracing_on
cat tracing_on
echo noprint-parent > trace_options
cat trace_options
cat options/print-parent
echo print-parent > trace_options
echo 1 > tracing_on
# A refused write fails with EINVAL and is explained in error_log.
echo bogus > current_tracer
cat error_log
# The buffer: user space writes events with trace_marker; trace shows them
# merged across CPUs, trace_pipe consumes them.
echo 'hello from CPU0' > trace_marker
taskset -c 1 sh -c 'echo "hello from CPU1" > trace_marker' 2>/dev/null ||
	echo 'hello again' > trace_marker
cat trace
cat per_cpu/cpu0/stats
timeout 1 cat trace_pipe
cat trace
cat events/header_page
# A snapshot keeps what the buffer held; tracing goes on in an empty buffer.
echo 'before the snapshot' > trace_marker
echo 1 > snapshot
echo 'after the snapshot' > trace_marker
grep tracing_mark_write snapshot
grep tracing_mark_write trace
echo 0 > snapshot
cat trace_clock
cat buffer_size_kb
