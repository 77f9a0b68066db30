# The test kernel built for size, as embedded kernels are: `make bench
# FLAVOUR=os` (CC_OPTIMIZE_FOR_SIZE also builds Rust at opt-level=s).
CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=n
CONFIG_CC_OPTIMIZE_FOR_SIZE=y
