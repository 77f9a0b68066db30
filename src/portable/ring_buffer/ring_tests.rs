// SPDX-License-Identifier: GPL-2.0

//! Host tests of the lockless ring: formats, page hand-over, overwrite and
//! no-overwrite accounting, nesting, and concurrent writers and readers.

use super::*;
use std::collections::HashSet;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::thread;

pub(crate) struct HostPages {
    pages: Vec<Box<Page>>,
    metas: Vec<PageMeta>,
}

impl HostPages {
    fn new(count: usize) -> Self {
        let pages = (0..count)
            .map(|_| {
                // SAFETY (test): `Page` is atomics only, for which zero is valid.
                unsafe { Box::<Page>::new_zeroed().assume_init() }
            })
            .collect();
        HostPages {
            pages,
            metas: (0..count).map(|_| PageMeta::new()).collect(),
        }
    }
}

impl PageStore for HostPages {
    fn len(&self) -> usize {
        self.pages.len()
    }
    fn page(&self, slot: usize) -> &Page {
        &self.pages[slot]
    }
    fn meta(&self, slot: usize) -> &PageMeta {
        &self.metas[slot]
    }
}

pub(crate) fn ring(pages: usize) -> CpuRing<HostPages> {
    CpuRing::new(HostPages::new(pages))
}

/// Payload of test events: who wrote it, a sequence number, a check word,
/// then filler derived from the sequence number.
fn payload(writer: u32, seq: u32, len: usize) -> Vec<u8> {
    let mut p = Vec::with_capacity(len);
    p.extend_from_slice(&writer.to_le_bytes());
    p.extend_from_slice(&seq.to_le_bytes());
    p.extend_from_slice(&(seq ^ 0x5a5a_5a5a).to_le_bytes());
    while p.len() < len {
        p.push(seq as u8);
    }
    p
}

pub(crate) fn check_payload(p: &[u8]) -> (u32, u32) {
    let word = |i: usize| u32::from_le_bytes(p[i * 4..i * 4 + 4].try_into().unwrap_or_default());
    let (writer, seq, check) = (word(0), word(1), word(2));
    assert_eq!(check, seq ^ 0x5a5a_5a5a, "torn event {writer}/{seq}");
    assert!(
        p[12..].iter().all(|&b| b == seq as u8 || b == 0),
        "torn filler in {writer}/{seq}"
    );
    (writer, seq)
}

pub(crate) fn write(
    r: &CpuRing<HostPages>,
    clock: &impl Fn() -> u64,
    writer: u32,
    seq: u32,
    len: usize,
) -> bool {
    match r.reserve(len, clock) {
        Some(res) => {
            r.fill(&res, &payload(writer, seq, len));
            r.commit(res);
            true
        }
        None => false,
    }
}

pub(crate) fn drain(r: &CpuRing<HostPages>) -> Vec<(u64, u32, u32)> {
    let mut cursor = Cursor::new();
    let mut page = [0u8; format::PAGE_SIZE];
    let mut buf = [0u8; format::PAGE_SIZE];
    let mut out = Vec::new();
    while let Some(ev) = r.consume(&mut cursor, &mut page, &mut buf) {
        let (w, s) = check_payload(&buf[..ev.len]);
        out.push((ev.ts, w, s));
    }
    out
}

fn counter_clock() -> impl Fn() -> u64 {
    let now = AtomicU64::new(1_000);
    move || now.fetch_add(7, Relaxed)
}

#[test]
fn events_come_back_in_order_across_pages() {
    let r = ring(8);
    let clock = counter_clock();
    for seq in 0..500 {
        assert!(write(&r, &clock, 0, seq, 16 + (seq as usize % 40)));
    }
    let events = drain(&r);
    assert_eq!(events.len(), 500);
    for (i, (ts, _, seq)) in events.iter().enumerate() {
        assert_eq!(*seq, i as u32);
        assert_eq!(
            *ts,
            1_000 + 7 * i as u64,
            "timestamps follow the clock exactly"
        );
    }
    assert_eq!(
        r.stats(),
        Stats {
            written: 500,
            read: 500,
            ..Stats::default()
        }
    );
    assert!(drain(&r).is_empty());
}

