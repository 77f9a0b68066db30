// SPDX-License-Identifier: GPL-2.0

//! The pages of one CPU's ring, from the page allocator.

use crate::bindings;
use crate::portable::ring_buffer::ring::{Page, PageMeta, PageStore};
use core::ptr::NonNull;
use kernel::prelude::*;

/// Whole pages, each holding one [`Page`] of the ring, and their metadata.
///
/// # Invariants
///
/// Every pointer in `pages` is a page from `get_zeroed_page`, owned by this
/// value and freed when it is dropped.
pub(crate) struct KernelPages {
    pages: KVec<NonNull<Page>>,
    metas: KVec<PageMeta>,
}

// SAFETY: the pages are owned by this value; `Page` and `PageMeta` are made
// of atomics, safe to use from any thread.
unsafe impl Send for KernelPages {}
// SAFETY: as above.
unsafe impl Sync for KernelPages {}

impl KernelPages {
    /// Allocates `count` zeroed pages.
    pub(crate) fn new(count: usize) -> Result<Self> {
        let mut this = KernelPages {
            pages: KVec::with_capacity(count, GFP_KERNEL)?,
            metas: KVec::with_capacity(count, GFP_KERNEL)?,
        };
        for _ in 0..count {
            // SAFETY: plain page allocation; the result is checked.
            let addr = unsafe { bindings::rft_get_zeroed_page() };
            let page = NonNull::new(addr as *mut Page).ok_or(ENOMEM)?;
            // INVARIANT: the page is ours from here on; pushing cannot fail
            // as the capacity was reserved.
            this.pages.push(page, GFP_KERNEL)?;
            this.metas.push(PageMeta::new(), GFP_KERNEL)?;
        }
        Ok(this)
    }
}

impl Drop for KernelPages {
    fn drop(&mut self) {
        for page in self.pages.iter() {
            // SAFETY: by the type invariant each page came from
            // `get_zeroed_page` and is freed only here.
            unsafe { bindings::rft_free_page(page.as_ptr() as usize as kernel::ffi::c_ulong) };
        }
    }
}

impl PageStore for KernelPages {
    fn len(&self) -> usize {
        self.pages.len()
    }

    // `slot < len()`: the ring only asks for slots it computed modulo it.
    fn page(&self, slot: usize) -> &Page {
        // SAFETY: the page is live while `self` is (type invariant); a page
        // is exactly one `Page` (checked at compile time in `ring`).
        unsafe { self.pages[slot].as_ref() }
    }

    fn meta(&self, slot: usize) -> &PageMeta {
        &self.metas[slot]
    }
}
