#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The function tracer, with the examples of ftrace's overview: trace every
# kernel function for a millisecond, then only vfs_read, and show the start
# of each trace.
#
#   function.sh [TRACING_DIR]
#
# TRACING_DIR is /sys/kernel/rftrace unless given (/sys/kernel/tracing runs
# the same commands on the kernel's ftrace). rftrace is loaded
# (RFTRACE_KO, default /lib/modules/rftrace.ko) and rftracefs mounted if
# that is not done yet. At the end, even after an error, the tracer is nop,
# the filter empty and tracing on: the state after loading, which the
# selftests that run this script expect.
set -e
dir=${1:-/sys/kernel/rftrace}

. "$(dirname "$0")/lib.sh"
enter_tracing_dir "$dir"

restore() {
	echo nop > current_tracer
	echo > set_ftrace_filter
	echo 1 > tracing_on
}
trap restore EXIT
trap 'exit 130' INT TERM

echo '# Every kernel function, for a millisecond.'
# Off while rftrace patches every function, so that the trace holds the
# millisecond only.
run 'echo 0 > tracing_on'
run 'echo function > current_tracer'
run 'echo 1 > tracing_on'
run 'sleep 0.001'
run 'echo 0 > tracing_on'
# The header is 12 lines: 13 events follow it.
run 'cat trace | head -25'

echo
echo '# Only vfs_read: head reads a file with read(), which calls it.'
# nop first: a tracer switch empties the buffer of the calls above.
run 'echo nop > current_tracer'
run 'echo vfs_read > set_ftrace_filter'
run 'echo function > current_tracer'
run 'echo 1 > tracing_on'
# busybox cat would send the file with sendfile(), which never calls vfs_read.
run 'head -n 1 /etc/passwd > /dev/null'
run 'echo 0 > tracing_on'
run 'cat trace | head -15'

echo
echo '# Back to the state after loading.'
run 'echo nop > current_tracer'
run 'echo > set_ftrace_filter'
run 'echo 1 > tracing_on'
trap - EXIT
