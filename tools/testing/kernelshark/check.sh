#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check.sh TRACE.DAT [SCREENSHOT.png]: opens a trace.dat in Debian's
# KernelShark on a virtual X server (Xvfb) and checks that it loaded it:
# its window is titled "Kernel Shark (NAME)" and its log says it loaded
# the file without error. Saves a screenshot of the window.
#
# `make test` runs it on the trace.dat that tracecmd/kernelshark_data.tc
# recorded on rftracefs in the VM (out/share/kernelshark/rftrace.dat).
# KernelShark runs as nobody: as root it first asks, in a dialog, to be
# let run.
set -eu
dat=${1:?usage: check.sh TRACE.DAT [SCREENSHOT.png]}
shot=${2:-}
for tool in kernelshark xvfb-run xwininfo import setpriv; do
	command -v $tool > /dev/null || { echo "kernelshark-check: no $tool (make setup installs it)" >&2; exit 1; }
done
[ -s "$dat" ] || { echo "kernelshark-check: no trace.dat at $dat (tracecmd/kernelshark_data.tc makes it)" >&2; exit 1; }

work=$(mktemp -d /tmp/rftrace-kernelshark.XXXXXX)
trap 'rm -rf "$work"' EXIT
name=$(basename "$dat")
cp "$dat" "$work/$name"
mkdir -m 700 "$work/home"
chown 65534:65534 "$work/home"
chmod 755 "$work"
chmod 644 "$work/$name"

# In the X server: KernelShark, then (once its window has the file's
# name in its title) a screenshot of it; the title and its log are kept.
cat > "$work/session.sh" <<'END'
cd "$1"
chmod 644 "$XAUTHORITY"
setpriv --reuid=65534 --regid=65534 --clear-groups \
	env HOME="$1/home" XDG_RUNTIME_DIR="$1/home" kernelshark "$2" > log 2>&1 &
ks=$!
title=
for _ in $(seq 60); do
	sleep 1
	title=$(xwininfo -root -tree | sed -n 's/^ *\(0x[0-9a-f]*\) "\(Kernel Shark ([^"]*)\)".*/\1 \2/p' | head -n 1)
	[ -z "$title" ] || break
done
echo "$title" > title
if [ -n "$title" ]; then
	xdotool windowsize "${title%% *}" 1200 860 2>/dev/null || true
	sleep 5
	import -window root screenshot.png
fi
kill $ks 2>/dev/null || true
END
xvfb-run -a -f "$work/Xauthority" -s "-screen 0 1200x860x24" sh "$work/session.sh" "$work" "$name"

title=$(cut -d' ' -f2- "$work/title")
echo "kernelshark-check: window: ${title:-none}"
sed 's/^/kernelshark-check: log: /' "$work/log"
[ "$title" = "Kernel Shark ($name)" ] || { echo "kernelshark-check: FAIL: no KernelShark window for $name" >&2; exit 1; }
grep -q "Loading *\"$name\"" "$work/log" || { echo "kernelshark-check: FAIL: KernelShark did not load $name" >&2; exit 1; }
if grep -qi 'error\|failed to open\|unable to' "$work/log"; then
	echo "kernelshark-check: FAIL: KernelShark reported an error" >&2
	exit 1
fi
[ -z "$shot" ] || cp "$work/screenshot.png" "$shot"
echo "kernelshark-check: ok: KernelShark loaded $name${shot:+, screenshot $shot}"