#[test]
fn consuming_reader_sees_events_added_to_a_page_it_copied() {
    let r = ring(4);
    let clock = counter_clock();
    let mut cursor = Cursor::new();
    let mut page = [0u8; format::PAGE_SIZE];
    let mut buf = [0u8; format::PAGE_SIZE];
    let mut seqs = Vec::new();
    let mut next = |cursor: &mut Cursor, page: &mut [u8; format::PAGE_SIZE]| {
        r.consume(cursor, page, &mut buf)
            .map(|ev| check_payload(&buf[..ev.len]).1)
    };
    let mut seq = 0;
    for round in 0..60 {
        // Writes land in the page the reader copied; it must not stop at
        // the end of its copy, nor read an event twice.
        for _ in 0..round % 4 + 1 {
            assert!(write(&r, &clock, 0, seq, 20));
            seq += 1;
        }
        if let Some(s) = next(&mut cursor, &mut page) {
            seqs.push(s);
        }
    }
    while let Some(s) = next(&mut cursor, &mut page) {
        seqs.push(s);
    }
    assert_eq!(seqs, (0..seq).collect::<Vec<_>>());
}

#[test]
fn a_reader_that_found_the_ring_empty_times_the_first_event_right() {
    // The reader waits on the empty first page, before the writer has
    // stamped it; the page's first event is timed by that stamp.
    let r = ring(4);
    let clock = counter_clock();
    let mut cursor = Cursor::new();
    let mut page = [0u8; format::PAGE_SIZE];
    let mut buf = [0u8; format::PAGE_SIZE];
    assert!(r.consume(&mut cursor, &mut page, &mut buf).is_none());
    assert!(write(&r, &clock, 0, 0, 20));
    let first = r.consume(&mut cursor, &mut page, &mut buf).map(|ev| ev.ts);
    assert_eq!(first, Some(1_000));
    assert!(r.consume(&mut cursor, &mut page, &mut buf).is_none());
    assert!(write(&r, &clock, 0, 1, 20));
    let second = r.consume(&mut cursor, &mut page, &mut buf).map(|ev| ev.ts);
    assert_eq!(second, Some(1_007));
}

#[test]
fn time_extends_and_absolute_stamps() {
    let r = ring(4);
    let times = [
        10u64,
        20,
        20 + (1 << 27) + 5,
        30 + (1 << 28),
        (1 << 33) + 1,
        (1 << 33) + 2,
    ];
    let at = AtomicU64::new(0);
    let clock = || times[at.load(Relaxed) as usize];
    for i in 0..times.len() {
        at.store(i as u64, Relaxed);
        assert!(write(&r, &clock, 0, i as u32, 12));
    }
    let got: Vec<u64> = drain(&r).iter().map(|e| e.0).collect();
    assert_eq!(got, times);
}

