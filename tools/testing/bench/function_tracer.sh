#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The function tracer side by side with the kernel's (part of `make bench`,
# see bench.sh): the cost of one traced call, from an in-kernel loop
# (samples/ftrace/ftrace-ops calling tracee_relevant) and from a getpid
# loop in user space; rftrace's cost when loaded but not tracing; and the
# time to start and to stop tracing every function.
CALLS=${CALLS:-1000000}
GETPIDS=${GETPIDS:-100000}
ROUNDS=${ROUNDS:-5}
here=$(dirname "$0")
. "$here/lib.sh"

# One run of loop "$3" while tracing dir $1's function tracer traces the
# functions of filter $2: its ns per call, or n/a (and why, on the console)
# if the filter is refused or the run left no function event. The filter
# is written before every run: the kernel uses up a `:mod:` filter when
# the module loads.
# One run: dir $1 traces filter $2 with the function tracer while loop $3
# runs (with tracing_on 0 if $4 is "off": the tracer is called and records
# nothing); ns per call, or n/a if nothing was recorded.
traced_run() { # dir filter loop [off]
	echo > "$1/trace"
	if ! echo "$2" > "$1/set_ftrace_filter"; then
		log "$1: set_ftrace_filter refused $2"
		echo n/a
		return
	fi
	echo function > "$1/current_tracer"
	[ "${4:-}" != off ] || echo 0 > "$1/tracing_on"
	cost=$("$3")
	echo 1 > "$1/tracing_on"
	# Lines of function events (a module gone since prints as an
	# address), counted before the tracer switch empties the buffer.
	hits=$(grep -c ' <-' "$1/trace")
	echo nop > "$1/current_tracer"
	echo > "$1/set_ftrace_filter"
	echo > "$1/trace"
	log "$1: $3${4:+ (tracing off)}: $cost ns per call, $hits function events in the buffer"
	if [ "$hits" -gt 0 ] || [ "${4:-}" = off ]; then echo "$cost"; else echo n/a; fi
}

# Milliseconds to start, then to stop, tracing every function.
all_functions() { # dir; prints "start_ms stop_ms"
	echo > "$1/set_ftrace_filter"
	t0=$(now_ns)
	echo function > "$1/current_tracer"
	t1=$(now_ns)
	echo nop > "$1/current_tracer"
	t2=$(now_ns)
	echo > "$1/trace"
	awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "%.1f %.1f\n", (b - a) / 1e6, (c - b) / 1e6 }'
}

echo 0 > "$tracing/tracing_on" && echo 1 > "$tracing/tracing_on"
# One run of loop "$2" with rftrace loaded (and mounted) but not tracing
# ("$1" = idle) or not loaded ("$1" = off).
idle_run() { # "idle LOOP" or "off LOOP"
	case $1 in
	idle*)
		insmod "$ko/rftrace.ko"
		mount -t rftracefs nodev "$rftrace"
		"${1#idle }"
		umount "$rftrace"
		rmmod rftrace
		;;
	*) "${1#off }" ;;
	esac
}
set -- $(alternate idle_run "idle kernel_loop" "off kernel_loop"); k_idle=$1 k_off=$2
set -- $(alternate idle_run "idle getpid_loop" "off getpid_loop"); u_idle=$1 u_off=$2
insmod "$ko/rftrace.ko"
mount -t rftracefs nodev "$rftrace"

# The module's functions are named before it loads (`:mod:`), as its
# loop runs in its init. getpid() is task_tgid_vnr(current), that is
# __task_pid_nr_ns (__x64_sys_getpid is inlined into the system call
# table's switch).
loop_run() { traced_run "${1%% *}" tracee_relevant:mod:ftrace_ops kernel_loop; }
getpid_run() { traced_run "${1%% *}" __task_pid_nr_ns getpid_loop; }
set -- $(alternate loop_run "$rftrace" "$tracing"); rf_k=$1 ft_k=$2
set -- $(alternate getpid_run "$rftrace" "$tracing"); rf_u=$1 ft_u=$2
# What a call costs before its record: the tracer called, tracing_on 0.
loop_off_run() { traced_run "${1%% *}" tracee_relevant:mod:ftrace_ops kernel_loop off; }
set -- $(alternate loop_off_run "$rftrace" "$tracing"); rf_k_off=$1 ft_k_off=$2

# Bytes per second of `trace` read as text over the function events of
# one getpid loop (a full buffer of the same size on both sides: each line
# names two functions), the median of ROUNDS reads each, alternately.
read_run() { # dir
	echo > "$1/trace"
	echo __task_pid_nr_ns > "$1/set_ftrace_filter"
	echo function > "$1/current_tracer"
	getpid_loop > /dev/null
	echo 0 > "$1/tracing_on"
	rate=$("$bin/rawdecode" --drain "$1/trace" | awk '{ if ($2 > 0) printf "%d\n", $1 * 1000000000 / $2; else print "n/a" }')
	log "$1: $(grep -c ' <-' "$1/trace") function events read at $rate bytes/s"
	echo 1 > "$1/tracing_on"
	echo nop > "$1/current_tracer"
	echo > "$1/set_ftrace_filter"
	echo > "$1/trace"
	echo "$rate"
}
set -- $(PICK=median alternate read_run "$rftrace" "$tracing"); rf_read=$1 ft_read=$2

log "sites: rftrace $(wc -l < "$rftrace/available_filter_functions"), ftrace $(wc -l < "$tracing/available_filter_functions")"
# Twice each, alternately; the best start and the best stop of each.
for i in 1 2; do
	echo "rf $(all_functions "$rftrace")"
	echo "ft $(all_functions "$tracing")"
done > /tmp/bench-all
column() { awk -v who="$1" -v f="$2" '$1 == who { print $f }' /tmp/bench-all | least; }
rf_start=$(column rf 2) rf_stop=$(column rf 3)
ft_start=$(column ft 2) ft_stop=$(column ft 3)
log "all functions, ms to start/stop: rftrace $rf_start/$rf_stop, ftrace $ft_start/$ft_stop"

umount "$rftrace"
rmmod rftrace

header "function tracer" rftrace ftrace
row "ns per traced call, in-kernel loop (lower better)" "$rf_k" "$ft_k"
row "  ns added by tracing, in-kernel loop" "$(minus "$rf_k" "$k_idle")" "$(minus "$ft_k" "$k_idle")"
row "  ns added with tracing_on 0 (no record), loop" "$(minus "$rf_k_off" "$k_idle")" "$(minus "$ft_k_off" "$k_idle")"
row "ns per traced getpid (lower better)" "$rf_u" "$ft_u"
row "  ns added by tracing, getpid" "$(minus "$rf_u" "$u_idle")" "$(minus "$ft_u" "$u_idle")"
row "ms to start tracing all functions" "$rf_start" "$ft_start"
row "ms to stop tracing all functions" "$rf_stop" "$ft_stop"
row "trace read bytes/s of function events (higher)" "$rf_read" "$ft_read"
header "rftrace not tracing" loaded unloaded
row "ns per untraced call, in-kernel loop" "$k_idle" "$k_off"
row "ns per untraced getpid" "$u_idle" "$u_off"
