# SPDX-License-Identifier: GPL-2.0
# What the tracer samples share; sourced by them, not run.

# Each command is printed before it runs, so the output reads as a session.
run() {
	printf '$ %s\n' "$*"
	eval "$*"
}

# Makes $1 a tracing directory if it is not one yet and goes there: for
# /sys/kernel/rftrace, loads rftrace (RFTRACE_KO, default
# /lib/modules/rftrace.ko) unless loaded and mounts rftracefs; any other
# directory gets the kernel's tracefs.
enter_tracing_dir() { # dir
	if [ ! -e "$1/current_tracer" ]; then
		if [ "$1" = /sys/kernel/rftrace ]; then
			# The mount point appears when the module loads.
			grep -q '^rftrace ' /proc/modules ||
				run insmod "${RFTRACE_KO:-/lib/modules/rftrace.ko}"
			run mount -t rftracefs nodev "$1"
		else
			run mount -t tracefs nodev "$1"
		fi
	fi
	run cd "$1"
}
