#!/usr/bin/env bash
# Build the test kernel once per (source version, config, toolchain) into a
# cache outside the work tree, and print its build directory (KDIR).
#
#   build-kernel.sh [fast|debug|os|mitigations]
#
# fast is the test kernel (config); the others merge a fragment on top of
# it: debug (config.debug: lockdep, KASAN, kmemleak) for the debug runs, os
# (config.os: built for size) and mitigations (config.mitigations: CPU
# mitigations on) for `make bench FLAVOUR=...`.
#
# RFTRACE_CACHE overrides the cache root (default ~/.cache/rftrace).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
cfgdir=$top/tools/testing/selftests/rftrace
cache=${RFTRACE_CACHE:-$HOME/.cache/rftrace}
flavour=${1:-fast}
llvm=${LLVM:--19}

log() { printf 'kernel: %s\n' "$*" >&2; }
die() { printf 'kernel: error: %s\n' "$*" >&2; exit 1; }

tarball=$(ls /usr/src/linux-source-7.2.tar.* 2>/dev/null | head -n1)
[ -n "$tarball" ] || die "no /usr/src/linux-source-7.2.tar.*: run tools/testing/vm/setup-host.sh"
kver=$(dpkg-query -W -f='${Version}' linux-source-7.2)

frags=("$cfgdir/config")
case $flavour in
fast) ;;
debug|os|mitigations) frags+=("$cfgdir/config.$flavour") ;;
*) die "no kernel flavour $flavour (fast, debug, os, mitigations)" ;;
esac

key=$( { echo "$kver"; cat "${frags[@]}"; rustc --version; "clang$llvm" --version | head -n1; } |
	sha256sum | cut -c1-12)
src=$cache/src/linux-$kver
out=$cache/build/$kver-$flavour-$key

if [ -f "$out/.rftrace-built" ]; then
	log "cached: $out"
	echo "$out"
	exit 0
fi
# One build at a time: a second caller waits for the first, then finds
# the kernel built.
mkdir -p "$cache/build"
exec 9>"$cache/build/.lock"
flock 9
if [ -f "$out/.rftrace-built" ]; then
	log "cached: $out"
	echo "$out"
	exit 0
fi

if [ ! -f "$src/.rftrace-extracted" ]; then
	log "extracting $tarball"
	rm -rf "$src" && mkdir -p "$src"
	tar -xf "$tarball" -C "$src" --strip-components=1
	touch "$src/.rftrace-extracted"
fi

mkdir -p "$out"
mk() { make -s -C "$src" O="$out" LLVM="$llvm" "$@"; }
log "configuring $flavour kernel $kver in $out"
mk tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
mk olddefconfig >/dev/null
# Every option the fragments ask for (the last fragment naming it wins)
# must have survived olddefconfig.
wanted=$(grep -h '^CONFIG_' "${frags[@]}" | awk -F= '{ v[$1] = $0; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
	END { for (i = 0; i < n; i++) print v[order[i]] }')
missing=$(echo "$wanted" | while IFS= read -r line; do
	case $line in
	*=n) grep -q "^# ${line%=n} is not set" "$out/.config" || echo "$line" ;;
	*) grep -qx "$line" "$out/.config" || echo "$line" ;;
	esac
done)
[ -z "$missing" ] || die "options not taken by kconfig (dependencies?):
$missing"
mk rustavailable >/dev/null || die "the Rust toolchain is not usable for this kernel"
log "building (this takes about 10 minutes on 2 cores)"
mk -j"$(nproc)" bzImage modules >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	die "kernel build failed; log in $out/build.log"
}
touch "$out/.rftrace-built"
log "built $out"
echo "$out"
