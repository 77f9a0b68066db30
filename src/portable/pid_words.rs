// SPDX-License-Identifier: GPL-2.0

//! What user space writes to `set_ftrace_pid` and `set_ftrace_notrace_pid`:
//! white-space separated process ids, read as the kernel reads them
//! (`kstrtoul` with base 0, so `0x10` is 16), each at most the largest pid
//! Linux allows.

use super::input::{self, InputError};

/// The largest pid Linux allows on 64-bit (`PID_MAX_LIMIT`).
pub(crate) const PID_MAX_LIMIT: u32 = 4 * 1024 * 1024;

/// The longest word the kernel's pid files read (`PID_BUF_SIZE`): a
/// longer one fails the write, even as a run of leading zeros.
const MAX_WORD: usize = 127;

/// The pids of one write, all or none: the first bad word fails the write.
pub(crate) fn parse(text: &[u8]) -> impl Iterator<Item = Result<u32, InputError>> + '_ {
    input::words(text).map(|word| {
        if word.len() > MAX_WORD {
            return Err(InputError::TooLong);
        }
        let pid = input::parse_c_number(word)?;
        u32::try_from(pid)
            .ok()
            .filter(|p| *p <= PID_MAX_LIMIT)
            .ok_or(InputError::BadNumber)
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
        assert_eq!(all(b"\n"), Ok(vec![]));
        assert_eq!(all(b"0"), Ok(vec![0]));
    }

    #[test]
    fn refuses_what_is_not_a_pid() {
        assert_eq!(all(b"1 abc"), Err(InputError::BadNumber));
        assert_eq!(all(b"-1"), Err(InputError::BadNumber));
        assert_eq!(all(b"4194305"), Err(InputError::BadNumber));
        assert_eq!(all(b"4194304"), Ok(vec![PID_MAX_LIMIT]));
        assert_eq!(all(b"99999999999999999999999"), Err(InputError::BadNumber));
        assert_eq!(all(b"0x"), Err(InputError::BadNumber));
        let mut long = [b'0'; 128];
        long[127] = b'7';
        assert_eq!(all(&long), Err(InputError::TooLong));
        assert_eq!(all(&long[1..]), Ok(vec![7]));
    }
}
