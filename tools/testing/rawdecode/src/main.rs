// SPDX-License-Identifier: GPL-2.0

//! `rawdecode [--splice] FILE`: reads whole pages from a `trace_pipe_raw`
//! file (opened non-blocking) until none is left, with `read()` or, with
//! `--splice`, through a pipe as trace-cmd does, and decodes each page with
//! the module's own format code (`src/portable`), printing one line per
//! page and per event:
//!
//! ```text
//! page ts=<ns> commit=<bytes> missed=<0|1> stored=<count or ->
//! event ts=<ns> pid=<pid> <text as the trace file shows it>
//! ```
//!
//! With `--records DIR`, each event is printed as its record's bytes
//! instead: `record type=<common_type> <hex bytes>`, to compare records
//! byte by byte with the kernel's. The `format` files under `DIR/events`
//! say which bytes are the record's: padding between fields and after the
//! record's end (which the kernel's ring leaves as it was) prints as `..`.
//!
//! `rawdecode --drain FILE` (for the benchmarks) reads any file opened
//! non-blocking, 64 KiB at a time, until nothing is left, and prints
//! `<bytes> <nanoseconds taken>`.
//!
//! `rawdecode --poll MS FILE` polls FILE for input for up to MS
//! milliseconds and prints `readable` or `timeout`; `rawdecode --kick FILE`
//! calls `ioctl(fd, 0)` on it (which wakes `trace_pipe_raw`'s waiters) and
//! prints what it returned.

#![allow(dead_code)]

#[path = "../../../../src/portable/mod.rs"]
mod portable;

use portable::events::field::{Field, FilterType};
use portable::events::layout;
use portable::output::EntryHeader;
use std::collections::HashMap;
use portable::records;
use portable::ring_buffer::format::{self, PageDecoder};
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;

fn read_page(file: &mut File, page: &mut [u8; format::PAGE_SIZE]) -> io::Result<usize> {
    match file.read(page) {
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(0),
        other => other,
    }
}

fn splice_page(file: &File, pipe: &(File, File), page: &mut [u8; format::PAGE_SIZE]) -> io::Result<usize> {
    // SAFETY: plain system call on descriptors this program owns.
    let n = unsafe {
        libc::splice(
            file.as_raw_fd(),
            std::ptr::null_mut(),
            pipe.1.as_raw_fd(),
            std::ptr::null_mut(),
            format::PAGE_SIZE,
            libc::SPLICE_F_NONBLOCK,
        )
    };
    if n < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::WouldBlock { Ok(0) } else { Err(e) };
    }
    let mut got = 0;
    let mut reader = &pipe.0;
    while got < n as usize {
        got += reader.read(&mut page[got..n as usize])?;
    }
    Ok(got)
}

/// Function symbols of /proc/kallsyms, sorted by address, to name the
/// `ip` of print records as the kernel's `%ps` does (empty when the file
/// cannot be read: addresses then print in hex).
struct ProcKallsyms(Vec<(u64, String)>);

impl ProcKallsyms {
    fn load() -> Self {
        let text = std::fs::read_to_string("/proc/kallsyms").unwrap_or_default();
        let mut syms: Vec<(u64, String)> = text
            .lines()
            .filter_map(|line| {
                let mut f = line.split_whitespace();
                let addr = u64::from_str_radix(f.next()?, 16).ok()?;
                let kind = f.next()?;
                let name = f.next()?;
                (addr != 0 && matches!(kind, "t" | "T")).then(|| (addr, name.to_string()))
            })
            .collect();
        syms.sort();
        ProcKallsyms(syms)
    }
}

impl records::Symbols for ProcKallsyms {
    fn write_symbol(
        &self,
        out: &mut dyn std::fmt::Write,
        address: u64,
        offset: bool,
    ) -> Option<std::fmt::Result> {
        let i = self.0.partition_point(|(a, _)| *a <= address).checked_sub(1)?;
        let (start, name) = &self.0[i];
        Some(if offset {
            write!(out, "{name}+{:#x}", address - start)
        } else {
            out.write_str(name)
        })
    }
}

/// One field of a `format` file, owning its names.
struct FormatField {
    type_name: String,
    offset: u32,
    size: u32,
    len: u32,
}

impl FormatField {
    fn field(&self) -> Field<'_> {
        Field {
            type_name: &self.type_name,
            name: "",
            offset: self.offset,
            size: self.size,
            is_signed: false,
            filter_type: FilterType::Other,
            len: self.len,
        }
    }
}

