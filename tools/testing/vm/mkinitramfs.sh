#!/usr/bin/env bash
# Pack the guest's initramfs: busybox, /init, rftrace.ko and the selftests.
#
#   mkinitramfs.sh KDIR OUTPUT.cpio.gz
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
kdir=$1 output=$2
busybox=/bin/busybox
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'ok installed' ||
	{ echo "mkinitramfs: busybox-static is not installed" >&2; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,host,root,lib/modules,etc}
cp "$busybox" "$root/bin/busybox"
cp "$here/init" "$root/init"
cp "$top/rftrace.ko" "$root/lib/modules/"
# The selftests' own test modules, built with rftrace.ko.
cp "$top"/tools/testing/modules/*.ko "$top"/tools/testing/modules/*/*.ko "$root/lib/modules/"
# Modules of the test kernel used for side-by-side comparisons.
find "$kdir" -name '*.ko' \( -name 'ring_buffer_benchmark.ko' -o -name 'ftrace-ops.ko' \) \
	-exec cp {} "$root/lib/modules/" \;
mkdir -p "$root/selftests"
cp -r "$top/tools/testing/selftests/rftrace" "$root/selftests/"
cp -r "$top/samples" "$root/samples"
cp -r "$top/tools/testing/bench" "$root/bench"
# The kernel's own ftrace selftests, to run them against rftracefs.
if [ -d "$kdir/source/tools/testing/selftests/ftrace" ]; then
	cp -r "$kdir/source/tools/testing/selftests/ftrace" "$root/selftests/"
fi
# modprobe (busybox's) finds the kernel's trace-events-sample module, as
# the kernel's event-mod.tc loads it.
release=$(cat "$kdir/include/config/kernel.release")
mkdir -p "$root/lib/modules/$release"
cp "$top"/tools/testing/modules/trace_events_sample/trace-events-sample.ko "$root/lib/modules/$release/"
echo "trace-events-sample.ko:" > "$root/lib/modules/$release/modules.dep"
# A user and a group besides root, as any system has: the kernel's
# ownership cases (00basic/test_ownership.tc, mount_options.tc) take the
# last entry that is not root's as the other owner and group.
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$output"
echo "$output"
