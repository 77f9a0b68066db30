// SPDX-License-Identifier: GPL-2.0

//! The lockless per-CPU ring: reserve, fill, commit; consume and snapshot.
//!
//! One [`CpuRing`] belongs to one CPU. Only that CPU writes to it, with
//! preemption disabled, but a write may be interrupted by an IRQ, softirq or
//! NMI that writes an event of its own: writers nest, strictly LIFO. Readers
//! run on any CPU, serialised among themselves by the caller.
//!
//! # Positions
//!
//! Pages have *logical numbers* that grow forever; page `n` lives in slot
//! `n % N`. A position is a page number and a byte offset in its data.
//!
//! - `write` is the reservation word: the low 20 bits of the page number, the
//!   offset (12 bits) and the low 32 bits of the time of the last reserved
//!   event. One compare-and-swap reserves space *and* fixes the event's
//!   predecessor, so its time delta is always relative to the right event,
//!   whatever nests in between.
//! - `commit` is the committed position (full page number, offset). Writers
//!   count their nesting; when the outermost one commits, nothing on this
//!   CPU is half written, and it publishes the reservation position; if an
//!   interrupt reserved meanwhile, it publishes again (so a stale,
//!   interrupted publisher cannot leave it behind).
//! - `head` is the oldest unread page and how many of its events were
//!   consumed. Readers consume an event by a compare-and-swap of `head`; an
//!   overwriting writer moves `head` past a page by a compare-and-swap too,
//!   counting the page's unconsumed events as overrun. Every event is thus
//!   either read or counted as overrun, exactly once.
//!
//! Readers copy committed data out of a page and check afterwards that the
//! page was not reused meanwhile (its `number` in [`PageMeta`] is unchanged),
//! like a sequence lock. Writers never wait for readers.

use super::format::{self, PageDecoder, PAGE_DATA_SIZE};
use super::local::Local;
use core::sync::atomic::{fence, AtomicBool, AtomicU32, AtomicU64, Ordering::*};

const DATA_WORDS: usize = PAGE_DATA_SIZE / 4;
const PAGE_BITS: u32 = 20;
const PAGE_MASK: u64 = (1 << PAGE_BITS) - 1;
const OFFSET_BITS: u32 = 12;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
const CONSUMED_BITS: u32 = 16;
/// A gap this long could hide a wrap of the 32-bit time in `write`: such an
/// event carries an absolute time stamp.
const LONG_GAP: u64 = 1 << 31;

/// One page, laid out in the kernel's binary format.
#[repr(C)]
pub(crate) struct Page {
    /// Time of the page's first event.
    pub(crate) time_stamp: AtomicU64,
    /// Data bytes in the page, set when the writer leaves it.
    pub(crate) commit: AtomicU64,
    /// Event data, written as 32-bit words.
    pub(crate) data: [AtomicU32; DATA_WORDS],
}

const _: () = assert!(core::mem::size_of::<Page>() == format::PAGE_SIZE);

/// What the ring keeps about each page slot besides the page itself.
pub(crate) struct PageMeta {
    /// Logical number of the page the slot holds.
    number: AtomicU64,
    /// Events reserved in it.
    entries: Local,
}

impl PageMeta {
    /// Metadata of an unused slot.
    pub(crate) const fn new() -> Self {
        PageMeta {
            number: AtomicU64::new(u64::MAX),
            entries: Local::new(0),
        }
    }
}

/// The pages of one ring, in slots `0..len()`.
pub(crate) trait PageStore {
    /// Number of slots (at least 2).
    fn len(&self) -> usize;
    /// The page in `slot`.
    fn page(&self, slot: usize) -> &Page;
    /// The metadata of `slot`.
    fn meta(&self, slot: usize) -> &PageMeta;
}

/// Counters of one ring, as `per_cpu/cpuN/stats` shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    /// Events written (reserved) since the last reset.
    pub(crate) written: u64,
    /// Events overwritten before they were read.
    pub(crate) overrun: u64,
    /// Events refused because the buffer was full (no-overwrite mode).
    pub(crate) dropped: u64,
    /// Events consumed by readers.
    pub(crate) read: u64,
    /// Events lost because their page was reused before they were committed.
    pub(crate) commit_overrun: u64,
}