/// Which bytes of an event's records are the record's, from its format.
struct Layout {
    fields: Vec<FormatField>,
    fixed_size: u32,
}

impl Layout {
    /// Reads `field:TYPE NAME;\toffset:N;\tsize:N;` lines, common fields
    /// left out.
    fn parse(text: &str, packed: bool) -> Layout {
        let mut fields = Vec::new();
        for line in text.lines() {
            let Some(rest) = line.trim().strip_prefix("field:") else {
                continue;
            };
            let mut parts = rest.split(';');
            let decl = parts.next().unwrap_or("").trim();
            let number = |key: &str, part: Option<&str>| -> Option<u32> {
                part?.trim().strip_prefix(key)?.parse().ok()
            };
            let (Some(offset), Some(size)) = (number("offset:", parts.next()), number("size:", parts.next())) else {
                continue;
            };
            if offset < 8 {
                continue;
            }
            let (type_name, name) = decl.rsplit_once(' ').unwrap_or(("", decl));
            let len = name
                .split_once('[')
                .and_then(|(_, n)| n.trim_end_matches(']').parse().ok())
                .unwrap_or(0);
            fields.push(FormatField { type_name: type_name.to_string(), offset, size, len });
        }
        let fixed_size = layout::fixed_size(fields.iter().map(|f| f.field()), packed);
        Layout { fields, fixed_size }
    }

    /// `payload` as hex, its padding and what follows its end as `..`.
    fn masked_hex(&self, payload: &[u8]) -> String {
        let len = layout::record_len(self.fields.iter().map(|f| f.field()), self.fixed_size, payload);
        let mut hidden = vec![false; payload.len()];
        for h in hidden.iter_mut().skip(len) {
            *h = true;
        }
        layout::for_each_gap(self.fields.iter().map(|f| f.field()), |start, end| {
            for h in hidden.iter_mut().take(end as usize).skip(start as usize) {
                *h = true;
            }
        });
        payload
            .iter()
            .zip(hidden)
            .map(|(b, h)| if h { "..".to_string() } else { format!("{b:02x}") })
            .collect()
    }
}

/// The layouts of the events under `dir/events`, by id.
fn load_layouts(dir: &str) -> HashMap<u16, Layout> {
    let mut layouts = HashMap::new();
    let Ok(systems) = std::fs::read_dir(format!("{dir}/events")) else {
        return layouts;
    };
    for system in systems.flatten() {
        let packed = system.file_name() == "syscalls";
        let Ok(events) = std::fs::read_dir(system.path()) else {
            continue;
        };
        for event in events.flatten() {
            let path = event.path();
            let id = std::fs::read_to_string(path.join("id")).ok().and_then(|t| t.trim().parse().ok());
            let format = std::fs::read_to_string(path.join("format"));
            if let (Some(id), Ok(format)) = (id, format) {
                layouts.insert(id, Layout::parse(&format, packed));
            }
        }
    }
    layouts
}

fn print_page(
    page: &[u8; format::PAGE_SIZE],
    symbols: &ProcKallsyms,
    layouts: Option<&HashMap<u16, Layout>>,
) -> Result<(), String> {
    let ts = u64::from_le_bytes(page[..8].try_into().map_err(|_| "short page")?);
    let commit = u64::from_le_bytes(page[8..16].try_into().map_err(|_| "short page")?);
    let len = (commit & 0x3fff_ffff) as usize;
    if len > format::PAGE_DATA_SIZE {
        return Err(format!("commit {commit:#x} larger than a page"));
    }
    let stored = if commit & format::MISSED_STORED != 0 {
        let at = format::PAGE_HEADER_SIZE + len;
        u64::from_le_bytes(page[at..at + 8].try_into().map_err(|_| "no room for the count")?).to_string()
    } else {
        "-".to_string()
    };
    println!("page ts={ts} commit={len} missed={} stored={stored}", u8::from(commit & format::MISSED_EVENTS != 0));
    let data = &page[format::PAGE_HEADER_SIZE..format::PAGE_HEADER_SIZE + len];
    for record in PageDecoder::new(data, ts) {
        let record = record.map_err(|e| format!("bad event: {e:?}"))?;
        let header = EntryHeader::from_bytes(record.payload).ok_or("record without a header")?;
        if let Some(layouts) = layouts {
            let hex = match layouts.get(&header.kind) {
                Some(layout) => layout.masked_hex(record.payload),
                None => record.payload.iter().map(|b| format!("{b:02x}")).collect(),
            };
            println!("record type={} {hex}", header.kind);
            continue;
        }
        let mut text = String::new();
        let cx = records::PrintContext {
            symbols,
            style: Default::default(),
            print_parent: true,
        };
        records::write_text_body(&mut text, &header, record.payload, &cx).map_err(|_| "format")?;
        print!("event ts={} pid={} {text}", record.ts, header.pid);
    }
    Ok(())
}

