// SPDX-License-Identifier: GPL-2.0

//! Mount options of rftracefs: `uid=`, `gid=` and `mode=`, as tracefs has.

use super::input::{self, InputError};

/// Permission bits of the root directory when `mode=` is not given.
pub(crate) const DEFAULT_MODE: u16 = 0o700;

/// One parsed mount option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MountOption {
    /// Owner of every file and directory.
    Uid(u32),
    /// Group of every file and directory.
    Gid(u32),
    /// Permission bits of the root directory.
    Mode(u16),
}

/// Parses `key=value`; `Ok(None)` for a key rftracefs does not know (the VFS
/// then handles `source` or reports the key as unknown).
pub(crate) fn parse(key: &[u8], value: &[u8]) -> Result<Option<MountOption>, InputError> {
    let option = match key {
        b"uid" => MountOption::Uid(parse_id(value)?),
        b"gid" => MountOption::Gid(parse_id(value)?),
        b"mode" => {
            let mode = input::parse_octal(value)?;
            MountOption::Mode(
                u16::try_from(mode)
                    .ok()
                    .filter(|m| *m <= 0o7777)
                    .ok_or(InputError::BadNumber)?,
            )
        }
        _ => return Ok(None),
    };
    Ok(Some(option))
}

fn parse_id(value: &[u8]) -> Result<u32, InputError> {
    // (u32)-1 is the "no id" marker of the kernel and never a valid id.
    u32::try_from(input::parse_u64(value)?)
        .ok()
        .filter(|id| *id != u32::MAX)
        .ok_or(InputError::BadNumber)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_known_keys() {
        assert_eq!(parse(b"uid", b"1000"), Ok(Some(MountOption::Uid(1000))));
        assert_eq!(parse(b"gid", b"0"), Ok(Some(MountOption::Gid(0))));
        assert_eq!(parse(b"mode", b"0755"), Ok(Some(MountOption::Mode(0o755))));
        assert_eq!(parse(b"source", b"nodev"), Ok(None));
    }

    #[test]
    fn refuses_bad_values() {
        assert_eq!(parse(b"uid", b"-1"), Err(InputError::BadNumber));
        assert_eq!(parse(b"uid", b"4294967295"), Err(InputError::BadNumber));
        assert_eq!(parse(b"uid", b"4294967296"), Err(InputError::BadNumber));
        assert_eq!(parse(b"gid", b"abc"), Err(InputError::BadNumber));
        assert_eq!(parse(b"mode", b"10000"), Err(InputError::BadNumber));
        assert_eq!(parse(b"mode", b"9"), Err(InputError::BadNumber));
        assert_eq!(parse(b"mode", b""), Err(InputError::BadNumber));
    }
}
