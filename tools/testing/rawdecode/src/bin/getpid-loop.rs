// SPDX-License-Identifier: GPL-2.0
//! `getpid-loop N`: makes N getpid system calls in a tight loop and prints
//! how long they took, for the function tracer's per-call benchmark:
//!
//! ```text
//! getpid-loop: 1000000 calls in 812345678 ns (812 ns / call)
//! ```

use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let Some(calls) = std::env::args().nth(1).and_then(|n| n.parse::<u64>().ok()) else {
        eprintln!("usage: getpid-loop CALLS");
        return ExitCode::from(2);
    };
    let start = Instant::now();
    for _ in 0..calls {
        // SAFETY: getpid takes no arguments and cannot fail.
        unsafe { libc::syscall(libc::SYS_getpid) };
    }
    let ns = start.elapsed().as_nanos();
    let per_call = if calls == 0 {
        0
    } else {
        ns / u128::from(calls)
    };
    println!("getpid-loop: {calls} calls in {ns} ns ({per_call} ns / call)");
    ExitCode::SUCCESS
}
