// SPDX-License-Identifier: GPL-2.0

//! The names kallsyms gave code addresses, kept by a trace reader so that
//! each address is looked up once rather than at every line that shows it.
//!
//! Naming an address is most of what printing a line costs: kallsyms
//! searches its address table, then walks and decompresses its name table.
//! A trace shows few distinct addresses many times (a marker's writer, the
//! functions of a hot path and their callers), so a small cache of whole
//! texts, one slot for each address, found by a hash, answers most lines.
//!
//! A name stays true as long as the code at the address does: for good in
//! the kernel image; in the module area, until modules change (a module
//! unloaded, or one loaded into memory another one freed, its own or its
//! init text). The caller says which ([`Lifetime`]); the names of modules
//! are kept with the count of module loads and unloads seen when they were
//! looked up, and are not found once that count has moved on.

use core::ops::{Deref, DerefMut};

/// The longest text a slot keeps; longer ones are looked up every time.
pub(crate) const TEXT_LEN: usize = 112;

/// How long a name looked up now stays true.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lifetime {
    /// For good: the address is in the kernel image.
    Always,
    /// Until the next module load or unload: the address is in a module,
    /// and modules had been loaded or unloaded `changes` times when it was
    /// looked up.
    UntilModulesChange { changes: u64 },
}

/// The module kallsyms names in `text` (`name [module]`, or with `%pS`'s
/// `+off/size` before the module), if any.
pub(crate) fn module_in(text: &[u8]) -> Option<&[u8]> {
    let rest = text.strip_suffix(b"]")?;
    let open = rest.iter().rposition(|&b| b == b'[')?;
    (open > 0 && rest[open - 1] == b' ').then(|| &rest[open + 1..])
}

/// What makes a slot's text valid: `EMPTY`, `ALWAYS`, or one more than the
/// count of module changes it was looked up at.
type Validity = u64;
const EMPTY: Validity = 0;
const ALWAYS: Validity = u64::MAX;

impl Lifetime {
    fn validity(self) -> Validity {
        match self {
            Lifetime::Always => ALWAYS,
            // A count near `u64::MAX` would take centuries of loads; it
            // saturates rather than wrap onto `EMPTY`.
            Lifetime::UntilModulesChange { changes } => changes.saturating_add(1).min(ALWAYS - 1),
        }
    }
}

/// One cached name.
#[derive(Clone, Copy)]
pub(crate) struct Slot {
    address: u64,
    with_offset: bool,
    validity: Validity,
    len: u8,
    text: [u8; TEXT_LEN],
}

impl Slot {
    /// A slot holding nothing, to fill a new cache's storage with.
    pub(crate) const EMPTY: Slot = Slot {
        address: 0,
        with_offset: false,
        validity: EMPTY,
        len: 0,
        text: [0; TEXT_LEN],
    };
}

/// A direct-mapped cache of names over `S`, any number of slots (none
/// caches nothing).
pub(crate) struct SymbolCache<S> {
    slots: S,
}

impl<S: Deref<Target = [Slot]> + DerefMut> SymbolCache<S> {
    /// A cache keeping its names in `slots`, all [`Slot::EMPTY`].
    pub(crate) fn new(slots: S) -> Self {
        SymbolCache { slots }
    }

    /// The text kept for `address` in the form `with_offset` (`%pS`, or
    /// `%ps` without), if it is still true after `changes` module loads and
    /// unloads.
    pub(crate) fn get(&self, address: u64, with_offset: bool, changes: u64) -> Option<&[u8]> {
        let slot = self.slots.get(self.index(address, with_offset)?)?;
        let valid = slot.validity == ALWAYS
            || (slot.validity != EMPTY
                && slot.validity == Lifetime::UntilModulesChange { changes }.validity());
        (valid && slot.address == address && slot.with_offset == with_offset)
            .then(|| &slot.text[..usize::from(slot.len)])
    }

    /// Keeps `text` as the name of `address` in the form `with_offset`
    /// for `lifetime`, in place of what its slot held. A text longer than
    /// [`TEXT_LEN`] is not kept.
    pub(crate) fn put(&mut self, address: u64, with_offset: bool, lifetime: Lifetime, text: &[u8]) {
        if text.len() > TEXT_LEN {
            return;
        }
        let (Some(index), Ok(len)) = (self.index(address, with_offset), u8::try_from(text.len()))
        else {
            return;
        };
        let Some(slot) = self.slots.get_mut(index) else {
            return;
        };
        slot.text[..text.len()].copy_from_slice(text);
        slot.len = len;
        slot.address = address;
        slot.with_offset = with_offset;
        slot.validity = lifetime.validity();
    }