/// Where a reserved event goes and how it is timed: found by
/// [`CpuRing::reserve`] (or its slow path), written by `place`.
struct Place {
    /// The page's number, and its slot in the page table.
    page: u64,
    slot: usize,
    /// The data word the event's header starts at.
    word: usize,
    /// Its time after the previous event's (0 for a page's first event or
    /// after a time event).
    delta: u64,
    /// Its time.
    now: u64,
}

/// Space reserved for one event, to fill and then [`CpuRing::commit`].
#[must_use]
pub(crate) struct Reservation {
    page: u64,
    /// Where `page` is in the store (`page % slots`, computed once).
    slot: usize,
    /// Word index of the payload in the page data.
    word: usize,
    len: usize,
}

/// A reader's place in a ring, and a copy of the page it reads.
pub(crate) struct Cursor {
    page: u64,
    /// Events of `page` consumed when `offset` and `ts` were computed.
    consumed: u64,
    offset: usize,
    ts: u64,
    /// Overrun already reported to this reader.
    seen_overrun: u64,
    /// The page number and committed length that the reader's scratch page
    /// holds a copy of, for consuming readers: later events of that page
    /// are read from the copy instead of copying the page again.
    copied: Option<(u64, usize)>,
}

impl Cursor {
    /// A cursor at the start of the ring.
    pub(crate) const fn new() -> Self {
        // No page yet: the first read loads its page's time stamp.
        Cursor {
            page: u64::MAX,
            consumed: 0,
            offset: 0,
            ts: 0,
            seen_overrun: 0,
            copied: None,
        }
    }
}

/// An event handed to a reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReadEvent {
    /// Its time stamp.
    pub(crate) ts: u64,
    /// Bytes of payload copied out (the payload rounded up to 4 bytes).
    pub(crate) len: usize,
    /// Events overwritten since this reader's previous event.
    pub(crate) lost: u64,
}

/// The unread part of the oldest page, as [`CpuRing::unread_part`] found it.
struct UnreadPart {
    /// The `head` word it was found under.
    h: u64,
    head_page: u64,
    consumed: u64,
    commit_page: u64,
    /// Committed data bytes of the page.
    len: usize,
    /// Where the unconsumed events start, and the time before them.
    offset: usize,
    ts: u64,
}

/// The ring of one CPU.
///
/// Words only the ring's own CPU writes are [`Local`]; `head` and `read`,
/// which readers on other CPUs change too, are full atomics.
pub(crate) struct CpuRing<S: PageStore> {
    pages: S,
    write: Local,
    commit: Local,
    head: AtomicU64,
    nesting: Local,
    /// Approximate time of the latest event, to spot long gaps.
    last_ts: Local,
    overwrite: AtomicBool,
    written: Local,
    overrun: Local,
    dropped: Local,
    read: AtomicU64,
    commit_overrun: Local,
}

#[inline]
fn pack_write(page: u64, offset: usize, ts: u64) -> u64 {
    ((ts & 0xffff_ffff) << 32) | ((page & PAGE_MASK) << OFFSET_BITS) | offset as u64
}

#[inline]
fn unpack_write(w: u64) -> (u64, usize, u32) {
    (
        (w >> OFFSET_BITS) & PAGE_MASK,
        (w & OFFSET_MASK) as usize,
        (w >> 32) as u32,
    )
}

fn pack_pos(page: u64, offset: usize) -> u64 {
    (page << OFFSET_BITS) | offset as u64
}

fn unpack_pos(p: u64) -> (u64, usize) {
    (p >> OFFSET_BITS, (p & OFFSET_MASK) as usize)
}

fn pack_head(page: u64, consumed: u64) -> u64 {
    (page << CONSUMED_BITS) | consumed
}

fn unpack_head(h: u64) -> (u64, u64) {
    (h >> CONSUMED_BITS, h & ((1 << CONSUMED_BITS) - 1))
}

impl<S: PageStore> CpuRing<S> {
    /// A ring over `pages`, empty, in overwrite mode.
    pub(crate) fn new(pages: S) -> Self {
        let ring = CpuRing {
            pages,
            write: Local::new(0),
            commit: Local::new(0),
            head: AtomicU64::new(0),
            nesting: Local::new(0),
            last_ts: Local::new(0),
            overwrite: AtomicBool::new(true),
            written: Local::new(0),
            overrun: Local::new(0),
            dropped: Local::new(0),
            read: AtomicU64::new(0),
            commit_overrun: Local::new(0),
        };
        ring.reset();
        ring
    }

