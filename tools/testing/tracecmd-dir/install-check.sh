#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Installs rftrace-cmd into a scratch prefix (make install DESTDIR=...) and
# checks that the installed wrapper finds its library and points Debian's
# trace-cmd at the directory RFTRACE_TRACING_DIR names: a stand-in tracing
# directory whose available_tracers trace-cmd must list, where the host's
# own tracefs (if any) lists others. Run by `make test`.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d /tmp/rftrace-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
make -s -C "$top" install DESTDIR="$work/root" PREFIX=/usr > "$work/install.log"
dir=$work/tracing
mkdir "$dir"
touch "$dir/trace"
echo "rft_standin_tracer nop" > "$dir/available_tracers"
got=$(RFTRACE_TRACING_DIR=$dir "$work/root/usr/bin/rftrace-cmd" list -t 2>&1) || {
	echo "install-check: FAIL: the installed rftrace-cmd failed: $got" >&2
	exit 1
}
if [ "$got" != "rft_standin_tracer nop" ]; then
	echo "install-check: FAIL: trace-cmd listed '$got', not the stand-in directory's tracers" >&2
	exit 1
fi
echo "install-check: ok: the installed rftrace-cmd points trace-cmd at RFTRACE_TRACING_DIR"
