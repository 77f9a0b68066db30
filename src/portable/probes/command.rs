// SPDX-License-Identifier: GPL-2.0

//! One line written to `kprobe_events`, `uprobe_events` or
//! `dynamic_events`, read as the kernel reads it.
//!
//! The kernel splits a write into lines, cuts each at `#`
//! (`trace_parse_run_command()`), and gives the line to the file's command
//! function:
//!
//! - `kprobe_events`: `create_or_delete_trace_kprobe()`: a line starting
//!   with `-` removes kprobe events (`dyn_event_release()`), anything else
//!   goes to `__trace_kprobe_create()`; a command the parser does not take
//!   (`-ECANCELED`) is `-EINVAL`, with nothing logged.
//! - `uprobe_events`: the same with `__trace_uprobe_create()`.
//! - `dynamic_events`: `create_dyn_event()`: `-` or `!` removes any dynamic
//!   event; else each registered parser is tried in turn (kprobe, fprobe,
//!   uprobe: their registration order) until one does not return
//!   `-ECANCELED`; if none takes it, `dynevent` logs "No matching dynamic
//!   event type" under the line as written, caret at 0, and it is `-EINVAL`.
//!
//! Words are split as `argv_split()` splits them (the kernel's `isspace()`),
//! and errors are logged under the words joined by single spaces, the caret
//! where `__trace_probe_log_err()` puts it. Argument words are handed out
//! as they are; their bodies are another parser's.

use core::fmt::{self, Write};
use core::ops::Range;

use super::errors::{ProbeError, ProbeErrorCode};
use super::fetch::MAX_TRACE_ARGS;
use super::listing::ListedProbe;
use super::names::{
    self, is_space, parse_event_name, EventNames, Name, FPROBE_GROUP, KPROBE_GROUP,
    TRACEPOINT_GROUP, UPROBE_GROUP,
};
use super::place::{
    kstrtouint, parse_fprobe_place, parse_kprobe_place, parse_uprobe_place, ArgFlags, Place,
    PlaceError, PlaceResolver, EINVAL,
};

/// `ENOENT`: a removal that matched no event.
pub(crate) const ENOENT: i32 = 2;
/// `E2BIG`: too many arguments.
pub(crate) const E2BIG: i32 = 7;

/// The kernel's `KRETPROBE_MAXACTIVE_MAX`.
pub(crate) const KRETPROBE_MAXACTIVE_MAX: u32 = 4096;

/// Which file the line was written to.
// The variants are named after the files.
#[allow(clippy::enum_variant_names)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// `kprobe_events`.
    KprobeEvents,
    /// `uprobe_events`.
    UprobeEvents,
    /// `dynamic_events`.
    DynamicEvents,
}

/// The `error_log` location of an error (`trace_probe_log_init()`'s
/// subsystem, or `dynevent`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Subsystem {
    /// `trace_kprobe`: the kprobe parser's errors.
    TraceKprobe,
    /// `trace_uprobe`: the uprobe parser's errors.
    TraceUprobe,
    /// `trace_fprobe`: the fprobe parser's errors.
    TraceFprobe,
    /// `dynevent`: a `dynamic_events` line no parser took.
    Dynevent,
}

impl Subsystem {
    /// The name `error_log` shows.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Subsystem::TraceKprobe => "trace_kprobe",
            Subsystem::TraceUprobe => "trace_uprobe",
            Subsystem::TraceFprobe => "trace_fprobe",
            Subsystem::Dynevent => "dynevent",
        }
    }
}

/// Which kind of dynamic event (which `dyn_event_operations`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    /// kprobe events (`trace_kprobe_ops`).
    Kprobe,
    /// uprobe events (`trace_uprobe_ops`).
    Uprobe,
    /// fprobe and tracepoint probe events (`trace_fprobe_ops`).
    Fprobe,
}

/// What a probe command adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProbeKind {
    /// `p` at a kernel address or symbol.
    Kprobe,
    /// `r`, or `p ...%return`.
    Kretprobe,
    /// `f` at a function's entry.
    Fprobe,
    /// `f ...%return`, or `f` with `$retval` in its arguments.
    FprobeReturn,
    /// `t` at a tracepoint.
    Tprobe,
    /// `p PATH:OFFSET`.
    Uprobe,
    /// `r PATH:OFFSET`, or `p PATH:OFFSET%return`.
    Uretprobe,
}

