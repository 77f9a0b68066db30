// SPDX-License-Identifier: GPL-2.0

//! The arguments of a probe event, parsed once: what each hit fetches into
//! its record, and how the record's fields are described and printed.

use crate::portable::probes::exec::{self, FetchEnv};
use crate::portable::probes::fetch::ArgSpec;
use crate::portable::probes::layout;
use crate::portable::probes::listing::ProbeArgs;
use kernel::prelude::*;

/// The arguments of one probe event, in order.
pub(crate) struct EventArgs {
    args: KVec<ArgSpec>,
}

impl EventArgs {
    /// The arguments `args`.
    pub(crate) fn new(args: KVec<ArgSpec>) -> Self {
        EventArgs { args }
    }

    /// The arguments, parsed.
    pub(crate) fn specs(&self) -> &[ArgSpec] {
        &self.args
    }

    /// The size of the record a hit makes in `env` (its strings measured
    /// first, as the kernel's `__get_data_size`).
    pub(crate) fn measure(&self, env: &dyn FetchEnv, is_return: bool) -> usize {
        let dynamic = exec::dynamic_size(&self.args, env);
        layout::record_size(&self.args, is_return, dynamic)
    }

    /// Fetches the arguments into `record` (sized by [`Self::measure`]),
    /// after its first `head` bytes.
    pub(crate) fn store(
        &self,
        env: &dyn FetchEnv,
        record: &mut [u8],
        head: usize,
        is_return: bool,
    ) {
        let fixed = layout::record_size(&self.args, is_return, 0);
        let dynamic = record.len().saturating_sub(fixed);
        exec::store_args(&self.args, env, record, head, dynamic);
    }
}

impl ProbeArgs for EventArgs {
    fn count(&self) -> usize {
        self.args.len()
    }

    fn name(&self, i: usize) -> &[u8] {
        self.args.get(i).map_or(&[], |a| a.name())
    }

    fn comm(&self, i: usize) -> &[u8] {
        self.args.get(i).map_or(&[], |a| a.body())
    }
}
