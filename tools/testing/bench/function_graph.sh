#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The function_graph tracer side by side with the kernel's (part of `make
# bench`, see bench.sh): the cost of one traced call from an in-kernel loop
# (samples/ftrace/ftrace-ops calling tracee_relevant, each call a leaf) and
# of one graph-traced getpid (the tree __task_pid_nr_ns { __rcu_read_lock;
# __rcu_read_unlock }). Against an rftrace without function_graph its
# column prints n/a.
CALLS=${CALLS:-1000000}
GETPIDS=${GETPIDS:-100000}
ROUNDS=${ROUNDS:-5}
here=$(dirname "$0")
. "$here/lib.sh"

# One run of loop "$4" while tracing dir $1's function_graph traces the
# functions of set_ftrace_filter $2 under set_graph_function $3 ("" for
# none): its ns per call, or n/a (and why, on the console) if the tracer
# is missing, a filter is refused or the run left none of the graph lines
# matching $5 in the buffer. The filters are written before every run: the
# kernel uses up a `:mod:` filter when the module loads.
traced_run() { # dir filter graph-function loop line-regex
	if ! grep -qw function_graph "$1/available_tracers" 2>/dev/null; then
		log "$1: no function_graph tracer"
		echo n/a
		return
	fi
	echo > "$1/trace"
	if ! echo "$2" > "$1/set_ftrace_filter"; then
		log "$1: set_ftrace_filter refused $2"
		echo n/a
		return
	fi
	if [ -n "$3" ] && ! echo "$3" > "$1/set_graph_function"; then
		log "$1: set_graph_function refused $3"
		echo > "$1/set_ftrace_filter"
		echo n/a
		return
	fi
	if ! echo function_graph > "$1/current_tracer"; then
		log "$1: function_graph refused"
		echo > "$1/set_ftrace_filter"
		echo n/a
		return
	fi
	cost=$("$4")
	echo 0 > "$1/tracing_on"
	hits=$(grep -Ec "$5" "$1/trace")
	echo nop > "$1/current_tracer"
	echo 1 > "$1/tracing_on"
	echo > "$1/set_ftrace_filter"
	[ ! -f "$1/set_graph_function" ] || echo > "$1/set_graph_function"
	echo > "$1/trace"
	log "$1: $4: $cost ns per call, $hits graph lines in the buffer"
	if [ "$hits" -gt 0 ]; then echo "$cost"; else echo n/a; fi
}

echo 0 > "$tracing/tracing_on" && echo 1 > "$tracing/tracing_on"
# Untraced, for the cost tracing adds (rftrace not loaded).
untraced() { "$1"; }
set -- $(alternate untraced kernel_loop getpid_loop); k_off=$1 u_off=$2
insmod "$ko/rftrace.ko"
mount -t rftracefs nodev "$rftrace"

# Each call of tracee_relevant a leaf: "tracee_relevant [ftrace_ops]();".
# getpid() is task_tgid_vnr(current), __task_pid_nr_ns (__x64_sys_getpid
# is inlined into the system call table's switch); graph-traced from
# there, with the two functions it calls.
# (Counted once the module is gone, when a call prints as an address.)
loop_run() { traced_run "$1" tracee_relevant:mod:ftrace_ops "" kernel_loop '\|  [^ ].*\(\);$'; }
getpid_run() {
	traced_run "$1" '__task_pid_nr_ns __rcu_read_lock __rcu_read_unlock' __task_pid_nr_ns getpid_loop \
		'\|  __task_pid_nr_ns\(\) \{$'
}
set -- $(alternate loop_run "$rftrace" "$tracing"); rf_k=$1 ft_k=$2
set -- $(alternate getpid_run "$rftrace" "$tracing"); rf_u=$1 ft_u=$2

umount "$rftrace"
rmmod rftrace

header "function_graph tracer" rftrace ftrace
row "ns per call, in-kernel loop (lower better)" "$rf_k" "$ft_k"
row "  ns added by tracing, in-kernel loop" "$(minus "$rf_k" "$k_off")" "$(minus "$ft_k" "$k_off")"
row "ns per getpid, graph-traced (lower better)" "$rf_u" "$ft_u"
row "  ns added by tracing, getpid" "$(minus "$rf_u" "$u_off")" "$(minus "$ft_u" "$u_off")"
log "untraced: $k_off ns per call of the in-kernel loop, $u_off ns per getpid"