    /// Empties the ring and zeroes its counters.
    ///
    /// No writer and no reader may use the ring meanwhile.
    pub(crate) fn reset(&self) {
        for slot in 0..self.pages.len() {
            self.pages.meta(slot).number.store(u64::MAX, Relaxed);
            self.pages.meta(slot).entries.store(0, Relaxed);
        }
        let first = self.pages.page(0);
        first.time_stamp.store(0, Relaxed);
        first.commit.store(0, Relaxed);
        self.pages.meta(0).number.store(0, Relaxed);
        self.write.store(pack_write(0, 0, 0), Relaxed);
        self.commit.store(pack_pos(0, 0), Relaxed);
        self.head.store(pack_head(0, 0), Relaxed);
        self.last_ts.store(0, Relaxed);
        for counter in [
            &self.written,
            &self.overrun,
            &self.dropped,
            &self.commit_overrun,
        ] {
            counter.store(0, Relaxed);
        }
        self.read.store(0, Relaxed);
        fence(Release);
    }

    /// Whether events may wait to be read (written, neither read nor
    /// overwritten); may be true briefly for an event not yet committed.
    pub(crate) fn has_unread(&self) -> bool {
        let s = self.stats();
        s.written > s.overrun + s.read
    }

    /// Whether a reader waiting for the ring to fill to `percent` of its
    /// pages should wake (the kernel's `rb_watermark_hit`): for 0, when
    /// anything is unread; else when the writer has left the oldest unread
    /// page and the pages written and not yet read, the writer's counted,
    /// make up at least `percent` of the ring.
    pub(crate) fn watermark_hit(&self, percent: u32) -> bool {
        if !self.has_unread() {
            return false;
        }
        if percent == 0 {
            return true;
        }
        let (head_page, _, commit_page) = self.unread();
        let dirty = commit_page.saturating_sub(head_page);
        head_page < commit_page && (dirty + 1) * 100 >= u64::from(percent) * self.slots()
    }

    /// Data bytes in the pages still in the ring, and the time stamp of the
    /// oldest of them (`stats`: `bytes`, `oldest event ts`).
    pub(crate) fn bytes_and_oldest(&self) -> (u64, u64) {
        let (head, _, commit_page) = self.unread();
        let commit_offset = unpack_pos(self.commit.load(Acquire)).1;
        let mut bytes = 0;
        let mut oldest = None;
        for page in head..=commit_page {
            let slot = self.slot(page);
            if self.pages.meta(slot).number.load(Acquire) != page {
                continue;
            }
            let p = self.pages.page(slot);
            oldest.get_or_insert(p.time_stamp.load(Relaxed));
            bytes += if page < commit_page {
                p.commit.load(Relaxed)
            } else {
                commit_offset as u64
            };
        }
        (bytes, oldest.unwrap_or(0))
    }

    /// Overwrite the oldest events when full (`true`), or drop new ones.
    pub(crate) fn set_overwrite(&self, on: bool) {
        self.overwrite.store(on, Relaxed);
    }

    /// The counters.
    pub(crate) fn stats(&self) -> Stats {
        Stats {
            written: self.written.load(Relaxed),
            overrun: self.overrun.load(Relaxed),
            dropped: self.dropped.load(Relaxed),
            read: self.read.load(Relaxed),
            commit_overrun: self.commit_overrun.load(Relaxed),
        }
    }

    fn slots(&self) -> u64 {
        // Never zero, so `%` needs no division-by-zero path.
        (self.pages.len() as u64).max(1)
    }

    #[inline]
    fn slot(&self, page: u64) -> usize {
        (page % self.slots()) as usize
    }

    /// The full number of a page given the low bits kept in `write`.
    #[inline]
    fn full_page(&self, low: u64) -> u64 {
        let base = unpack_pos(self.commit.load(Relaxed)).0;
        base + (low.wrapping_sub(base) & PAGE_MASK)
    }