impl ProbeKind {
    /// Whether it fires at a function's return.
    pub(crate) fn is_return(self) -> bool {
        matches!(
            self,
            ProbeKind::Kretprobe | ProbeKind::FprobeReturn | ProbeKind::Uretprobe
        )
    }

    /// Which kind of dynamic event it makes.
    pub(crate) fn family(self) -> Family {
        match self {
            ProbeKind::Kprobe | ProbeKind::Kretprobe => Family::Kprobe,
            ProbeKind::Fprobe | ProbeKind::FprobeReturn | ProbeKind::Tprobe => Family::Fprobe,
            ProbeKind::Uprobe | ProbeKind::Uretprobe => Family::Uprobe,
        }
    }

    /// The subsystem its errors are logged under.
    pub(crate) fn subsystem(self) -> Subsystem {
        match self.family() {
            Family::Kprobe => Subsystem::TraceKprobe,
            Family::Uprobe => Subsystem::TraceUprobe,
            Family::Fprobe => Subsystem::TraceFprobe,
        }
    }
}

/// The message of a logged error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LogMessage {
    /// One of the probe errors (`trace_probe_err_text`).
    Probe(ProbeErrorCode),
    /// Two probe errors at the same place, in this order: two entries.
    ProbeTwice(ProbeErrorCode, ProbeErrorCode),
    /// `dynevent`'s "No matching dynamic event type".
    NoMatchingType,
}

impl LogMessage {
    /// The message of a probe error and the one it logs after it, if any.
    pub(crate) const fn probe(error: &ProbeError) -> Self {
        match error.also {
            Some(then) => LogMessage::ProbeTwice(error.code, then),
            None => LogMessage::Probe(error.code),
        }
    }

    /// The texts `error_log` shows, in order (the second one, if any,
    /// is a second entry).
    pub(crate) const fn texts(self) -> (&'static str, Option<&'static str>) {
        match self {
            LogMessage::Probe(code) => (code.message(), None),
            LogMessage::ProbeTwice(code, then) => (code.message(), Some(then.message())),
            LogMessage::NoMatchingType => ("No matching dynamic event type", None),
        }
    }
}

/// Which text an error is logged under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LoggedText {
    /// The words joined by single spaces ([`write_logged_command`]).
    Words,
    /// The line as written, up to its `#` ([`command_text`]).
    Raw,
}

/// An `error_log` entry the kernel makes for a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LoggedError {
    /// Its location.
    pub(crate) subsystem: Subsystem,
    /// Its message.
    pub(crate) message: LogMessage,
    /// The caret's byte offset in the logged text.
    pub(crate) pos: usize,
    /// Which text is logged.
    pub(crate) text: LoggedText,
}

/// A refused command: its errno (positive) and what the kernel logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CommandError {
    /// What the write returns (negated).
    pub(crate) errno: i32,
    /// The `error_log` entry, if the kernel makes one.
    pub(crate) log: Option<LoggedError>,
}

impl CommandError {
    /// Refused without a log entry.
    const fn silent(errno: i32) -> Self {
        CommandError { errno, log: None }
    }
}

/// The line as the command function sees it: up to the first NUL (a C
/// string) and the first `#` (a comment, cut by
/// `trace_parse_run_command()`).
pub(crate) fn command_text(line: &[u8]) -> &[u8] {
    let end = line
        .iter()
        .position(|&b| b == 0 || b == b'#')
        .unwrap_or(line.len());
    &line[..end]
}

/// The words of a line, as `argv_split()` splits it, each with where it
/// starts in the line.
#[derive(Clone)]
pub(crate) struct Words<'a> {
    line: &'a [u8],
    at: usize,
}

