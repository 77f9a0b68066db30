#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kprobe events side by side with the kernel's (part of `make bench`, see
# bench.sh): ns per hit of a kprobe event on the function a getpid loop
# calls, (a) at its entry (__fentry__) site, (b) at a non-zero offset the
# kernel accepts, (c) a kretprobe. ns per hit = (ns per getpid traced -
# untraced) * getpids / hits (hits from kprobe_profile). The same place is
# probed by one of the two at a time, never both.
GETPIDS=${GETPIDS:-100000}
ROUNDS=${ROUNDS:-3}
BUFFER_KB=${BUFFER_KB:-8192}
here=$(dirname "$0")
. "$here/lib.sh"

per_hit() { # traced untraced calls hits
	awk -v t="$1" -v u="$2" -v n="$3" -v e="$4" 'BEGIN {
		if (t == "n/a" || u == "n/a" || e + 0 <= 0) print "n/a"
		else printf "%.1f\n", (t - u) * n / e }'
}

# The function getpid calls: the first of these the kernel can trace.
func=
for f in __x64_sys_getpid __do_sys_getpid __task_pid_nr_ns; do
	if grep -q "^$f\$" "$tracing/available_filter_functions"; then func=$f; break; fi
done

echo 0 > "$tracing/events/enable"
echo > "$tracing/kprobe_events"
insmod "$ko/rftrace.ko"
mount -t rftracefs nodev "$rftrace"
echo "$BUFFER_KB" > "$tracing/buffer_size_kb"
echo "$BUFFER_KB" > "$rftrace/buffer_size_kb"

# A place of $func past its entry site that both accept: the first offset
# of 5..32 the kernel takes (with IBT, endbr64 is at +0 and the __fentry__
# call at +4, so +4 is still the entry site and 5..8 are inside the call).
offset=
if [ -n "$func" ]; then
	o=5
	while [ $o -le 32 ]; do
		if echo "p:kprobes/bench_try $func+$o" > "$tracing/kprobe_events" 2>/dev/null; then
			echo > "$tracing/kprobe_events"
			if echo "p:kprobes/bench_try $func+$o" > "$rftrace/kprobe_events" 2>/dev/null; then
				echo > "$rftrace/kprobe_events"
				offset=$o
				break
			fi
			log "rftrace refused $func+$o that the kernel accepts"
		fi
		o=$((o + 1))
	done
fi
log "probed function: ${func:-none}, offset: ${offset:-none}"

# One run: dir $1 defines kprobe event bench_ev as "$2" (a p: or r: line),
# enables it, runs the getpid loop (with tracing_on 0 if $3 is "off": the
# probe fires and counts its hits, nothing is recorded): ns per hit, or
# n/a (and why).
probe_run() { # dir definition [off]
	echo > "$1/trace"
	if ! echo "$2" > "$1/kprobe_events"; then
		log "$1: cannot define '$2'"; echo n/a; return
	fi
	if ! echo 1 > "$1/events/kprobes/bench_ev/enable"; then
		log "$1: cannot enable bench_ev"; echo > "$1/kprobe_events"; echo n/a; return
	fi
	[ "${3:-}" != off ] || echo 0 > "$1/tracing_on"
	cost=$(getpid_loop)
	echo 1 > "$1/tracing_on"
	echo 0 > "$1/events/kprobes/bench_ev/enable"
	hits=$(awk '$1 == "bench_ev" { print $2 }' "$1/kprobe_profile")
	missed=$(awk '$1 == "bench_ev" { print $3 }' "$1/kprobe_profile")
	lost=$(sed -n 's/^overrun: *//p' "$1/per_cpu/cpu0/stats")
	echo > "$1/kprobe_events"
	echo > "$1/trace"
	log "$1: '$2'${3:+ (tracing off)}: $cost ns per getpid, $hits hits, $missed missed, $lost overwritten"
	if [ "${hits:-0}" -ge "$GETPIDS" ] && [ "$lost" = 0 ]; then
		per_hit "$cost" "$u_off" "$GETPIDS" "$hits"
	else
		echo n/a
	fi
}

untraced() { getpid_loop; }
set -- $(alternate untraced x x); u_off=$1
log "untraced: $u_off ns per getpid"

rf_entry=n/a ft_entry=n/a rf_off=n/a ft_off=n/a rf_ret=n/a ft_ret=n/a
rf_entry_off=n/a ft_entry_off=n/a rf_ret_off=n/a ft_ret_off=n/a
if [ -n "$func" ]; then
	entry_run() { probe_run "$1" "p:kprobes/bench_ev $func"; }
	ret_run() { probe_run "$1" "r:kprobes/bench_ev $func"; }
	set -- $(alternate entry_run "$rftrace" "$tracing"); rf_entry=$1 ft_entry=$2
	if [ -n "$offset" ]; then
		offset_run() { probe_run "$1" "p:kprobes/bench_ev $func+$offset"; }
		set -- $(alternate offset_run "$rftrace" "$tracing"); rf_off=$1 ft_off=$2
	fi
	set -- $(alternate ret_run "$rftrace" "$tracing"); rf_ret=$1 ft_ret=$2
	# The same with recording off: what the probe's own path costs, apart
	# from its record.
	entry_off_run() { probe_run "$1" "p:kprobes/bench_ev $func" off; }
	ret_off_run() { probe_run "$1" "r:kprobes/bench_ev $func" off; }
	set -- $(alternate entry_off_run "$rftrace" "$tracing"); rf_entry_off=$1 ft_entry_off=$2
	set -- $(alternate ret_off_run "$rftrace" "$tracing"); rf_ret_off=$1 ft_ret_off=$2
fi

echo 1408 > "$tracing/buffer_size_kb"
echo 1408 > "$rftrace/buffer_size_kb"
umount "$rftrace"
rmmod rftrace

header "kprobe events ($func)" rftrace ftrace
row "ns per hit at the entry site (lower better)" "$rf_entry" "$ft_entry"
row "ns per hit at +$offset (lower better)" "$rf_off" "$ft_off"
row "ns per kretprobe hit (lower better)" "$rf_ret" "$ft_ret"
row "  the same at the entry site, tracing off" "$rf_entry_off" "$ft_entry_off"
row "  the same kretprobe, tracing off" "$rf_ret_off" "$ft_ret_off"