    /// The slot of `address` in `with_offset` form: a multiplicative hash
    /// scaled onto the slots, without a division. `None` with no slots.
    fn index(&self, address: u64, with_offset: bool) -> Option<usize> {
        let n = self.slots.len() as u64;
        if n == 0 {
            return None;
        }
        let hash = (address ^ u64::from(with_offset)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        Some((((hash >> 32) * n) >> 32) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(n: usize) -> SymbolCache<Vec<Slot>> {
        SymbolCache::new(vec![Slot::EMPTY; n])
    }

    #[test]
    fn a_name_kept_is_found_in_its_form_only() {
        let mut c = cache(64);
        c.put(0xffff_ffff_8100_1000, false, Lifetime::Always, b"vfs_read");
        assert_eq!(
            c.get(0xffff_ffff_8100_1000, false, 7),
            Some(&b"vfs_read"[..])
        );
        assert_eq!(c.get(0xffff_ffff_8100_1000, true, 7), None);
        assert_eq!(c.get(0xffff_ffff_8100_1010, false, 7), None);
    }

    #[test]
    fn a_module_name_goes_when_modules_change() {
        let mut c = cache(64);
        let lifetime = Lifetime::UntilModulesChange { changes: 3 };
        c.put(0xffff_ffff_c000_0040, true, lifetime, b"f+0x0/0x20 [m]");
        assert_eq!(
            c.get(0xffff_ffff_c000_0040, true, 3),
            Some(&b"f+0x0/0x20 [m]"[..])
        );
        assert_eq!(c.get(0xffff_ffff_c000_0040, true, 4), None);
        // An image name outlives module changes.
        c.put(0xffff_ffff_8100_0000, true, Lifetime::Always, b"g+0x0/0x10");
        assert_eq!(
            c.get(0xffff_ffff_8100_0000, true, 9),
            Some(&b"g+0x0/0x10"[..])
        );
    }

    #[test]
    fn an_empty_slot_names_nothing_not_even_address_zero() {
        let c = cache(8);
        for changes in [0, 1, u64::MAX] {
            assert_eq!(c.get(0, false, changes), None);
        }
    }

    #[test]
    fn long_texts_and_no_slots_are_not_kept() {
        let mut c = cache(8);
        let long = [b'a'; TEXT_LEN + 1];
        c.put(0x1000, false, Lifetime::Always, &long);
        assert_eq!(c.get(0x1000, false, 0), None);
        c.put(0x1000, false, Lifetime::Always, &long[..TEXT_LEN]);
        assert_eq!(c.get(0x1000, false, 0), Some(&long[..TEXT_LEN]));
        let mut none = cache(0);
        none.put(0x1000, false, Lifetime::Always, b"f");
        assert_eq!(none.get(0x1000, false, 0), None);
    }

    #[test]
    fn a_slot_is_136_bytes() {
        assert_eq!(core::mem::size_of::<Slot>(), 136);
    }

    #[test]
    fn the_module_of_a_name() {
        assert_eq!(module_in(b"vfs_read"), None);
        assert_eq!(module_in(b"vfs_read+0x4/0x120"), None);
        assert_eq!(module_in(b"f [m]"), Some(&b"m"[..]));
        assert_eq!(
            module_in(b"f+0x4/0x10 [rftrace_pin]"),
            Some(&b"rftrace_pin"[..])
        );
        assert_eq!(
            module_in(b"ftrace_trampoline [__builtin__ftrace]"),
            Some(&b"__builtin__ftrace"[..])
        );
        assert_eq!(module_in(b"0xffffffffa0069013"), None);
        assert_eq!(module_in(b"[m]"), None);
    }

    #[test]
    fn a_later_name_for_the_slot_replaces_the_earlier() {
        // One slot: every address shares it.
        let mut c = cache(1);
        c.put(0x1000, false, Lifetime::Always, b"first");
        c.put(0x2000, false, Lifetime::Always, b"second");
        assert_eq!(c.get(0x1000, false, 0), None);
        assert_eq!(c.get(0x2000, false, 0), Some(&b"second"[..]));
    }

    #[test]
    fn every_slot_is_reachable_and_none_beyond() {
        let c = cache(37);
        let mut seen = [false; 37];
        for a in 0..20_000u64 {
            let i = c.index(0xffff_ffff_8100_0000 + a * 16, false);
            let i = i.unwrap_or(usize::MAX);
            assert!(i < 37);
            seen[i] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