impl<'a> Words<'a> {
    /// The words of `line` (after [`command_text`]).
    pub(crate) fn new(line: &'a [u8]) -> Self {
        Words {
            line: command_text(line),
            at: 0,
        }
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = (usize, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.line.get(self.at..)?;
        let start = self.at + rest.iter().position(|&b| !is_space(b))?;
        let len = self.line[start..]
            .iter()
            .position(|&b| is_space(b))
            .unwrap_or(self.line.len() - start);
        self.at = start + len;
        Some((start, &self.line[start..start + len]))
    }
}

/// Where the kernel's caret goes for an error at byte `offset` of word
/// `index` (`__trace_probe_log_err()`): the lengths of the earlier words,
/// plus one separator each, plus `offset`. Past the last word it is the
/// length of all words plus one separator each, whatever `offset` is.
pub(crate) fn logged_position(line: &[u8], index: usize, offset: usize) -> usize {
    let mut pos = 0;
    for (i, (_, word)) in Words::new(line).enumerate() {
        if i == index {
            return pos + offset;
        }
        pos += word.len() + 1;
    }
    pos
}

/// The length of the logged command: the words joined by single spaces.
pub(crate) fn logged_len(line: &[u8]) -> usize {
    Words::new(line)
        .map(|(_, w)| w.len() + 1)
        .sum::<usize>()
        .saturating_sub(1)
}

/// Writes the logged command: the words joined by single spaces.
pub(crate) fn write_logged_command(line: &[u8], out: &mut dyn Write) -> fmt::Result {
    for (i, (_, word)) in Words::new(line).enumerate() {
        if i > 0 {
            out.write_char(' ')?;
        }
        names::write_bytes(out, word)?;
    }
    Ok(())
}

/// Copies the logged command into `buf`, as much as fits; returns how many
/// bytes were written. Bytes are copied as they are.
pub(crate) fn copy_logged_command(line: &[u8], buf: &mut [u8]) -> usize {
    let mut used = 0;
    for (i, (_, word)) in Words::new(line).enumerate() {
        let sep: &[u8] = if i > 0 { b" " } else { b"" };
        for &b in sep.iter().chain(word) {
            let Some(slot) = buf.get_mut(used) else {
                return used;
            };
            *slot = b;
            used += 1;
        }
    }
    used
}

/// One argument word of a probe command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ArgWord<'a> {
    /// Its index among the arguments (0 for the first).
    pub(crate) index: usize,
    /// Its text, `[NAME=]BODY[:TYPE]`.
    pub(crate) text: &'a [u8],
    /// Where it starts in the logged command: add the offset of an error in
    /// the word to get the caret.
    pub(crate) logged_offset: usize,
}

/// The argument words of a line: all words after the first two.
fn arg_words(line: &[u8]) -> impl Iterator<Item = ArgWord<'_>> {
    let mut logged = 0;
    Words::new(line)
        .enumerate()
        .filter_map(move |(i, (_, text))| {
            let offset = logged;
            logged += text.len() + 1;
            i.checked_sub(2).map(|index| ArgWord {
                index,
                text,
                logged_offset: offset,
            })
        })
}

/// A command that adds a probe event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProbeCommand {
    /// What it adds.
    pub(crate) kind: ProbeKind,
    /// `r[MAXACTIVE]` (0: the default).
    pub(crate) maxactive: u32,
    /// The group (the kind's default group when none is given).
    pub(crate) group: Name,
    /// The event, when the command names it (see
    /// [`ProbeCommand::event_name`]).
    pub(crate) event: Option<Name>,
    /// Where.
    pub(crate) place: Place,
    /// The flags the argument parser works with.
    pub(crate) flags: ArgFlags,
    /// How many argument words follow the place.
    pub(crate) nr_args: usize,
    /// An error the kernel logs although it goes on with the command
    /// (`$arg*` without BTF: NOSUP_BTFARG, see
    /// `traceprobe_expand_meta_args()`): log it, then go on.
    pub(crate) notice: Option<LoggedError>,
}

impl ProbeCommand {
    /// The subsystem its later errors (arguments, registration) are logged
    /// under.
    pub(crate) fn subsystem(&self) -> Subsystem {
        self.kind.subsystem()
    }

    /// The argument words, from the same `line` given to
    /// [`parse_command`].
    pub(crate) fn args<'a>(&self, line: &'a [u8]) -> impl Iterator<Item = ArgWord<'a>> {
        arg_words(line)
    }

    /// The event's name: the one given, or the one the kernel makes. For a
    /// kprobe at an address the kernel prints the address with `%p`;
    /// `pointer_text` is that text (unused otherwise). `line` is the line
    /// given to [`parse_command`].
    pub(crate) fn event_name(&self, line: &[u8], pointer_text: &[u8]) -> Name {
        if let Some(event) = self.event {
            return event;
        }
        let text = |range: &Range<usize>| line.get(range.clone()).unwrap_or(&[]);
        let is_return = self.kind.is_return();
        match &self.place {
            Place::Address(_) => names::kprobe_address_event_name(is_return, pointer_text),
            Place::Symbol { symbol, offset } => {
                names::kprobe_symbol_event_name(is_return, text(symbol), i64::from(*offset))
            }
            Place::Function { symbol } => names::fprobe_event_name(is_return, text(symbol)),
            Place::Tracepoint { name } => names::tprobe_event_name(text(name)),
            Place::File { path, offset, .. } => names::uprobe_event_name(text(path), *offset),
        }
    }
}

