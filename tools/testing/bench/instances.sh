#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The function tracer in 1, 2 and 4 instances at once, side by side with
# the kernel's (part of `make bench`, see bench.sh): N instances made
# under instances/ (the top directory stays nop), each tracing the same
# function with its own function tracer, and the cost of one call from
# the in-kernel loop (samples/ftrace/ftrace-ops calling tracee_relevant)
# and from the getpid loop (__task_pid_nr_ns), less the untraced call,
# with its growth from 1 to 4 instances. The kernel calls one ftrace_ops
# alone on a site directly, and two or more through its list dispatcher
# (ftrace_ops_list_func). A side whose instances cannot be made (no
# instances/, mkdir refused, no function tracer in them) prints n/a.
#
# INSTANCES="1 2 4" picks the counts; CALLS, GETPIDS and ROUNDS as in
# function_tracer.sh.
CALLS=${CALLS:-1000000}
GETPIDS=${GETPIDS:-100000}
ROUNDS=${ROUNDS:-5}
INSTANCES=${INSTANCES:-1 2 4}
here=$(dirname "$0")
. "$here/lib.sh"

plural() { [ "$1" = 1 ] && echo instance || echo instances; }
# The instances of a run: DIR/instances/rftrace-bench.1 to .N.
inst() { echo "$1/instances/rftrace-bench.$2"; } # dir i

remove_instances() { # dir
	for d in "$1"/instances/rftrace-bench.*; do
		[ -d "$d" ] || continue
		err=$(rmdir "$d" 2>&1) || log "$d: rmdir: $err"
	done
}

# Makes N instances under dir, each with a function tracer; on failure
# says why on the console and leaves none.
make_instances() { # dir n
	if [ ! -d "$1/instances" ]; then
		log "$1: no instances/ directory"
		return 1
	fi
	i=0
	while [ $i -lt "$2" ]; do
		i=$((i + 1))
		d=$(inst "$1" $i)
		if ! err=$(mkdir "$d" 2>&1); then
			log "$1: mkdir instances/${d##*/}: $err"
			remove_instances "$1"
			return 1
		fi
		if ! grep -qw function "$d/available_tracers" 2>/dev/null; then
			log "$d: no function tracer"
			remove_instances "$1"
			return 1
		fi
	done
}

# One run of loop "$3" while the N instances made under dir (first
# argument "DIR N") trace the functions of filter $2, each with its own
# function tracer: ns per call, or n/a (and why, on the console) if the
# instances are missing, a filter or the tracer is refused, or any
# instance's buffer has no function event after the run. The filters are
# written before every run: the kernel uses up a `:mod:` filter when the
# module loads.
instances_run() { # "dir n" filter loop
	dir=${1%% *} n=${1#* }
	if [ ! -d "$(inst "$dir" "$n")" ]; then
		echo n/a
		return
	fi
	bad=
	i=0
	while [ $i -lt "$n" ]; do
		i=$((i + 1))
		d=$(inst "$dir" $i)
		echo > "$d/trace"
		if ! echo "$2" > "$d/set_ftrace_filter"; then
			log "$d: set_ftrace_filter refused $2"
			bad=1
		elif ! echo function > "$d/current_tracer"; then
			log "$d: function tracer refused"
			bad=1
		fi
	done
	cost=n/a
	[ -n "$bad" ] || cost=$("$3")
	# Lines of function events in each instance (a module gone since
	# prints as an address), counted before the tracer switch empties
	# the buffer.
	hits= least_hits=
	i=0
	while [ $i -lt "$n" ]; do
		i=$((i + 1))
		d=$(inst "$dir" $i)
		h=$(grep -c ' <-' "$d/trace")
		hits="$hits $h"
		[ -n "$least_hits" ] && [ "$least_hits" -le "$h" ] || least_hits=$h
		echo nop > "$d/current_tracer"
		echo > "$d/set_ftrace_filter"
		echo > "$d/trace"
	done
	log "$dir: $n $(plural "$n"): $3: $cost ns per call, function events in each buffer:$hits"
	if [ -z "$bad" ] && [ "$least_hits" -gt 0 ]; then echo "$cost"; else echo n/a; fi
}

# rftrace loaded and mounted throughout; untraced loops first.
insmod "$ko/rftrace.ko"
mount -t rftracefs nodev "$rftrace"
untraced() { "$1"; }
set -- $(alternate untraced kernel_loop getpid_loop); k_off=$1 u_off=$2

# The module's functions are named before it loads (`:mod:`), as its
# loop runs in its init; getpid() is __task_pid_nr_ns (see
# function_tracer.sh).
loop_run() { instances_run "$1" tracee_relevant:mod:ftrace_ops kernel_loop; }
getpid_run() { instances_run "$1" __task_pid_nr_ns getpid_loop; }
: > /tmp/bench-instances
for n in $INSTANCES; do
	make_instances "$rftrace" "$n"
	make_instances "$tracing" "$n"
	set -- $(alternate loop_run "$rftrace $n" "$tracing $n"); rf_k=$1 ft_k=$2
	set -- $(alternate getpid_run "$rftrace $n" "$tracing $n"); rf_u=$1 ft_u=$2
	remove_instances "$rftrace"
	remove_instances "$tracing"
	echo "$n $rf_k $ft_k $rf_u $ft_u" >> /tmp/bench-instances
done

umount "$rftrace"
rmmod rftrace

# Field $2 of the line for N instances, n/a if none.
get() { awk -v n="$1" -v f="$2" '$1 == n { v = $f } END { print (v == "" ? "n/a" : v) }' /tmp/bench-instances; }
header "function tracer in N instances" rftrace ftrace
for n in $INSTANCES; do
	row "ns per traced call, $n $(plural "$n"), in-kernel loop" "$(get "$n" 2)" "$(get "$n" 3)"
	row "  ns added by tracing" "$(minus "$(get "$n" 2)" "$k_off")" "$(minus "$(get "$n" 3)" "$k_off")"
done
for n in $INSTANCES; do
	row "ns per traced getpid, $n $(plural "$n")" "$(get "$n" 4)" "$(get "$n" 5)"
	row "  ns added by tracing" "$(minus "$(get "$n" 4)" "$u_off")" "$(minus "$(get "$n" 5)" "$u_off")"
done
# How the added cost grows from the first count to the last (1 to 4).
first=${INSTANCES%% *} last=${INSTANCES##* }
growth() { ratio "$(minus "$(get "$last" "$1")" "$2")" "$(minus "$(get "$first" "$1")" "$2")"; }
row "added ns, $last over $first $(plural "$first"), in-kernel loop" "$(growth 2 "$k_off")" "$(growth 3 "$k_off")"
row "added ns, $last over $first $(plural "$first"), getpid" "$(growth 4 "$u_off")" "$(growth 5 "$u_off")"
log "untraced (rftrace loaded): $k_off ns per call of the in-kernel loop, $u_off ns per getpid"
