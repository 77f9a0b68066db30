// SPDX-License-Identifier: GPL-2.0

//! Text into a growing buffer, for the listings and record lines.

use core::fmt;
use kernel::prelude::*;

/// `fmt::Write` appending to a `KVec<u8>`; fails when memory runs out.
pub(crate) struct TextOut<'a>(pub(crate) &'a mut KVec<u8>);

impl fmt::Write for TextOut<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0
            .extend_from_slice(s.as_bytes(), GFP_KERNEL)
            .map_err(|_| fmt::Error)
    }
}