/// A command that removes events: `-:[GRP/]EVENT [PLACE [ARGS...]]`, or in
/// `dynamic_events` also `!...:[GRP/]EVENT ...` (`dyn_event_release()`).
/// It removes every event that [`RemoveCommand::matches`], in list order;
/// none matching is `ENOENT`, and the first event that cannot go (`EBUSY`
/// while enabled) stops the removal with its errno. Nothing is logged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RemoveCommand {
    /// Only events of this kind (`kprobe_events`, `uprobe_events`), or any.
    pub(crate) family: Option<Family>,
    /// The group, if given (as a range of the line).
    pub(crate) group: Option<Range<usize>>,
    /// The event (a range of the line); empty with a group: all the
    /// group's events.
    pub(crate) event: Range<usize>,
}

impl RemoveCommand {
    /// The group, if given, from the same `line` given to
    /// [`parse_command`].
    pub(crate) fn group_text<'a>(&self, line: &'a [u8]) -> Option<&'a [u8]> {
        self.group.clone().and_then(|g| line.get(g))
    }

    /// The event (empty: every event of the group).
    pub(crate) fn event_text<'a>(&self, line: &'a [u8]) -> &'a [u8] {
        line.get(self.event.clone()).unwrap_or(&[])
    }

    /// Whether `probe` is to be removed (the ops' `match()`): its kind,
    /// event (unless empty), group (if given), then the place and the
    /// arguments, if given, as the listing shows them (`name=comm`, a
    /// prefix of the event's arguments).
    pub(crate) fn matches(&self, line: &[u8], probe: &ListedProbe<'_>) -> bool {
        let text = |range: &Range<usize>| line.get(range.clone()).unwrap_or(&[]);
        if self.family.is_some_and(|f| f != probe.family()) {
            return false;
        }
        let event = text(&self.event);
        if !event.is_empty() && event != probe.event {
            return false;
        }
        if self.group.as_ref().is_some_and(|g| text(g) != probe.group) {
            return false;
        }
        let mut words = Words::new(line).skip(1).map(|(_, w)| w);
        let Some(head) = words.next() else {
            return true;
        };
        if !probe.head_matches(head) {
            return false;
        }
        let mut count = 0;
        for (i, word) in words.enumerate() {
            count += 1;
            if count > probe.args.count() {
                return false;
            }
            let name = probe.args.name(i);
            let comm = probe.args.comm(i);
            let matched = word.len() == name.len() + 1 + comm.len()
                && word.starts_with(name)
                && word[name.len()] == b'='
                && &word[name.len() + 1..] == comm;
            if !matched {
                return false;
            }
        }
        true
    }
}

/// What a line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Command {
    /// Nothing (an empty line, white space, a comment).
    Empty,
    /// Add a probe event.
    Add(ProbeCommand),
    /// Remove events.
    Remove(RemoveCommand),
}

/// Reads one line written to `source` as the kernel does; `resolver`
/// answers what only the kernel knows, asked when the kernel asks it.
pub(crate) fn parse_command(
    line: &[u8],
    source: Source,
    resolver: &mut dyn PlaceResolver,
) -> Result<Command, CommandError> {
    let line = command_text(line);
    let removal = match source {
        Source::DynamicEvents => matches!(line.first(), Some(b'-' | b'!')),
        Source::KprobeEvents | Source::UprobeEvents => line.first() == Some(&b'-'),
    };
    if removal {
        let family = match source {
            Source::KprobeEvents => Some(Family::Kprobe),
            Source::UprobeEvents => Some(Family::Uprobe),
            Source::DynamicEvents => None,
        };
        return parse_removal(line, family).map(Command::Remove);
    }
    if Words::new(line).next().is_none() {
        return Ok(Command::Empty);
    }
    let parsed = match source {
        Source::KprobeEvents => parse_kprobe(line, resolver),
        Source::UprobeEvents => parse_uprobe(line, resolver),
        Source::DynamicEvents => {
            let mut parsed = parse_kprobe(line, resolver);
            if parsed == Err(Parse::Cancel) && resolver.has_fprobe_events() {
                parsed = parse_fprobe(line);
            }
            if parsed == Err(Parse::Cancel) {
                parsed = parse_uprobe(line, resolver);
            }
            if parsed == Err(Parse::Cancel) {
                return Err(CommandError {
                    errno: EINVAL,
                    log: Some(LoggedError {
                        subsystem: Subsystem::Dynevent,
                        message: LogMessage::NoMatchingType,
                        pos: 0,
                        text: LoggedText::Raw,
                    }),
                });
            }
            parsed
        }
    };
    match parsed {
        Ok(probe) => Ok(Command::Add(probe)),
        Err(Parse::Cancel) => Err(CommandError::silent(EINVAL)),
        Err(Parse::Refused(error)) => Err(error),
    }
}