#[test]
fn large_events_and_limits() {
    let r = ring(4);
    let clock = counter_clock();
    assert!(write(&r, &clock, 0, 1, 2000));
    assert!(write(&r, &clock, 0, 2, format::MAX_PAYLOAD));
    assert!(!write(&r, &clock, 0, 3, format::MAX_PAYLOAD + 1));
    let events = drain(&r);
    assert_eq!(events.iter().map(|e| e.2).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(r.stats().dropped, 1);
}

#[test]
fn overwrite_keeps_the_newest_and_counts_exactly() {
    let r = ring(4);
    let clock = counter_clock();
    for seq in 0..3000 {
        assert!(write(&r, &clock, 0, seq, 24));
    }
    let events = drain(&r);
    let stats = r.stats();
    assert_eq!(stats.written, 3000);
    assert_eq!(stats.read + stats.overrun, stats.written, "{stats:?}");
    assert!(stats.overrun > 0);
    // What is left is the newest events, contiguous.
    let first = events[0].2;
    assert!(events
        .iter()
        .enumerate()
        .all(|(i, e)| e.2 == first + i as u32));
    assert_eq!(events.last().map(|e| e.2), Some(2999));
}

#[test]
fn no_overwrite_drops_new_events() {
    let r = ring(4);
    r.set_overwrite(false);
    let clock = counter_clock();
    let accepted = (0..3000)
        .filter(|&seq| write(&r, &clock, 0, seq, 24))
        .count() as u64;
    let stats = r.stats();
    assert_eq!(stats.written, accepted);
    assert_eq!(stats.dropped, 3000 - accepted);
    assert_eq!(stats.overrun, 0);
    let events = drain(&r);
    assert_eq!(events.len() as u64, accepted);
    assert!(
        events.iter().enumerate().all(|(i, e)| e.2 == i as u32),
        "the oldest are kept"
    );
    // Reading made room again.
    assert!(write(&r, &clock, 0, 9999, 24));
}

#[test]
fn partial_reads_then_whole_pages() {
    let r = ring(8);
    let clock = counter_clock();
    for seq in 0..300 {
        assert!(write(&r, &clock, 0, seq, 20));
    }
    let mut cursor = Cursor::new();
    let mut scratch = [0u8; format::PAGE_SIZE];
    let mut buf = [0u8; 64];
    for expect in 0..10 {
        let ev = r
            .consume(&mut cursor, &mut scratch, &mut buf)
            .map(|e| check_payload(&buf[..e.len]).1);
        assert_eq!(ev, Some(expect));
    }
    // The rest comes as binary pages that decode to the following events.
    let mut next = 10;
    let mut page = [0u8; format::PAGE_SIZE];
    while let Some(len) = r.consume_page(&mut cursor, &mut page, false) {
        let ts = u64::from_le_bytes(page[..8].try_into().unwrap_or_default());
        let commit = u64::from_le_bytes(page[8..16].try_into().unwrap_or_default());
        assert_eq!(commit & !format::MISSED_MASK, len as u64);
        let data = &page[16..16 + len];
        let records: Vec<_> = PageDecoder::new(data, ts).collect();
        assert!(records.iter().all(Result::is_ok), "bad page: {records:?}");
        for record in records.into_iter().flatten() {
            assert_eq!(check_payload(record.payload).1, next);
            assert_eq!(record.ts, 1_000 + 7 * u64::from(next));
            next += 1;
        }
    }
    assert_eq!(next, 300);
}

/// Writes `seq` with nested writers interrupting between reserve and commit
/// (depth levels, like task → softirq → irq → NMI).
fn nested_write(
    r: &CpuRing<HostPages>,
    clock: &impl Fn() -> u64,
    seq: &mut u32,
    depth: u32,
) -> u32 {
    let mine = *seq;
    *seq += 1;
    let len = 16 + (mine as usize % 60);
    let Some(res) = r.reserve(len, clock) else {
        return 1;
    };
    let mut written = 1;
    if depth < 3 && mine % (depth + 2) == 0 {
        written += nested_write(r, clock, seq, depth + 1);
    }
    r.fill(&res, &payload(depth, mine, len));
    if depth < 3 && mine % 5 == 1 {
        written += nested_write(r, clock, seq, depth + 1);
    }
    r.commit(res);
    written
}

#[test]
fn nested_writers_keep_time_order_and_commit_all() {
    let r = ring(16);
    let clock = counter_clock();
    let mut seq = 0;
    while seq < 2000 {
        nested_write(&r, &clock, &mut seq, 0);
    }
    let events = drain(&r);
    let stats = r.stats();
    assert_eq!(stats.read + stats.overrun, stats.written);
    assert!(
        events.windows(2).all(|w| w[0].0 <= w[1].0),
        "time goes backwards"
    );
    let unique: HashSet<u32> = events.iter().map(|e| e.2).collect();
    assert_eq!(unique.len(), events.len());
}

#[test]
fn interrupt_inside_the_reservation_retries() {
    // The "clock" fires a nested write the first time it is read, i.e.
    // between loading the write position and the compare-and-swap.
    let r = Arc::new(ring(4));
    let fired = AtomicU64::new(0);
    let now = AtomicU64::new(100);
    let inner = r.clone();
    let clock = move || {
        if fired.fetch_add(1, Relaxed) == 0 {
            let inner_clock = || now.fetch_add(1, Relaxed);
            assert!(write(&inner, &inner_clock, 1, 1, 16));
        }
        now.fetch_add(1, Relaxed)
    };
    assert!(write(&r, &clock, 0, 0, 16));
    let events = drain(&r);
    assert_eq!(
        events.iter().map(|e| (e.1, e.2)).collect::<Vec<_>>(),
        [(1, 1), (0, 0)]
    );
    assert!(events[0].0 < events[1].0);
}

#[test]
fn concurrent_writers_nesting_and_two_readers() {
    const CPUS: usize = 3;
    const PER_CPU: u32 = 20_000;
    let rings: Arc<Vec<CpuRing<HostPages>>> = Arc::new((0..CPUS).map(|_| ring(6)).collect());
    let clock = Arc::new(AtomicU64::new(1));
    let done = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..CPUS)
        .map(|cpu| {
            let (rings, clock) = (rings.clone(), clock.clone());
            thread::spawn(move || {
                let tick = || clock.fetch_add(1, Relaxed);
                let mut seq = 0;
                while seq < PER_CPU {
                    nested_write(&rings[cpu], &tick, &mut seq, 0);
                    // Pace the writers so that readers keep up with part of
                    // the stream and both overrun and reads are exercised.
                    for _ in 0..(seq % 400) {
                        std::hint::spin_loop();
                    }
                }
            })
        })
        .collect();
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (rings, done) = (rings.clone(), done.clone());
            thread::spawn(move || {
                let mut seen = vec![Vec::new(); CPUS];
                let mut cursors: Vec<Cursor> = (0..CPUS).map(|_| Cursor::new()).collect();
                // A scratch page per cursor, as `consume` requires.
                let mut scratch = vec![[0u8; format::PAGE_SIZE]; CPUS];
                let mut buf = [0u8; format::PAGE_SIZE];
                loop {
                    let finished = done.load(Acquire);
                    let mut any = false;
                    for cpu in 0..CPUS {
                        while let Some(ev) =
                            rings[cpu].consume(&mut cursors[cpu], &mut scratch[cpu], &mut buf)
                        {
                            seen[cpu].push((ev.ts, check_payload(&buf[..ev.len]).1));
                            any = true;
                        }
                    }
                    if finished && !any {
                        return seen;
                    }
                }
            })
        })
        .collect();
    for w in writers {
        assert!(w.join().is_ok(), "a writer panicked");
    }
    done.store(true, Release);
    let seen: Vec<_> = readers.into_iter().filter_map(|r| r.join().ok()).collect();
    assert_eq!(seen.len(), 2, "a reader panicked");
    for cpu in 0..CPUS {
        let stats = rings[cpu].stats();
        let mut all: Vec<u32> = seen
            .iter()
            .flat_map(|s| s[cpu].iter().map(|e| e.1))
            .collect();
        let total = all.len() as u64;
        all.sort_unstable();
        all.dedup();
        assert_eq!(
            all.len() as u64,
            total,
            "an event was read twice on cpu {cpu}"
        );
        assert_eq!(stats.read, total);
        assert_eq!(
            stats.read + stats.overrun,
            stats.written,
            "cpu {cpu}: {stats:?}"
        );
        assert_eq!(stats.written, u64::from(PER_CPU).max(stats.written));
        for s in &seen {
            assert!(
                s[cpu].windows(2).all(|w| w[0].0 <= w[1].0),
                "a reader saw time go backwards"
            );
        }
    }
}

