# SPDX-License-Identifier: GPL-2.0
# Helpers of the tracecmd/ cases, sourced by each: Debian's trace-cmd run
# against the kernel's tracefs and, through rftrace-cmd, against
# rftracefs, on the same workload, in the same VM.
#
# Sets: $ktrace (the kernel's tracefs, mounted), $rftrace_cmd, and
# RFTRACE_TRACING_DIR (rftracefs, exported for both sides so that the
# traced command's environment is the same); the case runs in $TMPDIR.
is_rftrace || { echo "compares rftracefs with the kernel's tracefs"; exit_unsupported; }
command -v trace-cmd > /dev/null || fail "no trace-cmd here (make setup installs it, the initramfs takes it)"
rftrace_cmd=$FTRACETEST_ROOT/bin/rftrace-cmd
[ -x "$rftrace_cmd" ] || fail "no $rftrace_cmd (make test-tools)"
ktrace=/sys/kernel/tracing
grep -q " $ktrace tracefs " /proc/mounts || mount -t tracefs nodev "$ktrace"
RFTRACE_TRACING_DIR=$PWD
export RFTRACE_TRACING_DIR

# Both sides back to their state after boot or load: trace-cmd reset.
tracecmd_reset() {
	trace-cmd reset > /dev/null 2>&1
	"$rftrace_cmd" reset > /dev/null 2>&1
	for d in "$ktrace" "$RFTRACE_TRACING_DIR"; do
		echo 1 > "$d/tracing_on"
		echo > "$d/trace"
	done
}
trap 'set +x; tracecmd_reset' EXIT
tracecmd_reset
cd "$TMPDIR" || fail "no $TMPDIR"

# side NAME: the trace-cmd of side NAME (k: the kernel's, r: rftrace's).
side() {
	case $1 in k) echo trace-cmd ;; *) echo "$rftrace_cmd" ;; esac
}

# record NAME TRACE-CMD ARGS...: records into NAME.dat (ARGS end with the
# command to run), then reports it into NAME.txt.
record() {
	name=$1 tool=$2
	shift 2
	"$tool" record -o "$name.dat" "$@" > "$name.log" 2>&1 ||
		{ cat "$name.log"; fail "$name: trace-cmd record $* failed"; }
	trace-cmd report -i "$name.dat" > "$name.txt" 2> "$name.err" ||
		{ cat "$name.err"; fail "$name: trace-cmd report failed"; }
}

# Report lines as "PID event: fields": no task name, CPU or time (a
# buffer's "NAME: " prefix kept).
strip() { # report
	sed -n 's/^\([a-z_0-9]*: \)\{0,1\} *.*-\([0-9][0-9]*\) *\[[0-9]*\] *[0-9.]*: */\1\2 /p' "$1"
}

# Compares what the two sides made of the same thing: file NAME.k with
# NAME.r; fails with the difference (< kernel, > rftrace).
same() { # name what
	if ! cmp -s "$1.k" "$1.r"; then
		diff "$1.k" "$1.r" | head -30
		fail "$2 differs from the kernel's (< kernel, > rftrace)"
	fi
}
