#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run inside the test VM (by /init, or by run-vng.sh): load rftrace, mount rftracefs, run every
# selftest case, or those RFTRACE_TESTS names (KTAP on stdout), and on a debug kernel scan for leaks.
here=$(cd "$(dirname "$0")" && pwd)
export RFTRACE_KO=${RFTRACE_KO:-/lib/modules/rftrace.ko}
# RFTRACE_INSMOD_ARGS: module parameters, e.g. debug_patching=1.
insmod "$RFTRACE_KO" ${RFTRACE_INSMOD_ARGS:-} || echo "# insmod $RFTRACE_KO failed"
mount -t rftracefs nodev /sys/kernel/rftrace || echo "# mounting rftracefs failed"
# RFTRACE_TESTS (comma-separated, relative to test.d) narrows the run.
cases=
for t in $(echo "${RFTRACE_TESTS:-}" | tr , ' '); do cases="$cases $here/test.d/$t"; done
# RFTRACE_TRACING_DIR=/sys/kernel/tracing runs them against the kernel's tracefs.
dir=${RFTRACE_TRACING_DIR:-/sys/kernel/rftrace}
if [ "$dir" != /sys/kernel/rftrace ] && ! grep -q " $dir tracefs " /proc/mounts; then
	mount -t tracefs nodev "$dir" || echo "# mounting tracefs at $dir failed"
fi
# A debug kernel (KASAN, lockdep, kmemleak) under TCG runs each case
# several times slower, more so with every function traced: the cases'
# time limits are scaled, unless RFTRACE_TIMEOUT_SCALE says otherwise.
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
if [ -f /sys/kernel/debug/kmemleak ]; then
	export RFTRACE_TIMEOUT_SCALE=${RFTRACE_TIMEOUT_SCALE:-6}
fi
"$here/rftracetest" -d "$dir" $cases
status=$?
if [ -f /sys/kernel/debug/kmemleak ]; then
	# Unreferenced objects are found after two scans; report what remains.
	echo scan > /sys/kernel/debug/kmemleak
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > /tmp/kmemleak
	if [ -s /tmp/kmemleak ]; then
		# How many, what the first ones are, and the frames they were
		# most often allocated from (a large count would flood the log).
		echo "# kmemleak: $(grep -c '^unreferenced object' /tmp/kmemleak) suspected memory leaks; the first:"
		awk '/^unreferenced object/ { n++ } n <= 20' /tmp/kmemleak | sed 's/^/# /'
		echo "# kmemleak: the frames most of them were allocated from:"
		grep -E '^ +[_A-Za-z0-9.]+\+0x[0-9a-f]+/0x[0-9a-f]+' /tmp/kmemleak | sed 's/^ *//' |
			sort | uniq -c | sort -rn | head -n 25 | sed 's/^/# /'
	fi
fi
echo "# rftrace-selftests: done (status $status)"
