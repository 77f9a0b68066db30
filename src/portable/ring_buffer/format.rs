// SPDX-License-Identifier: GPL-2.0

//! The binary format of ring-buffer pages and events.
//!
//! It is the kernel's own (`kernel/trace/ring_buffer.c`), so that pages can
//! be handed to user space unchanged and read by trace-cmd:
//!
//! - a page starts with `u64 time_stamp` (the time of its first event) and
//!   `local_t commit` (the number of data bytes, with the missed-events
//!   flags in bits 31 and 30), followed by the data;
//! - each event starts with a 32-bit header, `type_len:5` in the low bits
//!   and `time_delta:27` (nanoseconds since the previous event of the page)
//!   in the high bits, then `array[]`:
//!   - `type_len` 1..=28: a data event of `type_len * 4` bytes at `array[0]`;
//!   - `type_len` 0: a data event whose length (plus 4) is in `array[0]`,
//!     data from `array[1]`;
//!   - 29: padding, `array[0] + 4` bytes long; with a zero delta it ends the
//!     page's data;
//!   - 30: a time extend: the delta of the next event is
//!     `array[0] << 27 | time_delta`;
//!   - 31: an absolute time stamp `array[0] << 27 | time_delta`.

use core::fmt;

/// Size of a page (a "sub-buffer").
pub(crate) const PAGE_SIZE: usize = 4096;
/// Size of the page header: `time_stamp` and `commit`.
pub(crate) const PAGE_HEADER_SIZE: usize = 16;
/// Bytes of event data a page holds.
pub(crate) const PAGE_DATA_SIZE: usize = PAGE_SIZE - PAGE_HEADER_SIZE;
/// Size of an event header.
pub(crate) const EVENT_HEADER_SIZE: usize = 4;
/// Alignment of events.
pub(crate) const ALIGNMENT: usize = 4;

/// Event type: padding.
pub(crate) const TYPE_PADDING: u32 = 29;
/// Event type: time extend.
pub(crate) const TYPE_TIME_EXTEND: u32 = 30;
/// Event type: absolute time stamp.
pub(crate) const TYPE_TIME_STAMP: u32 = 31;
/// The largest `type_len` of a data event whose length it encodes.
pub(crate) const TYPE_DATA_MAX: u32 = 28;
/// The largest payload whose length `type_len` can encode.
pub(crate) const MAX_SMALL_DATA: usize = TYPE_DATA_MAX as usize * ALIGNMENT;
/// Bits of the delta in an event header.
pub(crate) const DELTA_BITS: u32 = 27;
/// The largest delta an event header holds.
pub(crate) const DELTA_MAX: u64 = (1 << DELTA_BITS) - 1;
/// Size of a time extend or time stamp event.
pub(crate) const TIME_EVENT_SIZE: usize = 8;
/// The largest payload of one event.
pub(crate) const MAX_PAYLOAD: usize = PAGE_DATA_SIZE - EVENT_HEADER_SIZE * 2 - TIME_EVENT_SIZE;

/// `commit` flag: events were lost before this page.
pub(crate) const MISSED_EVENTS: u64 = 1 << 31;
/// `commit` flag: the number of lost events is stored after the data.
pub(crate) const MISSED_STORED: u64 = 1 << 30;
/// Both flags.
#[cfg(test)]
pub(crate) const MISSED_MASK: u64 = MISSED_EVENTS | MISSED_STORED;

/// Bytes a data event with `payload` bytes takes in a page, header included.
pub(crate) const fn event_size(payload: usize) -> usize {
    let payload = if payload == 0 { 1 } else { payload };
    let length_word = if payload > MAX_SMALL_DATA { 4 } else { 0 };
    (EVENT_HEADER_SIZE + length_word + payload).next_multiple_of(ALIGNMENT)
}

/// The header word of an event.
pub(crate) const fn header(type_len: u32, delta: u32) -> u32 {
    (delta << 5) | type_len
}

/// The words that start a data event of `payload` bytes `delta` ns after the
/// previous event; the second word is used only for large payloads.
#[inline]
pub(crate) fn data_header(payload: usize, delta: u64) -> ([u32; 2], usize) {
    let delta = (delta & DELTA_MAX) as u32;
    let payload = payload.max(1);
    if payload > MAX_SMALL_DATA {
        // `array[0]` counts itself too.
        (
            [
                header(0, delta),
                (payload.next_multiple_of(ALIGNMENT) + 4) as u32,
            ],
            2,
        )
    } else {
        let type_len = payload.div_ceil(ALIGNMENT) as u32;
        ([header(type_len, delta), 0], 1)
    }
}