    /// Reserves room for an event of `len` payload bytes, stamped with
    /// `clock()` (read after the place of the event is known, so time never
    /// goes backwards in the ring). Returns `None` when the event is too big
    /// or, in no-overwrite mode, the ring is full.
    ///
    /// The usual case, an event that fits in the page being written and
    /// follows its predecessor within a delta, is this function alone; the
    /// others (a new page, a time event, a nested writer that moved first)
    /// are [`Self::reserve_slow`]. Inlined into each tracer's record path.
    #[inline(always)]
    pub(crate) fn reserve(&self, len: usize, clock: &impl Fn() -> u64) -> Option<Reservation> {
        if len > format::MAX_PAYLOAD {
            self.dropped.add(1);
            return None;
        }
        self.nesting.add(1);
        let size = format::event_size(len);
        let w = self.write.load(Relaxed);
        let (low, offset, last_low) = unpack_write(w);
        let now = clock();
        let delta = u64::from((now as u32).wrapping_sub(last_low));
        // Not the first event of a page (timed by the page's time stamp),
        // no time event needed, and room left in the page.
        let plain = offset != 0
            && delta <= format::DELTA_MAX
            && offset + size <= PAGE_DATA_SIZE
            && now.wrapping_sub(self.last_ts.load(Relaxed)) < LONG_GAP;
        if plain
            && self
                .write
                .compare_exchange(w, pack_write(low, offset + size, now))
                .is_ok()
        {
            let page = self.full_page(low);
            let at = Place {
                page,
                slot: self.slot(page),
                word: offset / 4,
                delta,
                now,
            };
            return Some(self.place(at, len));
        }
        let at = self.reserve_slow(size, w, now, clock)?;
        Some(self.place(at, len))
    }

    /// [`Self::reserve`] for the cases its fast path leaves out, for an
    /// event of `size` bytes, starting from the write word `w` read before
    /// the time `now`. Returns where the event goes and how it is timed,
    /// for [`Self::place`].
    #[cold]
    #[inline(never)]
    fn reserve_slow(
        &self,
        size: usize,
        mut w: u64,
        mut now: u64,
        clock: &impl Fn() -> u64,
    ) -> Option<Place> {
        let reserved = loop {
            let (low, offset, last_low) = unpack_write(w);
            let long_gap = now.wrapping_sub(self.last_ts.load(Relaxed)) >= LONG_GAP;
            let delta = u64::from((now as u32).wrapping_sub(last_low));
            // The first event of a page is timed by the page's time stamp.
            let time_words = if offset == 0 {
                None
            } else if long_gap {
                Some(format::time_stamp(now))
            } else if delta > format::DELTA_MAX {
                Some(format::time_extend(delta))
            } else {
                None
            };
            let need = size
                + if time_words.is_some() {
                    format::TIME_EVENT_SIZE
                } else {
                    0
                };
            if offset + need <= PAGE_DATA_SIZE {
                let next = pack_write(low, offset + need, now);
                if self.write.compare_exchange(w, next).is_ok() {
                    let page = self.full_page(low);
                    let slot = self.slot(page);
                    if offset == 0 {
                        // This writer owns the start of the page.
                        self.pages.page(slot).time_stamp.store(now, Relaxed);
                    }
                    let mut word = offset / 4;
                    if let Some(words) = time_words {
                        self.store_words(slot, word, &words);
                        word += 2;
                    }
                    let delta = if time_words.is_some() || offset == 0 {
                        0
                    } else {
                        delta
                    };
                    break Some(Place {
                        page,
                        slot,
                        word,
                        delta,
                        now,
                    });
                }
            } else {
                match self.move_to_next_page(w, low, offset, size, now) {
                    Some(page) => {
                        break Some(Place {
                            page,
                            slot: self.slot(page),
                            word: 0,
                            delta: 0,
                            now,
                        })
                    }
                    None if self.write.load(Relaxed) != w => {}
                    None => break None,
                }
            }
            // A nested writer moved first: read the place and time again.
            w = self.write.load(Relaxed);
            now = clock();
        };
        if reserved.is_none() {
            self.dropped.add(1);
            self.end_nesting();
        }
        reserved
    }

    /// Writes the header of an event of `len` bytes reserved `at`, and
    /// counts it.
    #[inline(always)]
    fn place(&self, at: Place, len: usize) -> Reservation {
        let (head, n) = format::data_header(len, at.delta);
        self.store_words(at.slot, at.word, &head[..n]);
        self.pages.meta(at.slot).entries.add(1);
        self.written.add(1);
        self.last_ts.store(at.now, Relaxed);
        Reservation {
            page: at.page,
            slot: at.slot,
            word: at.word + n,
            len,
        }
    }

