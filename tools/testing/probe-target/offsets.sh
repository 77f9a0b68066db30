#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prints "name 0xOFFSET" for each target_* function of ELF file $1 and for
# its variable `sink`: the offset in the file of the executable segment's
# mapping (address - segment address + segment offset), what uprobe_events
# takes after PATH: and in @+OFFSET.
#
#   offsets.sh ELF
set -eu
elf=$1
# The executable LOAD segment: offset, virtual address.
set -- $(readelf -lW "$elf" | awk '$1 == "LOAD" && / R?W?E / { print $2, $3; exit }')
seg_off=$1 seg_addr=$2
nm "$elf" | awk '($2 ~ /^[Tt]$/ && $3 ~ /^target_/) || $3 == "sink" { print $3, $1 }' | sort |
while read -r name addr; do
	printf '%s 0x%x\n' "$name" $((0x$addr - seg_addr + seg_off))
done