/// The two words of a time extend carrying `delta`.
pub(crate) fn time_extend(delta: u64) -> [u32; 2] {
    [
        header(TYPE_TIME_EXTEND, (delta & DELTA_MAX) as u32),
        (delta >> DELTA_BITS) as u32,
    ]
}

/// The two words of an absolute time stamp.
pub(crate) fn time_stamp(ts: u64) -> [u32; 2] {
    [
        header(TYPE_TIME_STAMP, (ts & DELTA_MAX) as u32),
        (ts >> DELTA_BITS) as u32,
    ]
}

/// The words of padding that fill `len` bytes (at least 8). The writer never
/// needs padding (a page's `commit` says where its data ends); readers and
/// tests meet it in pages written by others.
#[cfg(test)]
pub(crate) fn padding(len: usize) -> [u32; 2] {
    // A non-zero delta marks padding that is followed by more data.
    [header(TYPE_PADDING, 1), (len - EVENT_HEADER_SIZE) as u32]
}

/// One record decoded from a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Record<'a> {
    /// Time stamp of the event.
    pub(crate) ts: u64,
    /// Offset of the event's header in the data decoded.
    pub(crate) offset: usize,
    /// Offset just past the event (and its padding to 4 bytes).
    pub(crate) end: usize,
    /// The payload, as long as its length field says (rounded up to 4).
    pub(crate) payload: &'a [u8],
}

/// Why page data could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FormatError {
    /// An event runs past the end of the data, at this offset.
    Truncated(usize),
    /// An event length field is impossible, at this offset.
    BadLength(usize),
}

/// Decodes the data events of one page's data (`commit` bytes), applying
/// time extends and time stamps.
pub(crate) struct PageDecoder<'a> {
    data: &'a [u8],
    pos: usize,
    ts: u64,
}

impl<'a> PageDecoder<'a> {
    /// Starts decoding `data`, the committed bytes of a page whose header
    /// says `time_stamp`.
    pub(crate) fn new(data: &'a [u8], time_stamp: u64) -> Self {
        PageDecoder {
            data,
            pos: 0,
            ts: time_stamp,
        }
    }

    fn word(&self, at: usize) -> Result<u32, FormatError> {
        let bytes = self
            .data
            .get(at..at + 4)
            .ok_or(FormatError::Truncated(self.pos))?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn next_record(&mut self) -> Result<Option<Record<'a>>, FormatError> {
        while self.pos < self.data.len() {
            let start = self.pos;
            let head = self.word(start)?;
            let type_len = head & 0x1f;
            let delta = u64::from(head >> 5);
            match type_len {
                TYPE_PADDING => {
                    if delta == 0 {
                        // Nothing follows this padding in the page.
                        self.pos = self.data.len();
                        return Ok(None);
                    }
                    let len = self.word(start + 4)? as usize + EVENT_HEADER_SIZE;
                    if len < TIME_EVENT_SIZE {
                        return Err(FormatError::BadLength(start));
                    }
                    self.pos = start + len;
                }
                TYPE_TIME_EXTEND => {
                    self.ts += (u64::from(self.word(start + 4)?) << DELTA_BITS) | delta;
                    self.pos = start + TIME_EVENT_SIZE;
                }
                TYPE_TIME_STAMP => {
                    self.ts = (u64::from(self.word(start + 4)?) << DELTA_BITS) | delta;
                    self.pos = start + TIME_EVENT_SIZE;
                }
                0 => {
                    let len = self.word(start + 4)? as usize;
                    if len < 4 {
                        return Err(FormatError::BadLength(start));
                    }
                    return self.emit(start, start + 8, len - 4, delta);
                }
                small => {
                    return self.emit(start, start + 4, small as usize * ALIGNMENT, delta);
                }
            }
        }
        Ok(None)
    }

    fn emit(
        &mut self,
        start: usize,
        data: usize,
        len: usize,
        delta: u64,
    ) -> Result<Option<Record<'a>>, FormatError> {
        let payload = self
            .data
            .get(data..data + len)
            .ok_or(FormatError::Truncated(start))?;
        self.ts += delta;
        self.pos = data + len.next_multiple_of(ALIGNMENT);
        Ok(Some(Record {
            ts: self.ts,
            offset: start,
            end: self.pos,
            payload,
        }))
    }
}