    /// Tries to move the write position from page `low` (at `offset`) to a
    /// fresh page, reserving `size` bytes at its start. Returns the new
    /// page's number, or `None` if another writer moved first (the caller
    /// retries) or the ring is full in no-overwrite mode.
    fn move_to_next_page(
        &self,
        w: u64,
        low: u64,
        offset: usize,
        size: usize,
        now: u64,
    ) -> Option<u64> {
        let page = self.full_page(low);
        let next = page + 1;
        let slots = self.slots();
        if !self.overwrite.load(Relaxed) {
            let (head_page, _) = unpack_head(self.head.load(Acquire));
            if next >= head_page + slots {
                return None;
            }
        }
        if self
            .write
            .compare_exchange(w, pack_write(next, size, now))
            .is_err()
        {
            return None;
        }
        // This writer owns the end of `page` and all of `next`.
        self.pages
            .page(self.slot(page))
            .commit
            .store(offset as u64, Release);
        if next >= slots {
            self.push_head_past(next - slots);
        }
        let slot = self.slot(next);
        let meta = self.pages.meta(slot);
        meta.number.store(next, Relaxed);
        // Readers that see any of the new data also see the new number.
        fence(Release);
        meta.entries.store(0, Relaxed);
        let new_page = self.pages.page(slot);
        new_page.time_stamp.store(now, Relaxed);
        new_page.commit.store(0, Relaxed);
        Some(next)
    }

    /// Moves `head` beyond page `old` (overwrite), counting the events of
    /// the pages it passes that nobody consumed.
    fn push_head_past(&self, old: u64) {
        let mut h = self.head.load(Acquire);
        loop {
            let (page, consumed) = unpack_head(h);
            if page > old {
                return;
            }
            let meta = self.pages.meta(self.slot(page));
            let entries = if meta.number.load(Relaxed) == page {
                meta.entries.load(Relaxed)
            } else {
                0
            };
            match self
                .head
                .compare_exchange(h, pack_head(page + 1, 0), AcqRel, Acquire)
            {
                Ok(_) => {
                    self.overrun.add(entries.saturating_sub(consumed));
                    h = pack_head(page + 1, 0);
                }
                Err(now) => h = now,
            }
        }
    }

    #[inline]
    fn store_words(&self, slot: usize, word: usize, words: &[u32]) {
        let data = &self.pages.page(slot).data;
        for (i, &value) in words.iter().enumerate() {
            if let Some(slot) = data.get(word + i) {
                slot.store(value, Relaxed);
            }
        }
    }

    /// Writes the payload of a reservation (`bytes` beyond its length are
    /// ignored, missing ones are zero). The module writes through
    /// [`Self::fill_parts`]; the tests use this.
    #[cfg(test)]
    pub(crate) fn fill(&self, r: &Reservation, bytes: &[u8]) {
        self.fill_parts(r, &[], bytes);
    }

    /// Writes the payload of a reservation from two parts: `head`, whose
    /// length is a multiple of 4, then `tail` (bytes beyond the
    /// reservation's length are ignored, missing ones are zero).
    pub(crate) fn fill_parts(&self, r: &Reservation, head: &[u8], tail: &[u8]) {
        let Some(data) = self.pages.page(r.slot).data.get(r.word..) else {
            return;
        };
        let words = &data[..r.len.div_ceil(4).min(data.len())];
        let head = &head[..head.len().min(r.len) / 4 * 4];
        let (head_words, tail_words) = words.split_at((head.len() / 4).min(words.len()));
        store_words(head_words, head);
        store_words(tail_words, &tail[..tail.len().min(r.len - head.len())]);
    }

    /// Sets byte `at` of a reservation's payload, after
    /// [`Self::fill_parts`] (a byte past its length is left out).
    #[inline]
    pub(crate) fn put_byte(&self, r: &Reservation, at: usize, byte: u8) {
        if at >= r.len {
            return;
        }
        let Some(slot) = self.pages.page(r.slot).data.get(r.word + at / 4) else {
            return;
        };
        let shift = (at % 4) * 8;
        let word = slot.load(Relaxed) & !(0xff << shift) | (u32::from(byte) << shift);
        slot.store(word, Relaxed);
    }

