#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: the side-by-side benchmarks (bench.sh) in two VM runs of
# the kernel in KDIR, one timed by the host's clock and one with QEMU
# counting instructions as guest time (-icount shift=0), then one table of
# both ratios. TCG charges some instructions far more than hardware does
# and times vary between runs; instruction counts do not depend on the host.
#
#   run-host.sh KDIR
#
# RFTRACE_BENCH picks the benchmarks (bench.sh); RFTRACE_OUT the output
# directory (both runs' tables are kept there as time.txt, icount.txt).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
vm=$top/tools/testing/vm
kdir=$1
out=${RFTRACE_OUT:-$top/out}
mkdir -p "$out"
# A whole run takes about 20 minutes timed, longer counting instructions
# (and more on a busy host): more than run-vm.sh's test limit.
limit=${RFTRACE_VM_TIMEOUT:-7200}

for measure in time icount; do
	icount=0
	[ "$measure" = icount ] && icount=1
	echo "bench: $measure run ($(basename "$kdir"))" >&2
	RFTRACE_ICOUNT=$icount RFTRACE_OUT="$out/bench-$measure" \
		"$vm/run-vm.sh" --kdir "$kdir" --mode bench --timeout "$limit" |
		tr -d '\r' | grep '^rftrace-bench:' | sed 's/^rftrace-bench: //' > "$out/$measure.txt"
done

echo "# $(basename "$kdir"): ns by the host's clock (best of the rounds)"
grep -v '^#' "$out/time.txt"
echo
echo "# $(basename "$kdir"): guest instructions (-icount shift=0)"
grep -v '^#' "$out/icount.txt"
echo
# Both ratios by row: the name is the first 48 columns, the ratio the last
# field.
printf '%-48s %10s %10s\n' "rftrace / ftrace" "time" "icount"
awk 'FNR == NR { if ($0 !~ /^#/) t[substr($0, 1, 48)] = $NF; next }
	$0 !~ /^#/ { name = substr($0, 1, 48); if (name in t) printf "%-48s %10s %10s\n", name, t[name], $NF }' \
	"$out/time.txt" "$out/icount.txt"
