#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Event tracing side by side with the kernel's (part of `make bench`, see
# bench.sh): the cost of one recorded event, for a system call event
# (syscalls/sys_enter_getpid, from a getpid loop) and for sched_switch (two
# tasks passing a byte back and forth through pipes on one CPU); and the
# time to enable and to disable every event (events/enable).
GETPIDS=${GETPIDS:-100000}
TRIPS=${TRIPS:-20000}
ROUNDS=${ROUNDS:-5}
# Per CPU: room for every event of a run (a sys_enter_getpid record takes
# 16 bytes, a sched_switch 68), so that none is overwritten.
BUFFER_KB=${BUFFER_KB:-8192}
here=$(dirname "$0")
. "$here/lib.sh"

# ns per round trip of pipe-pingpong (two context switches), TRIPS of them
# on CPU 0.
pingpong_loop() {
	out=$(taskset -c 0 "$bin/pipe-pingpong" "$TRIPS")
	per_call "$(echo "$out" | sed -n 's/.* in \([0-9]*\) ns .*/\1/p')" "$TRIPS"
}

# ns each of EVENTS recorded events added to CALLS calls: (ns per call
# traced - ns per call untraced) * CALLS / EVENTS.
per_event() { # traced untraced calls events
	awk -v t="$1" -v u="$2" -v n="$3" -v e="$4" 'BEGIN {
		if (t == "n/a" || u == "n/a" || e + 0 <= 0) print "n/a"
		else printf "%.1f\n", (t - u) * n / e }'
}

# One run of loop $3 ($4 calls, $5 ns per call untraced) while dir $1
# records event $2: ns per recorded event, or n/a (and why, on the
# console) if the event cannot be enabled, none of the lines matching $6
# is in CPU 0's buffer, or events were overwritten.
event_run() { # dir event loop calls untraced line-regex
	echo > "$1/trace"
	if ! echo 1 > "$1/events/$2/enable"; then
		log "$1: cannot enable $2"
		echo n/a
		return
	fi
	cost=$("$3")
	echo 0 > "$1/events/$2/enable"
	hits=$(grep -c "$6" "$1/per_cpu/cpu0/trace")
	lost=$(sed -n 's/^overrun: *//p' "$1/per_cpu/cpu0/stats")
	echo > "$1/trace"
	log "$1: $2: $3: $cost ns per call, $hits events in CPU 0's buffer, $lost overwritten"
	if [ "$hits" -gt 0 ] && [ "$lost" = 0 ]; then
		per_event "$cost" "$5" "$4" "$hits"
	else
		echo n/a
	fi
}

# Milliseconds to enable, then to disable, every event; n/a if none was
# enabled.
all_events() { # dir; prints "enable_ms disable_ms"
	t0=$(now_ns)
	echo 1 > "$1/events/enable" || log "$1: events/enable refused 1"
	t1=$(now_ns)
	enabled=$(wc -l < "$1/set_event")
	t2=$(now_ns)
	echo 0 > "$1/events/enable" || log "$1: events/enable refused 0"
	t3=$(now_ns)
	echo > "$1/trace"
	log "$1: $enabled events enabled, $(wc -l < "$1/set_event") left after disabling"
	if [ "$enabled" -gt 0 ]; then
		awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN { printf "%.1f %.1f\n", (b - a) / 1e6, (d - c) / 1e6 }'
	else
		echo "n/a n/a"
	fi
}

echo 0 > "$tracing/tracing_on" && echo 1 > "$tracing/tracing_on"
echo 0 > "$tracing/events/enable"
insmod "$ko/rftrace.ko"
mount -t rftracefs nodev "$rftrace"
echo "$BUFFER_KB" > "$tracing/buffer_size_kb"
echo "$BUFFER_KB" > "$rftrace/buffer_size_kb"

# The loops with no event enabled (rftrace loaded and mounted, as for the
# traced runs).
untraced() { "$1"; }
set -- $(alternate untraced getpid_loop pingpong_loop); u_off=$1 p_off=$2
log "untraced: $u_off ns per getpid, $p_off ns per pipe round trip"

# sys_enter_getpid prints as "sys_getpid()". The ping-pong's switches name
# pipe-pingpong as the previous or next task (both tasks have that name).
getpid_run() { event_run "$1" syscalls/sys_enter_getpid getpid_loop "$GETPIDS" "$u_off" 'sys_getpid()'; }
switch_run() { event_run "$1" sched/sched_switch pingpong_loop "$TRIPS" "$p_off" 'sched_switch: .*comm=pipe-pingpong '; }
set -- $(alternate getpid_run "$rftrace" "$tracing"); rf_getpid=$1 ft_getpid=$2
set -- $(alternate switch_run "$rftrace" "$tracing"); rf_switch=$1 ft_switch=$2

# Twice each, alternately; the best enable and the best disable of each.
for i in 1 2; do
	echo "rf $(all_events "$rftrace")"
	echo "ft $(all_events "$tracing")"
done > /tmp/bench-all-events
column() { awk -v who="$1" -v f="$2" '$1 == who { print $f }' /tmp/bench-all-events | least; }
rf_on=$(column rf 2) rf_off=$(column rf 3)
ft_on=$(column ft 2) ft_off=$(column ft 3)

echo 1408 > "$tracing/buffer_size_kb"
echo 1408 > "$rftrace/buffer_size_kb"
umount "$rftrace"
rmmod rftrace

header "events" rftrace ftrace
row "ns per sys_enter_getpid event (lower better)" "$rf_getpid" "$ft_getpid"
row "ns per sched_switch event (lower better)" "$rf_switch" "$ft_switch"
row "ms to enable all events (events/enable)" "$rf_on" "$ft_on"
row "ms to disable all events" "$rf_off" "$ft_off"