    /// Writes the payload of a reservation as 32-bit words, as they are
    /// stored (words beyond the reservation's length are ignored, missing
    /// ones are left as they are: a caller writes the whole payload).
    #[inline(always)]
    pub(crate) fn put_words<const N: usize>(&self, r: &Reservation, words: &[u32; N]) {
        let count = r.len.div_ceil(4).min(N);
        let data = self.pages.page(r.slot).data.get(r.word..r.word + count);
        let Some(data) = data else {
            return;
        };
        // The usual case, a reservation of the record's length: `N`
        // stores, straight-line code for a record of a few words.
        if let Ok(whole) = <&[AtomicU32; N]>::try_from(data) {
            for (slot, &value) in whole.iter().zip(words) {
                slot.store(value, Relaxed);
            }
            return;
        }
        for (slot, &value) in data.iter().zip(words) {
            slot.store(value, Relaxed);
        }
    }

    /// Commits a filled reservation. The event becomes visible to readers
    /// when the outermost nested writer of this CPU commits.
    #[inline]
    pub(crate) fn commit(&self, r: Reservation) {
        if self.pages.meta(r.slot).number.load(Relaxed) != r.page {
            // Nested writers wrapped the whole ring over this event.
            self.commit_overrun.add(1);
        }
        self.end_nesting();
    }

    #[inline]
    fn end_nesting(&self) {
        if self.nesting.sub_return(1) != 0 {
            return;
        }
        // Outermost: every reservation up to `write` is complete. An
        // interrupt may reserve and commit between reading `write` and
        // publishing it; then `write` has moved, and the loop publishes the
        // newer position over the stale one.
        loop {
            let w = self.write.load(Relaxed);
            let (low, offset, _) = unpack_write(w);
            let page = self.full_page(low);
            self.commit.store(pack_pos(page, offset), Release);
            if self.write.load(Relaxed) == w {
                return;
            }
        }
    }

    /// Copies the committed data of `page` into `out` (a whole page:
    /// header then data) and returns its data length, or `None` if the
    /// page is not in the ring any more or not yet.
    fn snapshot(&self, page: u64, out: &mut [u8; format::PAGE_SIZE]) -> Option<usize> {
        let (commit_page, commit_offset) = unpack_pos(self.commit.load(Acquire));
        if page > commit_page {
            return None;
        }
        let slot = self.slot(page);
        let meta = self.pages.meta(slot);
        if meta.number.load(Acquire) != page {
            return None;
        }
        let src = self.pages.page(slot);
        let len = if page < commit_page {
            src.commit.load(Acquire) as usize
        } else {
            commit_offset
        };
        let len = len.min(PAGE_DATA_SIZE);
        out[..8].copy_from_slice(&src.time_stamp.load(Relaxed).to_le_bytes());
        out[8..16].copy_from_slice(&(len as u64).to_le_bytes());
        for (i, word) in src.data[..len.div_ceil(4)].iter().enumerate() {
            let at = format::PAGE_HEADER_SIZE + i * 4;
            out[at..at + 4].copy_from_slice(&word.load(Relaxed).to_le_bytes());
        }
        fence(Acquire);
        (meta.number.load(Relaxed) == page).then_some(len)
    }

    /// The page and event count where unread data starts, and the last
    /// committed page.
    fn unread(&self) -> (u64, u64, u64) {
        let (head_page, consumed) = unpack_head(self.head.load(Acquire));
        (head_page, consumed, unpack_pos(self.commit.load(Acquire)).0)
    }

    /// Copies page `page` (see [`Self::snapshot`]) for a non-consuming
    /// reader; `None` if it was overwritten or is not committed yet.
    pub(crate) fn copy_page(&self, page: u64, out: &mut [u8; format::PAGE_SIZE]) -> Option<usize> {
        self.snapshot(page, out)
    }

    /// The first unread page, the events of it already consumed, and the
    /// last page with committed data: what a non-consuming reader walks.
    pub(crate) fn readable(&self) -> (u64, u64, u64) {
        self.unread()
    }