impl<'a> Iterator for PageDecoder<'a> {
    type Item = Result<Record<'a>, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_record() {
            Ok(record) => record.map(Ok),
            Err(e) => {
                self.pos = self.data.len();
                Some(Err(e))
            }
        }
    }
}

/// The text of `events/header_page`.
pub(crate) fn write_header_page(out: &mut dyn fmt::Write) -> fmt::Result {
    writeln!(
        out,
        "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;"
    )?;
    writeln!(
        out,
        "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;"
    )?;
    writeln!(
        out,
        "\tfield: char overwrite;\toffset:8;\tsize:1;\tsigned:0;"
    )?;
    writeln!(
        out,
        "\tfield: char data;\toffset:{PAGE_HEADER_SIZE};\tsize:{PAGE_DATA_SIZE};\tsigned:0;"
    )
}

/// The text of `events/header_event`.
pub(crate) fn write_header_event(out: &mut dyn fmt::Write) -> fmt::Result {
    out.write_str("# compressed entry header\n")?;
    out.write_str("\ttype_len    :    5 bits\n")?;
    out.write_str("\ttime_delta  :   27 bits\n")?;
    out.write_str("\tarray       :   32 bits\n\n")?;
    writeln!(out, "\tpadding     : type == {TYPE_PADDING}")?;
    writeln!(out, "\ttime_extend : type == {TYPE_TIME_EXTEND}")?;
    writeln!(out, "\ttime_stamp : type == {TYPE_TIME_STAMP}")?;
    writeln!(out, "\tdata max type_len  == {TYPE_DATA_MAX}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(page: &mut Vec<u8>, words: &[u32]) {
        for w in words {
            page.extend_from_slice(&w.to_le_bytes());
        }
    }

    fn push_event(page: &mut Vec<u8>, payload: &[u8], delta: u64) {
        let (head, n) = data_header(payload.len(), delta);
        push(page, &head[..n]);
        let mut body = payload.to_vec();
        body.resize(payload.len().max(1).next_multiple_of(4), 0);
        page.extend_from_slice(&body);
    }

    #[test]
    fn sizes_match_the_kernel() {
        assert_eq!(event_size(0), 8);
        assert_eq!(event_size(1), 8);
        assert_eq!(event_size(10), 16);
        assert_eq!(event_size(112), 116);
        assert_eq!(event_size(113), 124);
        assert_eq!(PAGE_DATA_SIZE, 4080);
    }

    #[test]
    fn decodes_small_large_and_time_events() {
        let mut page = Vec::new();
        push_event(&mut page, b"hello", 5);
        push(&mut page, &time_extend(1 << 30));
        push_event(&mut page, &[7u8; 200], 0);
        push(&mut page, &time_stamp(1_000_000_000_000));
        push_event(&mut page, b"abs", 3);
        push(&mut page, &padding(12));
        page.extend_from_slice(&[0; 4]);
        push_event(&mut page, b"z", 1);
        let records: Vec<_> = PageDecoder::new(&page, 100)
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        assert_eq!(records.len(), 4);
        assert_eq!(
            (records[0].ts, &records[0].payload[..5]),
            (105, &b"hello"[..])
        );
        assert_eq!(records[1].ts, 105 + (1 << 30));
        assert_eq!(records[1].payload.len(), 200);
        assert_eq!(records[2].ts, 1_000_000_000_003);
        assert_eq!(records[3].ts, 1_000_000_000_004);
    }

    #[test]
    fn null_padding_ends_the_page() {
        let mut page = Vec::new();
        push_event(&mut page, b"a", 1);
        push(&mut page, &[header(TYPE_PADDING, 0)]);
        page.extend_from_slice(&[0xff; 64]);
        assert_eq!(PageDecoder::new(&page, 0).count(), 1);
    }

    #[test]
    fn reports_truncation() {
        let mut page = Vec::new();
        push_event(&mut page, &[1u8; 40], 1);
        page.truncate(20);
        let mut decoder = PageDecoder::new(&page, 0);
        assert_eq!(decoder.next(), Some(Err(FormatError::Truncated(0))));
        assert_eq!(decoder.next(), None);
    }

    #[test]
    fn header_texts() {
        let mut text = String::new();
        assert!(write_header_page(&mut text).is_ok());
        assert!(text.contains("\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n"));
        text.clear();
        assert!(write_header_event(&mut text).is_ok());
        assert!(text.ends_with("\tdata max type_len  == 28\n"));
    }
}