/// A parser's answer other than a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Parse {
    /// `-ECANCELED`: another parser's command.
    Cancel,
    /// Refused.
    Refused(CommandError),
}

/// The log of one parser: the subsystem and the line, to place carets.
struct Log<'a> {
    subsystem: Subsystem,
    line: &'a [u8],
}

impl Log<'_> {
    /// `trace_probe_log_set_index(index)` then `trace_probe_log_err(offset,
    /// code)`, returning `errno`.
    fn err(&self, index: usize, offset: usize, code: ProbeErrorCode, errno: i32) -> Parse {
        Parse::Refused(CommandError {
            errno,
            log: Some(self.entry(index, offset, code)),
        })
    }

    fn entry(&self, index: usize, offset: usize, code: ProbeErrorCode) -> LoggedError {
        LoggedError {
            subsystem: self.subsystem,
            message: LogMessage::Probe(code),
            pos: logged_position(self.line, index, offset),
            text: LoggedText::Words,
        }
    }

    /// A place error of word 1.
    fn place(&self, error: PlaceError) -> Parse {
        match error {
            PlaceError::Cancel => Parse::Cancel,
            PlaceError::Refused(ProbeError { code, pos, .. }, errno) => {
                self.err(1, pos, code, errno)
            }
        }
    }

    /// `traceprobe_parse_event_name()` on `argv[0][at..]`, logged at word 0.
    fn names(&self, word0: &[u8], at: usize) -> Result<EventNames, Parse> {
        let text = word0.get(at..).unwrap_or(&[]);
        parse_event_name(text, at).map_err(|e| self.err(0, e.pos, e.code, EINVAL))
    }
}

/// The first two words of a command and how many follow them.
struct Head<'a> {
    /// `argv[0]`.
    word0: &'a [u8],
    /// `argv[1]`.
    word1: &'a [u8],
    /// Where `argv[1]` starts in the line.
    start1: usize,
    /// `argc - 2`.
    nr_args: usize,
}

/// The first two words, or `Cancel` if there are fewer.
fn head(line: &[u8]) -> Result<Head<'_>, Parse> {
    let mut words = Words::new(line);
    let (_, word0) = words.next().ok_or(Parse::Cancel)?;
    let (start1, word1) = words.next().ok_or(Parse::Cancel)?;
    Ok(Head {
        word0,
        word1,
        start1,
        nr_args: words.count(),
    })
}

/// `r[MAXACTIVE]`: checks of `__trace_kprobe_create()`. `colon` is where
/// the first `:` after the first byte is.
fn parse_maxactive(
    log: &Log<'_>,
    word0: &[u8],
    is_return: bool,
    colon: Option<usize>,
) -> Result<u32, Parse> {
    if !word0.get(1).is_some_and(u8::is_ascii_digit) {
        return Ok(0);
    }
    if !is_return {
        return Err(log.err(0, 1, ProbeErrorCode::BadMaxactType, EINVAL));
    }
    let end = colon.unwrap_or(word0.len());
    let digits = word0.get(1..end).unwrap_or(&[]);
    if digits.len() > names::MAX_EVENT_NAME_LEN - 1 {
        return Err(log.err(0, 1, ProbeErrorCode::BadMaxact, EINVAL));
    }
    let maxactive = match kstrtouint(digits) {
        Ok(n) if n != 0 => n,
        _ => return Err(log.err(0, 1, ProbeErrorCode::BadMaxact, EINVAL)),
    };
    if maxactive > KRETPROBE_MAXACTIVE_MAX {
        return Err(log.err(0, 1, ProbeErrorCode::MaxactTooBig, EINVAL));
    }
    Ok(maxactive)
}