    /// Finds in the copied page data the place after its first `consumed`
    /// events, starting from what `cursor` remembers when it is on the same
    /// page and has passed an event there. Returns the byte offset and the
    /// time of the event before it. A cursor that has passed none starts
    /// again from the copy's page stamp: the one it saw may be from before
    /// the writer stamped the page (a reader waiting on an empty ring).
    fn locate(
        cursor: &mut Cursor,
        head_page: u64,
        consumed: u64,
        page: &[u8],
        len: usize,
    ) -> (usize, u64) {
        if cursor.page != head_page || cursor.consumed > consumed || cursor.consumed == 0 {
            cursor.page = head_page;
            cursor.consumed = 0;
            cursor.offset = 0;
            cursor.ts = u64::from_le_bytes(page[..8].try_into().unwrap_or([0; 8]));
        }
        let data = &page[format::PAGE_HEADER_SIZE..format::PAGE_HEADER_SIZE + len];
        let mut decoder = PageDecoder::new(&data[cursor.offset.min(len)..], cursor.ts);
        while cursor.consumed < consumed {
            let Some(Ok(record)) = decoder.next() else {
                break;
            };
            cursor.consumed += 1;
            cursor.offset += record.end;
            cursor.ts = record.ts;
            decoder = PageDecoder::new(&data[cursor.offset.min(len)..], cursor.ts);
        }
        (cursor.offset, cursor.ts)
    }

    /// Copies the oldest page with unread data into `page` and finds where
    /// its unconsumed events start; `None` when nothing is committed there.
    /// A copy made by an earlier call with the same cursor and scratch page
    /// is used again while it still holds unconsumed events.
    fn unread_part(
        &self,
        cursor: &mut Cursor,
        page: &mut [u8; format::PAGE_SIZE],
    ) -> Option<UnreadPart> {
        loop {
            let h = self.head.load(Acquire);
            let (head_page, consumed) = unpack_head(h);
            let (_, _, commit_page) = self.unread();
            if let Some(part) = self.reuse_copy(cursor, page, h, commit_page) {
                return Some(part);
            }
            let Some(len) = self.snapshot(head_page, page) else {
                cursor.copied = None;
                if self.head.load(Acquire) != h {
                    continue;
                }
                return None;
            };
            cursor.copied = Some((head_page, len));
            let (offset, ts) = Self::locate(cursor, head_page, consumed, page, len);
            return Some(UnreadPart {
                h,
                head_page,
                consumed,
                commit_page,
                len,
                offset,
                ts,
            });
        }
    }

    /// The unread part of the page `cursor` says `page` holds a copy of, if
    /// that is the head page, the copy still has unconsumed events, and the
    /// page has not been reused since it was copied (page numbers only
    /// grow, so an unchanged number means committed bytes are unchanged).
    fn reuse_copy(
        &self,
        cursor: &mut Cursor,
        page: &[u8; format::PAGE_SIZE],
        h: u64,
        commit_page: u64,
    ) -> Option<UnreadPart> {
        let (head_page, consumed) = unpack_head(h);
        let (copied, len) = cursor.copied?;
        if copied != head_page
            || self.pages.meta(self.slot(head_page)).number.load(Acquire) != head_page
        {
            return None;
        }
        let (offset, ts) = Self::locate(cursor, head_page, consumed, page, len);
        let data = &page[format::PAGE_HEADER_SIZE + offset..format::PAGE_HEADER_SIZE + len];
        let has_event = matches!(PageDecoder::new(data, ts).next(), Some(Ok(_)));
        has_event.then_some(UnreadPart {
            h,
            head_page,
            consumed,
            commit_page,
            len,
            offset,
            ts,
        })
    }

    /// Events overwritten since the cursor last asked.
    fn take_lost(&self, cursor: &mut Cursor) -> u64 {
        let overrun = self.overrun.load(Relaxed);
        let lost = overrun.saturating_sub(cursor.seen_overrun);
        cursor.seen_overrun = overrun;
        lost
    }

