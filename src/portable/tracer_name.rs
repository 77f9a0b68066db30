// SPDX-License-Identifier: GPL-2.0

//! Names written to `current_tracer`.

use super::input::{self, InputError};

/// The longest tracer name accepted (ftrace's `MAX_TRACER_SIZE`).
pub(crate) const MAX_TRACER_NAME: usize = 100;

/// Parses a write to `current_tracer` into the tracer's name and finds it in
/// `known`, returning its index there.
pub(crate) fn parse(text: &[u8], known: &[&str]) -> Result<usize, InputError> {
    if text.len() > MAX_TRACER_NAME {
        return Err(InputError::TooLong);
    }
    let name = input::word(text)?;
    known
        .iter()
        .position(|k| k.as_bytes() == name)
        .ok_or(InputError::UnknownValue)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACERS: &[&str] = &["function_graph", "function", "nop"];

    #[test]
    fn finds_known_tracers() {
        assert_eq!(parse(b"nop\n", TRACERS), Ok(2));
        assert_eq!(parse(b"function", TRACERS), Ok(1));
        assert_eq!(parse(b"  function_graph  ", TRACERS), Ok(0));
    }

    #[test]
    fn refuses_others() {
        assert_eq!(parse(b"", TRACERS), Err(InputError::UnknownValue));
        assert_eq!(parse(b"func", TRACERS), Err(InputError::UnknownValue));
        assert_eq!(parse(b"nop nop", TRACERS), Err(InputError::UnknownValue));
        assert_eq!(parse(&[b'a'; 101], TRACERS), Err(InputError::TooLong));
        assert_eq!(parse(b"n\xffop", TRACERS), Err(InputError::NotText));
    }
}
