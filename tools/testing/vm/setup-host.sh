#!/usr/bin/env bash
# Install everything rftrace needs on a Debian 12 host: the kernel source, the
# LLVM/Rust toolchain, QEMU, busybox and trace-cmd. Idempotent: a second run
# only checks.
set -euo pipefail

# The Linux 7.2 source package last tested; the newest 7.2.x is taken if this
# one is no longer offered.
TESTED_KVER=${TESTED_KVER:-7.2.12-1~bpo13+1}

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# udev: virtme-ng guests run the host's udevd to name their virtio ports.
# trace-cmd: the selftests run it in the guest (the initramfs takes the
# host's, with its libraries) against rftracefs and the kernel's tracefs.
# kernelshark, xvfb, x11-utils, xdotool, imagemagick: `make test` opens a
# trace.dat recorded on rftracefs in KernelShark on a virtual X server.
debs=(clang-19 lld-19 llvm-19 libclang-19-dev bc bison flex libelf-dev
      libssl-dev libc6-dev cpio kmod busybox-static xz-utils rsync udev
      trace-cmd kernelshark xvfb x11-utils xdotool imagemagick)

have_all() {
	local p
	for p in "${debs[@]}" qemu-system-x86; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || return 1
	done
	ls /usr/src/linux-source-7.2*.tar.* >/dev/null 2>&1 || return 1
	command -v bindgen >/dev/null 2>&1 || [ -x "$HOME/.cargo/bin/bindgen" ] || return 1
	command -v vng >/dev/null 2>&1 || return 1
	rustup component list --installed 2>/dev/null | grep -q '^rust-src' || return 1
}

if have_all; then
	say "host already set up"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "not root: install as root, or by hand: ${debs[*]} qemu-system-x86 (bookworm-backports) linux-source-7.2 (trixie-backports), bindgen-cli (cargo), rust-src (rustup)"

src=/etc/apt/sources.list.d/rftrace.sources
if [ ! -f "$src" ]; then
	say "adding bookworm-backports and trixie-backports (pinned low)"
	cat > "$src" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	cat > /etc/apt/preferences.d/rftrace <<'PIN'
Package: *
Pin: release n=trixie-backports
Pin-Priority: 50
PIN
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq

ver=$(apt-cache madison linux-source-7.2 | awk '{print $3}' | grep -Fx "$TESTED_KVER" || true)
if [ -z "$ver" ]; then
	ver=$(apt-cache madison linux-source-7.2 | awk '{print $3}' | sort -V | tail -n1)
	[ -n "$ver" ] || die "no linux-source-7.2 is offered by trixie-backports"
	say "tested linux-source-7.2=$TESTED_KVER is gone; using the newest offered, $ver"
fi
say "installing packages (linux-source-7.2=$ver)"
apt-get install -y -qq --no-install-recommends "${debs[@]}" \
	"linux-source-7.2=$ver" >/dev/null
apt-get install -y -qq --no-install-recommends -t bookworm-backports qemu-system-x86 >/dev/null

command -v rustup >/dev/null || die "rustup not found: install Rust with rustup first"
rustup component add rust-src rustfmt clippy >/dev/null
if ! command -v bindgen >/dev/null 2>&1; then
	say "cargo install bindgen-cli"
	cargo install --locked bindgen-cli >/dev/null
fi
if ! command -v vng >/dev/null 2>&1; then
	say "pip install virtme-ng"
	python3 -m pip install -q virtme-ng || die "could not install virtme-ng"
fi
say "host set up"