/// `argv_has_var_arg()` and, without BTF, what
/// `traceprobe_expand_meta_args()` logs: `$arg*` needs BTF
/// (NOSUP_BTFARG, logged at the last `$arg` word, yet the kernel goes on).
fn check_meta_args(log: &Log<'_>, flags: ArgFlags) -> Result<Option<LoggedError>, Parse> {
    let mut args_idx = None;
    let mut last = None;
    for arg in arg_words(log.line) {
        let Some(rest) = arg.text.strip_prefix(b"$arg") else {
            continue;
        };
        let index = arg.index + 2;
        last = Some(index);
        if !flags.is_function_entry() && !flags.is_function_return() {
            return Err(log.err(index, 0, ProbeErrorCode::NofentryArgs, EINVAL));
        }
        match rest.first() {
            Some(b) if b.is_ascii_digit() => continue,
            Some(b'*') => {}
            _ => return Err(log.err(index, 0, ProbeErrorCode::BadVar, EINVAL)),
        }
        if args_idx.is_some() {
            return Err(log.err(index, 0, ProbeErrorCode::DoubleArgs, EINVAL));
        }
        args_idx = Some(arg.index);
    }
    Ok(match (args_idx, last) {
        (Some(_), Some(index)) => Some(log.entry(index, 0, ProbeErrorCode::NosupBtfarg)),
        _ => None,
    })
}

/// `nr_args > MAX_TRACE_ARGS`: TOO_MANY_ARGS at the first argument.
fn check_arg_count(log: &Log<'_>, nr_args: usize) -> Result<(), Parse> {
    if nr_args > MAX_TRACE_ARGS {
        return Err(log.err(2, 0, ProbeErrorCode::TooManyArgs, E2BIG));
    }
    Ok(())
}

/// A group name that is known to fit.
fn default_group(name: &[u8]) -> Name {
    Name::truncated(name)
}

/// `__trace_kprobe_create()` up to its argument parsing.
fn parse_kprobe(line: &[u8], resolver: &mut dyn PlaceResolver) -> Result<ProbeCommand, Parse> {
    let log = Log {
        subsystem: Subsystem::TraceKprobe,
        line,
    };
    // Both a first byte other than `p`/`r` and fewer than two words cancel.
    let Head {
        word0,
        word1,
        start1,
        nr_args,
    } = head(line)?;
    let is_return = match word0.first() {
        Some(b'r') => true,
        Some(b'p') => false,
        _ => return Err(Parse::Cancel),
    };
    let colon = word0.iter().skip(1).position(|&b| b == b':').map(|i| i + 1);
    let maxactive = parse_maxactive(&log, word0, is_return, colon)?;
    let place = parse_kprobe_place(word1, start1, is_return, resolver).map_err(|e| log.place(e))?;
    let names = match colon {
        Some(colon) => log.names(word0, colon + 1)?,
        None => EventNames {
            group: None,
            event: None,
        },
    };
    let notice = check_meta_args(&log, place.flags)?;
    check_arg_count(&log, nr_args)?;
    Ok(ProbeCommand {
        kind: if place.is_return {
            ProbeKind::Kretprobe
        } else {
            ProbeKind::Kprobe
        },
        maxactive,
        group: names.group.unwrap_or_else(|| default_group(KPROBE_GROUP)),
        event: names.event,
        place: place.place,
        flags: place.flags,
        nr_args,
        notice,
    })
}

/// `__trace_uprobe_create()` up to its argument parsing.
fn parse_uprobe(line: &[u8], resolver: &mut dyn PlaceResolver) -> Result<ProbeCommand, Parse> {
    let log = Log {
        subsystem: Subsystem::TraceUprobe,
        line,
    };
    let Head {
        word0,
        word1,
        start1,
        nr_args,
    } = head(line)?;
    let mut is_return = match word0.first() {
        Some(b'r') => true,
        Some(b'p') => false,
        _ => return Err(Parse::Cancel),
    };
    check_arg_count(&log, nr_args)?;
    let place = parse_uprobe_place(word1, start1, resolver).map_err(|e| log.place(e))?;
    is_return |= place.percent_return;
    let names = if word0.get(1) == Some(&b':') {
        log.names(word0, 2)?
    } else {
        EventNames {
            group: None,
            event: None,
        }
    };
    Ok(ProbeCommand {
        kind: if is_return {
            ProbeKind::Uretprobe
        } else {
            ProbeKind::Uprobe
        },
        maxactive: 0,
        group: names.group.unwrap_or_else(|| default_group(UPROBE_GROUP)),
        event: names.event,
        place: place.place,
        flags: ArgFlags {
            is_return,
            user: true,
            ..ArgFlags::default()
        },
        nr_args,
        notice: None,
    })
}

