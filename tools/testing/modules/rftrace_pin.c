// SPDX-License-Identifier: GPL-2.0
/* rftrace_spacer under a second name: two such modules can be loaded. */
#include "rftrace_spacer.c"
