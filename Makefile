# SPDX-License-Identifier: GPL-2.0
#
# rftrace: build, run and test. `make run` and `make test` set up whatever
# is missing first (Debian 12, as root). See README.md.
#
#   make            build rftrace.ko against the test kernel (or KDIR=...)
#   make run        boot the test kernel in QEMU with rftrace loaded
#   make test       host unit tests + in-VM selftests (DEBUG=1: debug kernel)
#                   + KernelShark opening a trace.dat recorded on rftracefs
#   make slowtest   the in-VM selftests with the slow ones (# slow:) too
#   make check      rustfmt, clippy, a warning-free build, no stack frame over 4 KB
#   make install    rftrace-cmd (trace-cmd on rftracefs) into PREFIX=/usr/local
#   make vng-test   the selftests under virtme-ng instead of the own runner
#   make bench      side-by-side benchmarks against the kernel's ftrace
#                   (FLAVOUR=os or FLAVOUR=mitigations: on those kernels)

VM      := tools/testing/vm
FLAVOUR := $(if $(filter 1 y yes,$(DEBUG)),debug,fast)
LLVM    ?= -19
export LLVM

# The kernel tree to build against: KDIR= on the command line, or the test
# kernel built (once, then cached) by build-kernel.sh.
kdir = $${KDIR:-$$($(VM)/build-kernel.sh $(FLAVOUR))}

.PHONY: all setup kernel module test-tools run test ftrace-selftests hosttest vmtest slowtest kernelshark-test install install-check runner-selftest check vng-test bench clean

all: module

setup:
	@$(VM)/setup-host.sh

kernel: setup
	@$(VM)/build-kernel.sh $(FLAVOUR) >/dev/null

# The kernel's trace-events-sample module is built with the test modules,
# from the sources of the kernel tree built against ($$k).
sample_sources = cp "$$k"/source/samples/trace_events/trace-events-sample.[ch] tools/testing/modules/trace_events_sample/

module: setup test-tools
	@k=$(kdir) && $(sample_sources) && $(MAKE) -s -C "$$k" M=$(CURDIR) LLVM=$(LLVM) modules

# Static test programs the selftests run in the guest, and rftrace-cmd
# (trace-cmd against rftracefs) with its preload library.
SELFTEST_BIN := tools/testing/selftests/rftrace/bin
TRACECMD_DIR := tools/testing/tracecmd-dir
test-tools:
	@cd tools/testing/rawdecode && RUSTFLAGS="-C target-feature=+crt-static" \
		cargo build -q --release --target x86_64-unknown-linux-gnu
	@mkdir -p $(SELFTEST_BIN) && cp tools/testing/rawdecode/target/x86_64-unknown-linux-gnu/release/rftrace-rawdecode $(SELFTEST_BIN)/rawdecode
	@cp tools/testing/rawdecode/target/x86_64-unknown-linux-gnu/release/getpid-loop $(SELFTEST_BIN)/getpid-loop
	@cp tools/testing/rawdecode/target/x86_64-unknown-linux-gnu/release/pipe-pingpong $(SELFTEST_BIN)/pipe-pingpong
	@cp tools/testing/rawdecode/target/x86_64-unknown-linux-gnu/release/thread-pair $(SELFTEST_BIN)/thread-pair
	@$(MAKE) -s -C tools/testing/probe-target
	@cp tools/testing/probe-target/probe-target tools/testing/probe-target/probe-target.offsets $(SELFTEST_BIN)/
	@cd $(TRACECMD_DIR) && cargo build -q --release
	@cp $(TRACECMD_DIR)/target/release/librftrace_tracecmd_dir.so $(TRACECMD_DIR)/rftrace-cmd $(SELFTEST_BIN)/

# rftrace-cmd (trace-cmd on rftracefs) and its preload library, into
# $(DESTDIR)$(PREFIX)/bin and $(DESTDIR)$(PREFIX)/lib/rftrace.
PREFIX ?= /usr/local
install: test-tools
	@install -D -m 755 $(TRACECMD_DIR)/rftrace-cmd "$(DESTDIR)$(PREFIX)/bin/rftrace-cmd"
	@install -D -m 644 $(SELFTEST_BIN)/librftrace_tracecmd_dir.so "$(DESTDIR)$(PREFIX)/lib/rftrace/librftrace_tracecmd_dir.so"
	@echo "installed $(DESTDIR)$(PREFIX)/bin/rftrace-cmd"

# An installed rftrace-cmd points Debian's trace-cmd at the directory it is
# given: a stand-in tracing directory whose tracer list trace-cmd shows.
install-check: setup
	@tools/testing/tracecmd-dir/install-check.sh

run: module
	@k=$(kdir) && $(VM)/run-vm.sh --kdir "$$k" --mode demo

hosttest: setup
	cd tools/testing/hosttests && cargo test

runner-selftest:
	@$(VM)/ktap-check --self-test

vmtest: module
	@k=$(kdir) && $(VM)/run-vm.sh --kdir "$$k" --mode test

# KernelShark opens the trace.dat that the VM's tracecmd/kernelshark_data.tc
# recorded on rftracefs (on a virtual X server; a screenshot is kept).
kernelshark-test: setup
	@o=$${RFTRACE_OUT:-out} && tools/testing/kernelshark/check.sh "$$o/share/kernelshark/rftrace.dat" "$$o/kernelshark.png"

test: hosttest runner-selftest install-check vmtest kernelshark-test

# The in-VM selftests with the slow cases too (those marked "# slow:",
# which `make test` and CI leave out).
slowtest: module
	@k=$(kdir) && RFTRACE_SLOW=1 $(VM)/run-vm.sh --kdir "$$k" --mode test

# Side-by-side benchmarks (rftrace vs the kernel's ftrace): one VM run timed
# by the host, one counting guest instructions, and both ratios by row.
# FLAVOUR=os (built for size) or FLAVOUR=mitigations benchmarks those
# kernels (each built and cached like the test kernel).
bench: module
	@k=$(kdir) && tools/testing/bench/run-host.sh "$$k"

# The kernel's own ftrace selftests (its test.d, unchanged) run against
# rftracefs by rftracetest: a compatibility report, not a pass/fail gate.
# By default 00basic, instances and ftrace, then the cases flagged
# instance again in an instance (where instances/ exists), as ftracetest.
# RFTRACE_TESTS=00basic,event picks directories or cases of that test.d;
# RFTRACE_TRACING_DIR=both runs them against the kernel's tracefs first.
ftrace-selftests: module
	@k=$(kdir) && $(VM)/run-vm.sh --kdir "$$k" --mode ftrace-selftests | grep -E '^(ok|not ok|# Totals|# ftrace-selftests)'

vng-test: module
	@k=$(kdir) && $(VM)/run-vng.sh --kdir "$$k"

check: setup
	@k=$(kdir) && $(sample_sources) && rustfmt --check --config-path "$$k/source/.rustfmt.toml" --edition 2021 src/rftrace.rs && \
	$(MAKE) -s -C "$$k" M=$(CURDIR) LLVM=$(LLVM) KCFLAGS=-Werror KRUSTFLAGS=-Dwarnings CLIPPY=1 modules && \
	tools/testing/stack-frames.sh rftrace.ko

clean:
	@k=$(kdir) && $(MAKE) -s -C "$$k" M=$(CURDIR) clean || true
	$(MAKE) -s -C tools/testing/probe-target clean
	rm -rf out tools/testing/hosttests/target tools/testing/rawdecode/target $(TRACECMD_DIR)/target $(SELFTEST_BIN)
