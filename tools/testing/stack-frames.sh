#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fails if a function of rftrace.ko reserves more than LIMIT bytes of stack
# in one frame (the `sub $N, %rsp` of its prologue). Kernel stacks are 16
# KB; module load once overflowed one when Instance::new built its 5 KB
# error log on the stack (`make check` runs this).
#
#   stack-frames.sh MODULE [LIMIT]
set -eu
module=$1
limit=${2:-4096}
objdump -d --no-show-raw-insn "$module" | awk -v limit="$limit" '
	/^[0-9a-f]+ <.*>:$/ { name = $2 }
	/sub +\$0x[0-9a-f]+,%rsp/ {
		split($0, a, "$"); split(a[2], b, ",")
		n = 0; hex = substr(b[1], 3)
		for (i = 1; i <= length(hex); i++) n = n * 16 + index("0123456789abcdef", substr(hex, i, 1)) - 1
		if (n > limit) { printf "stack-frames: %d bytes in %s\n", n, name; bad = 1 }
	}
	END { exit bad }'
