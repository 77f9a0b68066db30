// SPDX-License-Identifier: GPL-2.0

//! The text of kernel event records, for one reader: the kernel's own
//! printer of each event, through a printer made when first needed.

use super::catalog;
use crate::kernel_api::trace_output::{EventPrinter, Form};
use crate::portable::records::Symbols;
use kernel::prelude::*;

pub(crate) use crate::kernel_api::trace_output::Form as TextForm;

/// A reader's printer of kernel event records.
pub(crate) struct EventText {
    printer: Option<EventPrinter>,
}

impl EventText {
    /// A printer, not yet set up.
    pub(crate) const fn new() -> Self {
        EventText { printer: None }
    }

    /// Appends to `out` the body of `record` (recorded on `cpu` at `ts`)
    /// in `form` (`sym_addr`: with the `sym-addr` option), if its type is
    /// an event of the catalog; `None` otherwise. The events rftrace
    /// defines name addresses with `symbols`. May sleep.
    pub(crate) fn write(
        &mut self,
        record: &[u8],
        kind: u16,
        (cpu, ts): (u32, u64),
        (form, sym_addr): (Form, bool),
        symbols: &dyn Symbols,
        out: &mut KVec<u8>,
    ) -> Option<Result> {
        // The catalog stays locked while the kernel's printer runs: a
        // module's event leaves it before its module's code goes.
        let catalog = catalog::lock()?;
        let event = catalog.event_by_id(kind)?;
        if let (Some(definer), Form::Trace) = (&event.definer, form) {
            return Some(definer.write_trace(record, sym_addr, symbols, out));
        }
        let printer = match &mut self.printer {
            Some(printer) => printer,
            None => match EventPrinter::new() {
                Ok(printer) => self.printer.insert(printer),
                Err(e) => return Some(Err(e)),
            },
        };
        Some(printer.print(event.output, record, cpu, ts, form, out))
    }
}
