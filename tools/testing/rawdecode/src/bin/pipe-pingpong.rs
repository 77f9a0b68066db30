// SPDX-License-Identifier: GPL-2.0
//! `pipe-pingpong N`: a parent and a forked child pass one byte back and
//! forth through two pipes N times and the parent prints how long the N
//! round trips took, for the sched_switch event benchmark. Pinned to one
//! CPU (`taskset -c 0 pipe-pingpong N`; the child inherits the mask), each
//! round trip is two context switches between the two:
//!
//! ```text
//! pipe-pingpong: 20000 round trips in 812345678 ns (40617 ns / round trip)
//! ```

use std::process::ExitCode;
use std::time::Instant;

/// Reads or writes the one byte of a round trip; false if it failed.
fn pass(fd: libc::c_int, write: bool) -> bool {
    let mut byte = 0u8;
    let ptr = core::ptr::addr_of_mut!(byte).cast::<libc::c_void>();
    // SAFETY: `ptr` points to one byte that lives across the call.
    let done = unsafe {
        if write {
            libc::write(fd, ptr, 1)
        } else {
            libc::read(fd, ptr, 1)
        }
    };
    done == 1
}

fn pipe() -> Option<[libc::c_int; 2]> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe() stores.
    (unsafe { libc::pipe(fds.as_mut_ptr()) } == 0).then_some(fds)
}

fn main() -> ExitCode {
    let Some(trips) = std::env::args().nth(1).and_then(|n| n.parse::<u64>().ok()) else {
        eprintln!("usage: pipe-pingpong ROUND_TRIPS");
        return ExitCode::from(2);
    };
    let (Some(ping), Some(pong)) = (pipe(), pipe()) else {
        eprintln!("pipe-pingpong: pipe failed");
        return ExitCode::FAILURE;
    };
    // SAFETY: the process has one thread; the child only makes system
    // calls and exits.
    let child = unsafe { libc::fork() };
    if child < 0 {
        eprintln!("pipe-pingpong: fork failed");
        return ExitCode::FAILURE;
    }
    // Each keeps the ends it uses, so that the child's read sees end of
    // file once the parent closes its write end.
    let unused = if child == 0 {
        [ping[1], pong[0]]
    } else {
        [ping[0], pong[1]]
    };
    for fd in unused {
        // SAFETY: `fd` is a descriptor of ours that nothing uses hereafter.
        unsafe { libc::close(fd) };
    }
    if child == 0 {
        // The child answers every byte until the parent closes its end.
        while pass(ping[0], false) && pass(pong[1], true) {}
        // SAFETY: _exit ends the child without running the parent's
        // exit handlers a second time.
        unsafe { libc::_exit(0) };
    }
    let start = Instant::now();
    let mut done = 0;
    while done < trips && pass(ping[1], true) && pass(pong[0], false) {
        done += 1;
    }
    let ns = start.elapsed().as_nanos();
    // SAFETY: closing our write end lets the child's read see end of file;
    // waitpid reaps it.
    unsafe {
        libc::close(ping[1]);
        libc::waitpid(child, core::ptr::null_mut(), 0);
    }
    if done < trips {
        eprintln!("pipe-pingpong: the child stopped answering after {done} round trips");
        return ExitCode::FAILURE;
    }
    let per_trip = if trips == 0 {
        0
    } else {
        ns / u128::from(trips)
    };
    println!("pipe-pingpong: {trips} round trips in {ns} ns ({per_trip} ns / round trip)");
    ExitCode::SUCCESS
}
