#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Side-by-side benchmarks of rftrace and the kernel's own ftrace, run in one
# VM (`make bench`). They print ratios; under TCG only the ratios mean
# anything. Benchmarks assert nothing; a figure that could not be measured
# prints as n/a, with the reason on the console.
#
# RFTRACE_BENCH="ring_buffer function_tracer function_graph events probes
# instances" (commas or blanks) picks parts: RFTRACE_BENCH=instances
# tools/testing/vm/run-vm.sh --kdir DIR --mode bench runs only the
# function tracer in 1, 2 and 4 instances (instances.sh).
here=$(dirname "$0")
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
for part in $(echo "${RFTRACE_BENCH:-ring_buffer function_tracer function_graph events probes instances}" | tr , ' '); do
	[ -x "$here/$part.sh" ] || { echo "bench: no benchmark $part" >&2; continue; }
	"$here/$part.sh"
done
