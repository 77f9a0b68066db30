// SPDX-License-Identifier: GPL-2.0

//! What user space writes to the pid files (`set_ftrace_pid`,
//! `set_ftrace_notrace_pid`, `set_event_pid`, `set_event_notrace_pid`):
//! white-space separated process ids, read as the kernel's
//! `trace_pid_write` reads them: each word with `kstrtoul` in base 0 (so
//! `0x10` is 16 and `+7` is 7), cut to a `pid_t`, and refused with `EPERM`
//! if that is not below the kernel's pid list limit.

use super::input::{self, InputError};

/// The pid lists hold pids below this (the kernel's `MAX_PID` of
/// `pid_list.h`: no pid reaches `1 << 30`).
pub(crate) const PID_LIST_LIMIT: u32 = 1 << 30;

/// The longest word the kernel's pid files read (`PID_BUF_SIZE`): a
/// longer one fails the write, even as a run of leading zeros.
const MAX_WORD: usize = 127;

/// The pids of one write, all or none: the first bad word fails the write.
pub(crate) fn parse(text: &[u8]) -> impl Iterator<Item = Result<u32, InputError>> + '_ {
    input::words(text).map(|word| {
        if word.len() > MAX_WORD {
            return Err(InputError::BadPid);
        }
        // `kstrtoul` takes one leading `+`.
        let digits = word.strip_prefix(b"+").unwrap_or(word);
        let value = input::parse_c_number(digits).map_err(|_| InputError::BadPid)?;
        // The kernel keeps the low bits, as `(pid_t)val`, then reads them
        // as unsigned.
        let pid = value as u32;
        if pid < PID_LIST_LIMIT {
            Ok(pid)
        } else {
            Err(InputError::PidOutOfRange)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &[u8]) -> Result<Vec<u32>, InputError> {
        parse(text).collect()
    }

    #[test]
    fn reads_several_pids_in_any_base() {
        assert_eq!(all(b"1 22\t0x10 010\n"), Ok(vec![1, 22, 16, 8]));
        assert_eq!(all(b"+5 +0x10"), Ok(vec![5, 16]));
        assert_eq!(all(b"\n"), Ok(vec![]));
        assert_eq!(all(b"0"), Ok(vec![0]));
    }

    #[test]
    fn refuses_what_is_not_a_number() {
        assert_eq!(all(b"1 abc"), Err(InputError::BadPid));
        assert_eq!(all(b"-1"), Err(InputError::BadPid));
        assert_eq!(all(b"++1"), Err(InputError::BadPid));
        assert_eq!(all(b"+"), Err(InputError::BadPid));
        assert_eq!(all(b"12a"), Err(InputError::BadPid));
        assert_eq!(all(b"99999999999999999999999"), Err(InputError::BadPid));
        assert_eq!(all(b"0x"), Err(InputError::BadPid));
        let mut long = [b'0'; 128];
        long[127] = b'7';
        assert_eq!(all(&long), Err(InputError::BadPid));
        assert_eq!(all(&long[1..]), Ok(vec![7]));
    }

    #[test]
    fn keeps_the_kernels_pid_range() {
        assert_eq!(all(b"4194305"), Ok(vec![4194305]));
        assert_eq!(all(b"1073741823"), Ok(vec![PID_LIST_LIMIT - 1]));
        assert_eq!(all(b"1073741824"), Err(InputError::PidOutOfRange));
        assert_eq!(all(b"0xffffffff"), Err(InputError::PidOutOfRange));
        // Cut to 32 bits first, as `(pid_t)val`.
        assert_eq!(all(b"4294967301"), Ok(vec![5]));
        // The first bad word decides the error.
        assert_eq!(all(b"2000000000 x"), Err(InputError::PidOutOfRange));
        assert_eq!(all(b"x 2000000000"), Err(InputError::BadPid));
    }
}