#[test]
fn raw_pages_flag_and_count_lost_events() {
    let r = ring(4);
    let clock = counter_clock();
    for seq in 0..2000 {
        assert!(write(&r, &clock, 0, seq, 24));
    }
    let mut cursor = Cursor::new();
    let mut page = [0u8; format::PAGE_SIZE];
    let len = r.consume_page(&mut cursor, &mut page, false).unwrap_or(0);
    let commit = u64::from_le_bytes(page[8..16].try_into().unwrap_or_default());
    assert_eq!(
        commit & format::MISSED_MASK,
        format::MISSED_EVENTS | format::MISSED_STORED
    );
    assert_eq!(commit & !format::MISSED_MASK, len as u64);
    let at = format::PAGE_HEADER_SIZE + len;
    let stored = u64::from_le_bytes(page[at..at + 8].try_into().unwrap_or_default());
    assert_eq!(stored, r.stats().overrun);
    // The next page reports no loss.
    assert!(r.consume_page(&mut cursor, &mut page, false).is_some());
    let commit = u64::from_le_bytes(page[8..16].try_into().unwrap_or_default());
    assert_eq!(commit & format::MISSED_MASK, 0);
}

#[test]
fn a_payload_filled_from_two_parts_reads_back_whole() {
    let r = ring(4);
    let clock = counter_clock();
    let head = [1u8, 2, 3, 4, 5, 6, 7, 8];
    let tail = [9u8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21];
    // Cut short: the reservation's length wins over the tail's.
    let res = r.reserve(19, &clock).expect("room");
    r.fill_parts(&res, &head, &tail);
    r.commit(res);
    let mut cursor = Cursor::new();
    let mut page = [0u8; format::PAGE_SIZE];
    let mut buf = [0u8; format::PAGE_SIZE];
    let ev = r
        .consume(&mut cursor, &mut page, &mut buf)
        .expect("an event");
    assert_eq!(ev.len, 20, "lengths are kept in whole words");
    assert_eq!(
        &buf[..20],
        &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 0]
    );
}

