#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Side-by-side benchmarks of rftrace and the kernel's own ftrace, run in one
# VM (`make bench`). They print ratios; under TCG only the ratios mean
# anything. Benchmarks assert nothing; a figure that could not be measured
# prints as n/a, with the reason on the console.
#
# RFTRACE_BENCH="ring_buffer function_tracer function_graph events probes" (commas or
# blanks) picks parts.
here=$(dirname "$0")
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
for part in $(echo "${RFTRACE_BENCH:-ring_buffer function_tracer function_graph events probes}" | tr , ' '); do
	[ -x "$here/$part.sh" ] || { echo "bench: no benchmark $part" >&2; continue; }
	"$here/$part.sh"
done
