#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The function_graph tracer, with the example of ftrace's overview: what
# vfs_read calls while a file is read, as a tree with durations, and the
# start of that trace.
#
#   function_graph.sh [TRACING_DIR]
#
# TRACING_DIR is /sys/kernel/rftrace unless given (/sys/kernel/tracing runs
# the same commands on the kernel's ftrace). rftrace is loaded
# (RFTRACE_KO, default /lib/modules/rftrace.ko) and rftracefs mounted if
# that is not done yet. At the end, even after an error, the tracer is nop,
# set_graph_function empty and tracing on: the state after loading, which
# the selftests that run this script expect.
set -e
dir=${1:-/sys/kernel/rftrace}

. "$(dirname "$0")/lib.sh"
enter_tracing_dir "$dir"

restore() {
	echo nop > current_tracer
	echo > set_graph_function
	echo 1 > tracing_on
}
trap restore EXIT
trap 'exit 130' INT TERM

echo '# What vfs_read calls, and how long each call takes.'
# set_graph_function before the tracer: function_graph with an empty
# set_graph_function would graph every function until it is set.
run 'echo vfs_read > set_graph_function'
run 'echo function_graph > current_tracer'
run 'echo 1 > tracing_on'
# busybox cat would send the file with sendfile(), which never calls vfs_read.
run 'head -n 1 /etc/passwd > /dev/null'
run 'echo 0 > tracing_on'
# The header is 4 lines; a read of a small file on tmpfs is a tree of
# about 30 lines, shown whole unless an interrupt came in during the read.
run 'cat trace | head -40'

echo
echo '# Back to the state after loading.'
run 'echo nop > current_tracer'
run 'echo > set_graph_function'
run 'echo 1 > tracing_on'
trap - EXIT
