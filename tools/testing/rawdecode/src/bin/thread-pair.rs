// SPDX-License-Identifier: GPL-2.0
//! `thread-pair`: a process of two threads, for the `record-tgid`
//! selftest. The second thread sleeps a moment (so the scheduler switches
//! away from it), then both end. Prints the process's id (the threads'
//! tgid) and the second thread's id:
//!
//! ```text
//! tgid=812 tid=813
//! ```

use std::time::Duration;

fn main() {
    // SAFETY: getpid and gettid take no arguments and cannot fail.
    let tgid = unsafe { libc::getpid() };
    let tid = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(20));
        // SAFETY: as above.
        unsafe { libc::gettid() }
    })
    .join()
    .unwrap_or(0);
    println!("tgid={tgid} tid={tid}");
}
