#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A first look at rftrace: load it, mount rftracefs, and drive it with echo
# and cat as one drives /sys/kernel/tracing.
set -x
insmod /lib/modules/rftrace.ko
mount -t rftracefs nodev /sys/kernel/rftrace
cd /sys/kernel/rftrace
ls -l
cat README
cat available_tracers
cat current_tracer
echo nop > current_tracer
cat tracing_cpumask
echo 0 > tracing_on
cat tracing_on
echo noprint-parent > trace_options
cat trace_options
cat options/print-parent
echo print-parent > trace_options
echo 1 > tracing_on
# A refused write fails with EINVAL and is explained in error_log.
echo bogus > current_tracer
cat error_log