/// Reads `path` (non-blocking) until empty; returns the bytes read and the
/// nanoseconds that took.
fn drain(path: &str) -> io::Result<(u64, u128)> {
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let mut chunk = vec![0u8; 65536];
    let mut total = 0u64;
    let start = std::time::Instant::now();
    loop {
        match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) => return Err(e),
        }
    }
    Ok((total, start.elapsed().as_nanos()))
}

/// Polls `path` for input for up to `ms` milliseconds.
fn poll_for_input(path: &str, ms: i32) -> io::Result<bool> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let mut fds = [libc::pollfd {
        fd: file.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    }];
    // SAFETY: `fds` is one valid pollfd.
    match unsafe { libc::poll(fds.as_mut_ptr(), 1, ms) } {
        n if n < 0 => Err(io::Error::last_os_error()),
        n => Ok(n > 0 && fds[0].revents & libc::POLLIN != 0),
    }
}

/// `ioctl(fd, 0)` on `path`: its result, or the errno.
fn kick(path: &str) -> io::Result<i32> {
    let file = std::fs::OpenOptions::new().read(true).open(path)?;
    // SAFETY: an ioctl without an argument on a descriptor owned here.
    match unsafe { libc::ioctl(file.as_raw_fd(), 0) } {
        r if r < 0 => Err(io::Error::last_os_error()),
        r => Ok(r),
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() == 3 && args[0] == "--poll" {
        let ms = args[1].parse().unwrap_or(0);
        match poll_for_input(&args[2], ms) {
            Ok(readable) => println!("{}", if readable { "readable" } else { "timeout" }),
            Err(e) => {
                eprintln!("rawdecode: {}: {e}", args[2]);
                std::process::exit(1);
            }
        }
        return;
    }
    if args.len() == 2 && args[0] == "--kick" {
        match kick(&args[1]) {
            Ok(r) => println!("{r}"),
            Err(e) => {
                eprintln!("rawdecode: {}: {e}", args[1]);
                std::process::exit(1);
            }
        }
        return;
    }
    if args.len() == 2 && args[0] == "--drain" {
        match drain(&args[1]) {
            Ok((bytes, ns)) => println!("{bytes} {ns}"),
            Err(e) => {
                eprintln!("rawdecode: {}: {e}", args[1]);
                std::process::exit(1);
            }
        }
        return;
    }
    let splice = args.first().is_some_and(|a| a == "--splice");
    if splice {
        args.remove(0);
    }
    let layouts = if args.first().is_some_and(|a| a == "--records") && args.len() >= 3 {
        args.remove(0);
        Some(load_layouts(&args.remove(0)))
    } else {
        None
    };
    let Some(path) = args.first() else {
        eprintln!("usage: rawdecode [--splice] [--records DIR] FILE");
        std::process::exit(2);
    };
    let run = || -> Result<(), String> {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| format!("{path}: {e}"))?;
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors.
        if splice && unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err("pipe failed".into());
        }
        // SAFETY: the descriptors were just made and are owned here.
        let pipe = splice.then(|| unsafe {
            use std::os::unix::io::FromRawFd;
            (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1]))
        });
        let mut page = [0u8; format::PAGE_SIZE];
        let symbols = ProcKallsyms::load();
        loop {
            let n = match &pipe {
                Some(pipe) => splice_page(&file, pipe, &mut page),
                None => read_page(&mut file, &mut page),
            }
            .map_err(|e| format!("reading {path}: {e}"))?;
            if n == 0 {
                return Ok(());
            }
            if n != format::PAGE_SIZE {
                return Err(format!("short page: {n} bytes"));
            }
            print_page(&page, &symbols, layouts.as_ref())?;
        }
    };
    if let Err(e) = run() {
        eprintln!("rawdecode: {e}");
        std::process::exit(1);
    }
}
