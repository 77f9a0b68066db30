// SPDX-License-Identifier: GPL-2.0

//! Which entry trampoline a patched site calls, by the mask of the engine
//! slots whose clients want it: the direct trampoline of the one slot of a
//! single-client mask, when that slot has one, else the generic one.

/// Engine slots with a direct trampoline of their own
/// (`rftrace_fentry_direct_N` in `arch/x86/fentry_64.S`).
pub(crate) const DIRECT_SLOTS: usize = 8;

/// The slot whose direct trampoline serves a site of `mask`, or `None`
/// for the generic trampoline (no client, several, or a slot without a
/// direct trampoline).
#[inline]
pub(crate) fn direct_slot(mask: u64) -> Option<usize> {
    let slot = mask.trailing_zeros() as usize;
    (mask.is_power_of_two() && slot < DIRECT_SLOTS).then_some(slot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_client_of_a_low_slot_gets_its_direct_trampoline() {
        for slot in 0..DIRECT_SLOTS {
            assert_eq!(direct_slot(1 << slot), Some(slot));
        }
    }

    #[test]
    fn no_client_several_or_a_high_slot_get_the_generic_one() {
        assert_eq!(direct_slot(0), None);
        assert_eq!(direct_slot(0b11), None);
        assert_eq!(direct_slot(1 | 1 << 63), None);
        assert_eq!(direct_slot(1 << DIRECT_SLOTS), None);
        assert_eq!(direct_slot(1 << 63), None);
    }
}