#[test]
fn a_payload_put_as_words_reads_back_as_their_bytes() {
    let r = ring(4);
    let clock = counter_clock();
    let words = [0x0403_0201u32, 0x0807_0605, 0x0c0b_0a09, 0x100f_0e0d];
    // The reservation holds three words: the fourth is not stored.
    let res = r.reserve(12, &clock).expect("room");
    r.put_words(&res, &words);
    r.commit(res);
    let res = r.reserve(8, &clock).expect("room");
    r.put_words(&res, &[0x1817_1615, 0x1c1b_1a19]);
    r.commit(res);
    let mut cursor = Cursor::new();
    let mut page = [0u8; format::PAGE_SIZE];
    let mut buf = [0u8; format::PAGE_SIZE];
    let ev = r
        .consume(&mut cursor, &mut page, &mut buf)
        .expect("an event");
    assert_eq!(ev.len, 12);
    assert_eq!(&buf[..12], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    let ev = r
        .consume(&mut cursor, &mut page, &mut buf)
        .expect("the next event, untouched by the first's extra word");
    assert_eq!(ev.len, 8);
    assert_eq!(&buf[..8], &[0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c]);
}

#[test]
fn complete_pages_only_leave_the_writers_page() {
    let r = ring(8);
    let clock = counter_clock();
    // One page and a bit: 24-byte events (28 with their header).
    let per_page = (PAGE_DATA_SIZE / 28) as u32;
    for seq in 0..per_page + 3 {
        assert!(write(&r, &clock, 0, seq, 24));
    }
    let mut cursor = Cursor::new();
    let mut page = [0u8; format::PAGE_SIZE];
    assert!(r.consume_page(&mut cursor, &mut page, true).is_some());
    assert_eq!(
        r.consume_page(&mut cursor, &mut page, true),
        None,
        "the writer's page is not handed out whole"
    );
    let len = r.consume_page(&mut cursor, &mut page, false);
    assert_eq!(len, Some(3 * 28), "a read takes the writer's page as it is");
}

#[test]
fn the_watermark_counts_pages_written_and_not_read() {
    let r = ring(10);
    let clock = counter_clock();
    assert!(!r.watermark_hit(0), "an empty ring");
    assert!(write(&r, &clock, 0, 0, 24));
    assert!(r.watermark_hit(0), "0: any event");
    assert!(
        !r.watermark_hit(10),
        "the writer is still on the first page"
    );
    let per_page = (PAGE_DATA_SIZE / 28) as u32;
    let mut seq = 1;
    // Fill pages until the writer is on the fifth: four written pages and
    // the writer's make half of ten.
    while unpack_pos(r.commit.load(Relaxed)).0 < 4 {
        assert!(write(&r, &clock, 0, seq, 24));
        seq += 1;
    }
    assert!(r.watermark_hit(40));
    assert!(r.watermark_hit(50));
    assert!(!r.watermark_hit(51));
    let mut cursor = Cursor::new();
    let mut page = [0u8; format::PAGE_SIZE];
    assert!(r.consume_page(&mut cursor, &mut page, true).is_some());
    assert!(!r.watermark_hit(50), "a page read is no longer counted");
    assert!(r.watermark_hit(40));
    assert!(seq > per_page);
}

#[test]
fn a_print_record_written_in_place_is_the_one_encoded() {
    use crate::portable::output::EntryHeader;
    use crate::portable::records::{encode_print, print_head, print_newline_at, print_record_size};
    let header = EntryHeader {
        kind: crate::portable::records::TYPE_PRINT,
        flags: 1,
        preempt_count: 2,
        pid: 42,
    };
    // The newline added or not, and falling in the last word or a new one.
    for text in [&b"hi"[..], b"hi\n", b"abc", b"abcd", b"abcd\n", b""] {
        let r = ring(4);
        let clock = counter_clock();
        let size = print_record_size(text);
        let res = r.reserve(size, &clock).expect("room");
        r.fill_parts(&res, &print_head(header, 0x1234), text);
        if let Some(at) = print_newline_at(text) {
            r.put_byte(&res, at, b'\n');
        }
        r.commit(res);
        let mut want = vec![0u8; size];
        encode_print(&mut want, header, 0x1234, text);
        let mut cursor = Cursor::new();
        let mut page = [0u8; format::PAGE_SIZE];
        let mut buf = [0u8; format::PAGE_SIZE];
        let ev = r
            .consume(&mut cursor, &mut page, &mut buf)
            .expect("an event");
        assert_eq!(&buf[..size], &want[..], "{text:?}");
        assert!(
            buf[size..ev.len].iter().all(|&b| b == 0),
            "{text:?}: padding"
        );
    }
}
