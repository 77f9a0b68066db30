#!/usr/bin/env bash
# Boot the test kernel in QEMU with rftrace and its selftests in an
# initramfs.
#
#   run-vm.sh --kdir DIR --mode test|demo|shell [--timeout SECONDS]
#
# test:  run the selftests; the host checks their KTAP output and the kernel
#        log (ktap-check) and exits non-zero on any failure.
# demo:  load rftrace, mount rftracefs and show it working; with a terminal
#        attached, leave an interactive shell in the VM afterwards.
# shell: an interactive shell with rftrace loaded.
#
# QEMU runs under TCG unless a short probe boot shows KVM works (RFTRACE_KVM=0
# never tries KVM). The guest always powers off; a host-side timeout is the
# last resort.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
kdir= mode=test timeout=${RFTRACE_VM_TIMEOUT:-2700}
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) kdir=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	*) echo "run-vm: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$kdir" ] || { echo "run-vm: --kdir is required" >&2; exit 2; }
kernel=$kdir/arch/x86/boot/bzImage
[ -f "$kernel" ] || { echo "run-vm: no kernel image $kernel" >&2; exit 2; }
[ -f "$top/rftrace.ko" ] || { echo "run-vm: build rftrace.ko first (make module)" >&2; exit 2; }

# RFTRACE_OUT: where the initramfs, console log and results go.
out=${RFTRACE_OUT:-$top/out}
share=$out/share
rm -rf "$share" && mkdir -p "$share"
"$here/mkinitramfs.sh" "$kdir" "$out/initramfs.cpio.gz" >/dev/null

accel=tcg
if [ "${RFTRACE_KVM:-probe}" != 0 ] && [ -w /dev/kvm ]; then
	probe=${RFTRACE_CACHE:-$HOME/.cache/rftrace}/kvm-probe-$(sha256sum "$kernel" | cut -c1-12)
	if [ ! -f "$probe" ]; then
		if timeout 30 qemu-system-x86_64 -accel kvm -cpu host -smp 2 -m 512M \
			-kernel "$kernel" -initrd "$out/initramfs.cpio.gz" \
			-append "console=ttyS0 rdinit=/init rftrace.mode=probe panic=-1" \
			-display none -serial stdio -monitor none -no-reboot 2>/dev/null |
			grep -q 'rftrace-probe: ok'; then
			echo kvm > "$probe"
		else
			echo tcg > "$probe"
		fi
	fi
	accel=$(cat "$probe")
fi
cpu=max
[ "$accel" = kvm ] && cpu=host
# RFTRACE_TCG: how TCG runs the two vCPUs: `single` (the default: one host
# thread runs them in turn) or `multi` (a host thread each). Under `multi`,
# QEMU can run a breakpoint that text patching already removed from memory,
# the kernel's own ftrace as well as rftrace. See Documentation/rftrace.rst,
# "Testing".
tcg=${RFTRACE_TCG:-single}
case $tcg in multi|single) ;; *) echo "run-vm: RFTRACE_TCG is multi or single" >&2; exit 2 ;; esac
accel_opts=$accel
[ "$accel" = tcg ] && accel_opts="tcg,thread=$tcg"
echo "run-vm: booting with $accel_opts, mode $mode" >&2

qemu=(qemu-system-x86_64 -accel "$accel_opts" -cpu "$cpu" -smp 2 -m 2G
	-kernel "$kernel" -initrd "$out/initramfs.cpio.gz"
	-virtfs "local,path=$share,mount_tag=host,security_model=none,id=host"
	-no-reboot)
append="console=ttyS0 rdinit=/init rftrace.mode=$mode panic=-1 reboot=t"
# RFTRACE_TESTS=buffer/snapshot.tc,control runs only those cases (test mode;
# in ftrace-selftests mode, cases or directories of the kernel's test.d).
[ -z "${RFTRACE_TESTS:-}" ] || append="$append rftrace.tests=$RFTRACE_TESTS"
# RFTRACE_SLOW=1 runs the cases marked "# slow:" too (test mode).
[ -z "${RFTRACE_SLOW:-}" ] || append="$append rftrace.slow=$RFTRACE_SLOW"
# RFTRACE_TRACING_DIR=/sys/kernel/tracing runs the cases against the kernel's
# own tracefs instead of rftracefs, to check the cases against the reference
# (ftrace-selftests mode: =both runs them against tracefs, then rftracefs).
[ -z "${RFTRACE_TRACING_DIR:-}" ] || append="$append rftrace.dir=$RFTRACE_TRACING_DIR"
# The selftests load rftrace with its patching checks on (debug_patching=1:
# every batch read back, stray int3 traps described before the oops), so
# that a crash in a test run carries its evidence; RFTRACE_DEBUG_PATCHING=0
# turns them off, =1 turns them on in the other modes too.
debug_patching=${RFTRACE_DEBUG_PATCHING:-}
[ -n "$debug_patching" ] || { [ "$mode" = test ] && debug_patching=1 || debug_patching=0; }
[ "$debug_patching" = 0 ] || append="$append rftrace.debug_patching=1"
# RFTRACE_BENCH=function_tracer runs only those benchmarks (bench mode).
[ -z "${RFTRACE_BENCH:-}" ] || append="$append rftrace.bench=$RFTRACE_BENCH"
# RFTRACE_ICOUNT=1: guest time counts instructions (one a nanosecond),
# whatever the host's speed: the benchmarks' second measure.
if [ "${RFTRACE_ICOUNT:-0}" = 1 ]; then
	[ "$accel" = tcg ] || { echo "run-vm: RFTRACE_ICOUNT needs TCG" >&2; exit 2; }
	qemu+=(-icount shift=0)
fi
# A kernel built with CPU mitigations (config.mitigations) uses them: the
# emulated CPU claims enhanced IBRS, which would leave retpolines out.
if grep -qx 'CONFIG_CPU_MITIGATIONS=y' "$kdir/.config" 2>/dev/null; then
	append="$append spectre_v2=retpoline"
fi

if [ "$mode" != test ] && [ -t 0 ] && [ -t 1 ]; then
	# A terminal is attached: the demo ends in a shell in the VM.
	exec "${qemu[@]}" -nographic -append "${append/rftrace.mode=demo/rftrace.mode=shell}"
fi
[ "$mode" = shell ] && { echo "run-vm: shell mode needs a terminal" >&2; exit 2; }

log=$out/console.log
set +e
timeout "$timeout" "${qemu[@]}" -display none -serial stdio -monitor none \
	-append "$append" </dev/null | tee "$log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" = 124 ]; then
	echo "run-vm: the VM did not finish within ${timeout}s" >&2
	exit 1
fi
[ "$mode" = test ] || exit 0
"$here/ktap-check" --console "$log" --ktap "$share/ktap.log" --dmesg "$share/dmesg.log"
