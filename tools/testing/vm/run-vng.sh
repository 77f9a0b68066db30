#!/usr/bin/env bash
# Run the selftests under virtme-ng (vng), as kselftest users do, on the same
# test kernel. The guest sees the host's root file system; KVM is disabled
# (TCG) unless RFTRACE_KVM=1, since KVM guests hang on these machines.
#
#   run-vng.sh --kdir DIR
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
kdir=
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) kdir=$2; shift 2 ;;
	*) echo "run-vng: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$kdir" ] || { echo "run-vng: --kdir is required" >&2; exit 2; }
command -v vng >/dev/null || { echo "run-vng: vng not found (make setup installs virtme-ng)" >&2; exit 2; }

out=$top/out/vng
rm -rf "$out" && mkdir -p "$out/share"
kvm=--disable-kvm
[ "${RFTRACE_KVM:-0}" = 1 ] && kvm=
# As in run-vm.sh: the patching checks on. vng runs TCG multi-threaded.
guest_script="RFTRACE_INSMOD_ARGS=debug_patching=1 RFTRACE_KO=$top/rftrace.ko $top/tools/testing/selftests/rftrace/run-in-vm.sh > $out/share/ktap.log 2>&1; dmesg > $out/share/dmesg.log"
set +e
timeout "${RFTRACE_VM_TIMEOUT:-2700}" vng --run "$kdir" $kvm --cpus 2 --memory 2G --user root \
	--rwdir "$out/share" --exec "$guest_script" </dev/null > "$out/console.log" 2>&1
status=$?
set -e
cat "$out/share/ktap.log" 2>/dev/null || true
[ $status -ne 124 ] || { echo "run-vng: timed out" >&2; exit 1; }
"$here/ktap-check" --console "$out/console.log" --ktap "$out/share/ktap.log" --dmesg "$out/share/dmesg.log"