    /// Consumes the oldest unread event: its payload is copied to `payload`
    /// (cut to its size); `page` is the reader's scratch page, the same one
    /// in every call with this cursor (it keeps the page copy). Returns
    /// `None` when nothing is committed beyond what was read.
    pub(crate) fn consume(
        &self,
        cursor: &mut Cursor,
        page: &mut [u8; format::PAGE_SIZE],
        payload: &mut [u8],
    ) -> Option<ReadEvent> {
        loop {
            let UnreadPart {
                h,
                head_page,
                consumed,
                commit_page,
                len,
                offset,
                ts,
            } = self.unread_part(cursor, page)?;
            let data = &page[format::PAGE_HEADER_SIZE + offset..format::PAGE_HEADER_SIZE + len];
            let Some(Ok(record)) = PageDecoder::new(data, ts).next() else {
                if head_page < commit_page {
                    // A full page, wholly consumed: move on.
                    let _ =
                        self.head
                            .compare_exchange(h, pack_head(head_page + 1, 0), AcqRel, Acquire);
                    continue;
                }
                return None;
            };
            if self
                .head
                .compare_exchange(h, pack_head(head_page, consumed + 1), AcqRel, Acquire)
                .is_err()
            {
                continue;
            }
            cursor.consumed = consumed + 1;
            cursor.offset = offset + record.end;
            cursor.ts = record.ts;
            let n = record.payload.len().min(payload.len());
            payload[..n].copy_from_slice(&record.payload[..n]);
            self.read.fetch_add(1, Relaxed);
            return Some(ReadEvent {
                ts: record.ts,
                len: n,
                lost: self.take_lost(cursor),
            });
        }
    }

    /// Consumes every unread committed event of the oldest page at once and
    /// writes them to `out` as a page in the binary format (as
    /// `trace_pipe_raw` hands pages out), flagging lost events in `commit`.
    /// Returns the number of data bytes, or `None` if nothing is unread or,
    /// when `complete_only` (a splice of `trace_pipe_raw`), if the writer is
    /// still on that page.
    pub(crate) fn consume_page(
        &self,
        cursor: &mut Cursor,
        out: &mut [u8; format::PAGE_SIZE],
        complete_only: bool,
    ) -> Option<usize> {
        loop {
            let UnreadPart {
                h,
                head_page,
                consumed,
                commit_page,
                len,
                offset,
                ts,
            } = self.unread_part(cursor, out)?;
            if complete_only && head_page >= commit_page {
                return None;
            }
            let data = &out[format::PAGE_HEADER_SIZE + offset..format::PAGE_HEADER_SIZE + len];
            let events = PageDecoder::new(data, ts).filter(|r| r.is_ok()).count() as u64;
            let next = if head_page < commit_page {
                pack_head(head_page + 1, 0)
            } else if events > 0 {
                pack_head(head_page, consumed + events)
            } else {
                return None;
            };
            if self
                .head
                .compare_exchange(h, next, AcqRel, Acquire)
                .is_err()
            {
                continue;
            }
            self.read.fetch_add(events, Relaxed);
            *cursor = Cursor {
                seen_overrun: cursor.seen_overrun,
                ..Cursor::new()
            };
            if events == 0 {
                continue;
            }
            out.copy_within(
                format::PAGE_HEADER_SIZE + offset..format::PAGE_HEADER_SIZE + len,
                format::PAGE_HEADER_SIZE,
            );
            let remaining = len - offset;
            let mut commit = remaining as u64;
            out[format::PAGE_HEADER_SIZE + remaining..].fill(0);
            let lost = self.take_lost(cursor);
            if lost > 0 {
                commit |= format::MISSED_EVENTS;
                // As the kernel does, the count follows the data if it fits.
                let at = format::PAGE_HEADER_SIZE + remaining;
                if let Some(slot) = out.get_mut(at..at + 8) {
                    slot.copy_from_slice(&lost.to_le_bytes());
                    commit |= format::MISSED_STORED;
                }
            }
            out[..8].copy_from_slice(&ts.to_le_bytes());
            out[8..16].copy_from_slice(&commit.to_le_bytes());
            return Some(remaining);
        }
    }
}

/// Stores `bytes` into `words`, little-endian, the partial last word
/// padded with zeros and the words after it zeroed.
fn store_words(words: &[AtomicU32], bytes: &[u8]) {
    let mut words = words.iter();
    let mut chunks = bytes.chunks_exact(4);
    // Chunks first: `zip` then stops without taking a word it won't fill.
    for (chunk, slot) in (&mut chunks).zip(&mut words) {
        slot.store(
            u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]),
            Relaxed,
        );
    }
    // The last 1 to 3 bytes, little-endian, assembled in a register (a
    // copy into a 4-byte array would be a call to `memcpy`).
    let last = chunks
        .remainder()
        .iter()
        .enumerate()
        .fold(0u32, |word, (i, &byte)| word | u32::from(byte) << (8 * i));
    let mut tail = Some(last);
    for slot in words {
        slot.store(tail.take().unwrap_or(0), Relaxed);
    }
}

#[cfg(test)]
#[path = "ring_tests.rs"]
pub(crate) mod tests;