/// Where `$retval` stands alone in an argument word (not `$retvalx`), as
/// `parse_symbol_and_return()` looks for it: only its first occurrence.
fn retval_position(word: &[u8]) -> Option<usize> {
    const RETVAL: &[u8] = b"$retval";
    let at = word.windows(RETVAL.len()).position(|w| w == RETVAL)?;
    match word.get(at + RETVAL.len()) {
        Some(&b) if names::is_alnum(b) || b == b'_' => None,
        _ => Some(at),
    }
}

/// `trace_fprobe_create_internal()` up to its argument parsing.
fn parse_fprobe(line: &[u8]) -> Result<ProbeCommand, Parse> {
    let log = Log {
        subsystem: Subsystem::TraceFprobe,
        line,
    };
    let Head {
        word0,
        word1,
        start1,
        nr_args,
    } = head(line)?;
    let tracepoint = match word0.first() {
        Some(b'f') => false,
        Some(b't') => true,
        _ => return Err(Parse::Cancel),
    };
    let names_at = match word0.get(1) {
        None => None,
        Some(b':') => Some(2),
        Some(_) => return Err(log.err(0, 1, ProbeErrorCode::BadMaxact, EINVAL)),
    };
    let (place, mut is_return) =
        parse_fprobe_place(word1, start1, tracepoint).map_err(|e| log.place(e))?;
    if !is_return {
        for arg in arg_words(line) {
            let Some(at) = retval_position(arg.text) else {
                continue;
            };
            if tracepoint {
                return Err(log.err(arg.index + 2, at, ProbeErrorCode::RetvalOnProbe, EINVAL));
            }
            is_return = true;
            break;
        }
    }
    let names = match names_at {
        Some(at) => log.names(word0, at)?,
        None => EventNames {
            group: None,
            event: None,
        },
    };
    let flags = ArgFlags {
        is_return,
        kernel: true,
        fentry: !is_return,
        fprobe: true,
        tpoint: tracepoint,
        ..ArgFlags::default()
    };
    let notice = check_meta_args(&log, flags)?;
    check_arg_count(&log, nr_args)?;
    let default = if tracepoint {
        TRACEPOINT_GROUP
    } else {
        FPROBE_GROUP
    };
    Ok(ProbeCommand {
        kind: match (tracepoint, is_return) {
            (true, _) => ProbeKind::Tprobe,
            (false, true) => ProbeKind::FprobeReturn,
            (false, false) => ProbeKind::Fprobe,
        },
        maxactive: 0,
        group: names.group.unwrap_or_else(|| default_group(default)),
        event: names.event,
        place,
        flags,
        nr_args,
        notice,
    })
}

/// `dyn_event_release()` up to its matching: `-:[GRP/]EVENT` or
/// `...:[GRP/]EVENT` (`!` in `dynamic_events`). Malformed is `EINVAL`,
/// not logged.
fn parse_removal(line: &[u8], family: Option<Family>) -> Result<RemoveCommand, CommandError> {
    let invalid = CommandError::silent(EINVAL);
    let (start, word0) = Words::new(line).next().ok_or(invalid)?;
    let event_at = if word0.first() == Some(&b'-') {
        if word0.get(1) != Some(&b':') {
            return Err(invalid);
        }
        2
    } else {
        word0.iter().position(|&b| b == b':').ok_or(invalid)? + 1
    };
    let text = &word0[event_at..];
    let (group, event) = match text.iter().position(|&b| b == b'/') {
        Some(slash) => (
            Some(start + event_at..start + event_at + slash),
            start + event_at + slash + 1..start + word0.len(),
        ),
        None => (None, start + event_at..start + word0.len()),
    };
    if group.is_none() && event.is_empty() {
        return Err(invalid);
    }
    Ok(RemoveCommand {
        family,
        group,
        event,
    })
}

#[cfg(test)]
mod tests;
