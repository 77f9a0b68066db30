#!/usr/bin/env bash
# Pack the guest's initramfs: busybox, /init, rftrace.ko, the selftests and
# trace-cmd.
#
#   mkinitramfs.sh KDIR OUTPUT.cpio.gz
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
kdir=$1 output=$2
busybox=/bin/busybox
for deb in busybox-static trace-cmd; do
	dpkg-query -W -f='${Status}' "$deb" 2>/dev/null | grep -q 'ok installed' ||
		{ echo "mkinitramfs: $deb is not installed (make setup)" >&2; exit 1; }
done

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
# Debian's trace-cmd, at its own paths with the shared libraries it and
# libtraceevent's plugins load and the dynamic loader (test.d/events/
# trace_cmd.tc runs it against rftracefs and the kernel's tracefs).
copy_with_libraries() { # FILE...
	local file
	for file in "$@" $(ldd "$@" | sed -n 's/^\t.*=> \(\/[^ ]*\) .*/\1/p; s/^\t\(\/[^ ]*\) .*/\1/p' | sort -u); do
		[ -e "$root$file" ] && continue
		mkdir -p "$root$(dirname "$file")"
		cp -L "$file" "$root$file"
	done
}
copy_with_libraries /usr/bin/trace-cmd /usr/lib/x86_64-linux-gnu/traceevent/plugins/*.so
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$output"
echo "$output"
