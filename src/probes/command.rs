// SPDX-License-Identifier: GPL-2.0

//! Carrying out what is written to `kprobe_events`, `uprobe_events` and
//! `dynamic_events`, as the kernel's `trace_parse_run_command` and its
//! command functions do: each line in turn, stopping at the first refused
//! one, with the kernel's `error_log` entry and errno; and the files'
//! listings and profiles.

use super::args::EventArgs;
use super::attach::{KernelPlace, KernelProbe};
use super::event::{ProbeEvent, ProbeKind};
use super::point::{Attachment, PlaceText, Point, PointHandler};
use super::recorder::{Recorder, Space};
use super::registry::{self, Registry};
use super::resolver::KernelResolver;
use super::text::TextOut;
use super::tracepoint_attach::TracepointProbe;
use super::uprobe_attach::UserProbe;
use crate::events::catalog::{self, Event};
use crate::instance::Instance;
use crate::kernel_api::dcache;
use crate::kernel_api::trace_events::RegisteredType;
use crate::portable::input::InputError;
use crate::portable::probes::arg_words::{self, DentryOffsets};
use crate::portable::probes::command::{
    self as grammar, Command, CommandError, LogMessage, LoggedError, LoggedText, ProbeCommand,
    RemoveCommand, Source as GrammarSource, Subsystem,
};
use crate::portable::probes::errors::{ProbeError, ProbeErrorCode};
use crate::portable::probes::fetch::{self, ArgSpec, ParseContext};
use crate::portable::probes::format::{self, PrintType};
use crate::portable::probes::listing::{self, ListedProbe};
use crate::portable::probes::names::Name;
use crate::portable::probes::place::Place;
use crate::portable::sort::heap_sort;
use core::fmt::{self, Write};
use kernel::{prelude::*, sync::Arc};

/// Which file a command was written to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    Kprobe,
    Uprobe,
    Dynamic,
}

impl Source {
    fn grammar(self) -> GrammarSource {
        match self {
            Source::Kprobe => GrammarSource::KprobeEvents,
            Source::Uprobe => GrammarSource::UprobeEvents,
            Source::Dynamic => GrammarSource::DynamicEvents,
        }
    }
}

/// The longest line the kernel takes (`WRITE_BUFSIZE - 2`).
const MAX_LINE: usize = 4094;

// Errnos the kernel returns.
const EINVAL_ERRNO: i32 = 22;
const ENOMEM_ERRNO: i32 = 12;
const EEXIST_ERRNO: i32 = 17;

/// Runs the commands of `text`, a write to the file `source`, line by
/// line; the first refused one ends the write with its errno (logged in
/// `instance`'s `error_log` where the kernel logs it).
pub(crate) fn run(instance: &Instance, source: Source, text: &[u8]) -> Result<(), InputError> {
    // The kernel reads a write as a C string: a NUL ends it, and the
    // line it cuts short is refused ("Line length is too long", in the
    // kernel log only) after the whole lines before it have run.
    if let Some(nul) = text.iter().position(|&b| b == 0) {
        let whole = text[..nul].iter().rposition(|&b| b == b'\n');
        if let Some(end) = whole {
            run(instance, source, &text[..end])?;
        }
        return Err(InputError::Kernel(EINVAL_ERRNO));
    }
    for line in text.split(|&b| b == b'\n') {
        // The kernel copies a write in pieces of a page: a line that does
        // not fit one is refused.
        if line.len() > MAX_LINE {
            return Err(InputError::Kernel(EINVAL_ERRNO));
        }
        run_line(instance, source, line).map_err(|e| {
            if let Some(log) = e.log {
                log_command_error(instance, line, &log);
            }
            InputError::Kernel(e.errno)
        })?;
    }
    Ok(())
}

/// Logs `log`, an error of command `line`.
fn log_command_error(instance: &Instance, line: &[u8], log: &LoggedError) {
    let mut logged = KVec::new();
    let text: &[u8] = match log.text {
        LoggedText::Raw => grammar::command_text(line),
        LoggedText::Words => {
            let len = grammar::logged_len(line);
            if logged.resize(len, 0, GFP_KERNEL).is_err() {
                return;
            }
            let n = grammar::copy_logged_command(line, &mut logged);
            &logged[..n]
        }
    };
    let (message, then) = log.message.texts();
    instance.log_message_at(log.subsystem.name(), message, text, log.pos);
    if let Some(then) = then {
        instance.log_message_at(log.subsystem.name(), then, text, log.pos);
    }
}

/// A refusal logged under `subsystem` at `pos` of the logged command.
fn refusal(subsystem: Subsystem, code: ProbeErrorCode, pos: usize, errno: i32) -> CommandError {
    refusal_of(subsystem, &ProbeError::at(code, pos), errno)
}

/// A refusal logged as `error` says (one entry, or two).
fn refusal_of(subsystem: Subsystem, error: &ProbeError, errno: i32) -> CommandError {
    CommandError {
        errno,
        log: Some(LoggedError {
            subsystem,
            message: LogMessage::probe(error),
            pos: error.pos,
            text: LoggedText::Words,
        }),
    }
}

/// A refusal with no log entry.
fn silent(errno: i32) -> CommandError {
    CommandError { errno, log: None }
}

/// A kernel error as a refusal with no log entry.
fn from_error(e: Error) -> CommandError {
    silent(-e.to_errno())
}

/// Runs one line.
fn run_line(instance: &Instance, source: Source, line: &[u8]) -> Result<(), CommandError> {
    let mut resolver = KernelResolver::new();
    match grammar::parse_command(line, source.grammar(), &mut resolver)? {
        Command::Empty => Ok(()),
        Command::Remove(remove) => remove_events(instance, line, &remove),
        Command::Add(command) => {
            if let Some(notice) = &command.notice {
                log_command_error(instance, line, notice);
            }
            match expand_dentry_words(line, &command)? {
                Some(expanded) => {
                    match grammar::parse_command(&expanded, source.grammar(), &mut resolver)? {
                        Command::Add(command) => add_probe(&expanded, &command),
                        _ => Err(silent(EINVAL_ERRNO)),
                    }
                }
                None => add_probe(line, &command),
            }
        }
    }
}

/// `traceprobe_expand_dentry_args`: `line` with its `ARG:%pd` and
/// `ARG:%pD` words rewritten as string fetches of the dentry's name
/// (kprobes and fprobes), or `None` if it has none.
fn expand_dentry_words(
    line: &[u8],
    command: &ProbeCommand,
) -> Result<Option<KVec<u8>>, CommandError> {
    if command.kind.family() == ProbeKind::Uprobe {
        return Ok(None);
    }
    let offsets = DentryOffsets {
        dentry_name: dcache::DENTRY_NAME_OFFSET,
        file_dentry: dcache::FILE_DENTRY_OFFSET,
    };
    let mut out = KVec::new();
    out.resize(line.len() + arg_words::MAX_DENTRY_GROWTH, 0, GFP_KERNEL)
        .map_err(|_| silent(ENOMEM_ERRNO))?;
    match arg_words::expand_dentry_words(line, &offsets, &mut out) {
        None => Ok(None),
        Some(Err(arg_words::NoRoom)) => Err(silent(ENOMEM_ERRNO)),
        Some(Ok(len)) => {
            out.truncate(len);
            Ok(Some(out))
        }
    }
}

/// Parses the argument words of `command` (in `line`).
fn parse_args(line: &[u8], command: &ProbeCommand) -> Result<KVec<ArgSpec>, CommandError> {
    let subsystem = command.subsystem();
    let mut args: KVec<ArgSpec> = KVec::new();
    for word in command.args(line) {
        let ctx = ParseContext {
            kind: match command.kind {
                grammar::ProbeKind::Tprobe => fetch::ProbeKind::Tprobe,
                kind => fetch_kind(kind.family()),
            },
            is_return: command.flags.is_return,
            at_func_entry: command.flags.fentry,
            previous: &args,
            param_max_stack: crate::kernel_api::regs::STACK_WORDS,
        };
        let spec = fetch::parse_arg(word.text, word.index, &ctx)
            .map_err(|e| refusal_of(subsystem, &e.shifted(word.logged_offset), EINVAL_ERRNO))?;
        args.push(spec, GFP_KERNEL)
            .map_err(|_| silent(ENOMEM_ERRNO))?;
    }
    Ok(args)
}

/// The argument parser's kind of probe.
fn fetch_kind(family: ProbeKind) -> fetch::ProbeKind {
    match family {
        ProbeKind::Kprobe => fetch::ProbeKind::Kprobe,
        ProbeKind::Fprobe => fetch::ProbeKind::Fprobe,
        ProbeKind::Uprobe => fetch::ProbeKind::Uprobe,
    }
}

/// `line[range]`.
fn text<'a>(line: &'a [u8], range: &core::ops::Range<usize>) -> &'a [u8] {
    line.get(range.clone()).unwrap_or(&[])
}

/// A copy of `bytes`.
fn owned(bytes: &[u8]) -> Result<KVec<u8>, CommandError> {
    let mut v = KVec::new();
    v.extend_from_slice(bytes, GFP_KERNEL)
        .map_err(|_| silent(ENOMEM_ERRNO))?;
    Ok(v)
}

/// The text the kernel's `%p` prints for `addr`, for the names and
/// listings of probes at addresses.
fn pointer_text(addr: u64) -> Result<KVec<u8>, CommandError> {
    let mut out = KVec::new();
    crate::kernel_api::printk::write_hashed_pointer(addr as usize, &mut out)
        .map_err(|_| silent(ENOMEM_ERRNO))?;
    Ok(out)
}

/// Adds the probe of `command` (from `line`): a new event, or a point of
/// the event of that name.
fn add_probe(line: &[u8], command: &ProbeCommand) -> Result<(), CommandError> {
    let subsystem = command.subsystem();
    let mut args = parse_args(line, command)?;
    let (place, space) = place_text(line, command)?;
    let event_name = command.event_name(line, pointer_bytes(&place));
    let group = command.group;
    let mut registry = registry::lock().map_err(from_error)?;
    if let Place::File {
        path,
        offset,
        ref_ctr_offset,
    } = &command.place
    {
        check_counter(&registry, text(line, path), *offset, *ref_ctr_offset)?;
    }
    let existing = find_event(&registry, &group, &event_name);
    if let Some(event) = &existing {
        check_append(event, (line, command), &args, &place)?;
    } else if event_name_taken(&group, &event_name) {
        return Err(refusal(
            subsystem,
            ProbeErrorCode::EventExist,
            0,
            EEXIST_ERRNO,
        ));
    }
    resolve_symbol_args(&mut args, subsystem, grammar::logged_position(line, 1, 0))?;
    let args = Arc::new(EventArgs::new(args), GFP_KERNEL).map_err(|_| silent(ENOMEM_ERRNO))?;
    match existing {
        Some(event) => {
            let point = make_point(line, command, place, &event.recorder, args)?;
            event.add_point(point).map_err(from_error)
        }
        None => {
            let scratch = registry.scratch().map_err(from_error)?;
            let record_type = RegisteredType::new().map_err(from_error)?;
            let recorder = Arc::new(
                Recorder::new(record_type.id(), (command.kind.is_return(), space), scratch),
                GFP_KERNEL,
            )
            .map_err(|_| silent(ENOMEM_ERRNO))?;
            let point = make_point(line, command, place, &recorder, args)?;
            let event = ProbeEvent::new(
                command.kind.family(),
                (name_str(&group), name_str(&event_name)),
                recorder,
                record_type,
                point,
            )
            .map_err(from_error)?;
            publish(&mut registry, event).map_err(from_error)
        }
    }
}

/// The kernel's `validate_ref_ctr_offset`: a uprobe at a place another
/// uprobe holds must name the same reference counter (`EINVAL`, not
/// logged).
fn check_counter(
    registry: &Registry,
    path: &[u8],
    offset: u64,
    ref_ctr_offset: u64,
) -> Result<(), CommandError> {
    let Ok(file) = super::uprobe_attach::resolve(path) else {
        return Ok(());
    };
    let conflict = registry.events().iter().any(|event| {
        event.with_points(|points| {
            points.iter().any(|point| match &point.attachment {
                Attachment::User(probe) => probe.counter_conflicts(&file, offset, ref_ctr_offset),
                Attachment::Kernel(_) | Attachment::Tracepoint(_) => false,
            })
        })
    });
    if conflict {
        pr_warn!("Reference counter offset mismatch.");
        return Err(silent(EINVAL_ERRNO));
    }
    Ok(())
}

/// The `%p` text of an address place, empty for others.
fn pointer_bytes(place: &PlaceText) -> &[u8] {
    match place {
        PlaceText::Kprobe { pointer_text, .. } => pointer_text,
        _ => &[],
    }
}

/// A name as text.
fn name_str(name: &Name) -> &str {
    core::str::from_utf8(name.as_bytes()).unwrap_or("")
}

/// The probe event `group/event`, if there is one of this kind.
fn find_event(registry: &Registry, group: &Name, event: &Name) -> Option<Arc<ProbeEvent>> {
    registry
        .find(Some(name_str(group)), name_str(event))
        .cloned()
}

/// Whether an event other than a probe event is called `group/event`.
fn event_name_taken(group: &Name, event: &Name) -> bool {
    let Some(catalog) = catalog::lock() else {
        return false;
    };
    let (group, event) = (name_str(group), name_str(event));
    let taken = catalog.ids().any(|id| {
        catalog
            .event_by_id(id)
            .is_some_and(|e| e.system() == group && e.name() == event)
    });
    taken
}

/// The kernel's checks before it appends a probe to an existing event
/// (`register_trace_kprobe`, `append_trace_kprobe`, and the same for
/// uprobes).
fn check_append(
    event: &ProbeEvent,
    (line, command): (&[u8], &ProbeCommand),
    args: &[ArgSpec],
    place: &PlaceText,
) -> Result<(), CommandError> {
    let subsystem = command.subsystem();
    let exist = |index: usize, code| refusal(subsystem, code, index, EEXIST_ERRNO);
    if event.kind != command.kind.family() {
        return Err(exist(0, ProbeErrorCode::EventExist));
    }
    let tracepoint = |place: &PlaceText| matches!(place, PlaceText::Tprobe { .. });
    let event_on_tracepoint =
        event.with_points(|points| points.first().is_some_and(|p| tracepoint(&p.place)));
    if event.recorder.is_return != command.kind.is_return()
        || event_on_tracepoint != tracepoint(place)
    {
        return Err(exist(0, ProbeErrorCode::DiffProbeType));
    }
    let theirs = event.primary_args.specs();
    if let Some(index) = first_arg_difference(args, theirs) {
        // The argument's word: the place is word 1, arguments follow.
        let pos = grammar::logged_position(line, index + 1, 0);
        return Err(exist(pos, ProbeErrorCode::DiffArgType));
    }
    let same = event.with_points(|points| {
        points.iter().any(|p| {
            p.place.same_place(place)
                && p.handler
                    .args
                    .specs()
                    .iter()
                    .zip(args)
                    .all(|(a, b)| a.body() == b.body())
        })
    });
    if same {
        return Err(exist(0, ProbeErrorCode::SameProbe));
    }
    Ok(())
}

/// `trace_probe_compare_arg_type`: the word index (from 1 for the first
/// argument) of the first argument whose type or name differs, or that
/// one of the two lacks.
fn first_arg_difference(ours: &[ArgSpec], theirs: &[ArgSpec]) -> Option<usize> {
    if ours.len() != theirs.len() {
        return Some(ours.len().min(theirs.len()) + 1);
    }
    ours.iter()
        .zip(theirs)
        .position(|(a, b)| !a.same_type(b))
        .map(|i| i + 1)
}

/// Where the probe of `command` goes, as the listings show it, and where
/// it fires.
fn place_text(line: &[u8], command: &ProbeCommand) -> Result<(PlaceText, Space), CommandError> {
    Ok(match &command.place {
        Place::Address(addr) => (
            PlaceText::Kprobe {
                maxactive: listed_maxactive(command),
                symbol: None,
                offset: 0,
                pointer_text: pointer_text(*addr)?,
            },
            Space::Kernel,
        ),
        Place::Symbol { symbol, offset } => (
            PlaceText::Kprobe {
                maxactive: listed_maxactive(command),
                symbol: Some(owned(text(line, symbol))?),
                offset: *offset,
                pointer_text: KVec::new(),
            },
            Space::Kernel,
        ),
        Place::Function { symbol } => (
            PlaceText::Fprobe {
                symbol: owned(text(line, symbol))?,
            },
            Space::Kernel,
        ),
        Place::File {
            path,
            offset,
            ref_ctr_offset,
        } => (
            PlaceText::Uprobe {
                path: owned(text(line, path))?,
                offset: *offset,
                ref_ctr_offset: *ref_ctr_offset,
            },
            Space::User,
        ),
        Place::Tracepoint { name } => (
            PlaceText::Tprobe {
                name: owned(text(line, name))?,
            },
            Space::Kernel,
        ),
    })
}

/// The `MAXACTIVE` the listings show for the probe of `command`: a
/// kretprobe registered without one has the kernel's default.
fn listed_maxactive(command: &ProbeCommand) -> u32 {
    match (command.kind, command.maxactive) {
        (grammar::ProbeKind::Kretprobe, 0) => {
            listing::kretprobe_default_maxactive(crate::instance::nr_cpu_ids() as u32)
        }
        (_, maxactive) => maxactive,
    }
}

/// Gives `@SYM` arguments their addresses, as the kernel does when it
/// registers the probe; an unknown symbol is logged at the place word.
fn resolve_symbol_args(
    args: &mut [ArgSpec],
    subsystem: Subsystem,
    place_pos: usize,
) -> Result<(), CommandError> {
    let lookup = super::resolver::SymbolAddresses;
    for arg in args.iter_mut() {
        arg.resolve_symbols(&lookup).map_err(|code| {
            let errno = if code == ProbeErrorCode::BadProbeAddr {
                2
            } else {
                EINVAL_ERRNO
            };
            refusal(subsystem, code, place_pos, errno)
        })?;
    }
    Ok(())
}

/// Attaches a point for `command` at `place`, recording `args` through
/// `recorder`.
fn make_point(
    line: &[u8],
    command: &ProbeCommand,
    place: PlaceText,
    recorder: &Arc<Recorder>,
    args: Arc<EventArgs>,
) -> Result<Point, CommandError> {
    let subsystem = command.subsystem();
    let file_offset = match &place {
        PlaceText::Uprobe { offset, .. } => *offset,
        _ => 0,
    };
    let handler = PointHandler::new(recorder.clone(), args, file_offset).map_err(from_error)?;
    let is_return = command.kind.is_return();
    let registered = |code: ProbeErrorCode, e: Error| {
        let errno = -e.to_errno();
        match errno {
            ENOMEM_ERRNO | EEXIST_ERRNO => silent(errno),
            _ => refusal(subsystem, code, grammar::logged_position(line, 1, 0), errno),
        }
    };
    let attachment = match &command.place {
        Place::Address(addr) => Attachment::Kernel(
            KernelProbe::register(
                &KernelPlace::Address(*addr as usize),
                is_return,
                command.maxactive,
                handler.clone(),
            )
            .map_err(|(code, e)| registered(code, e))?,
        ),
        Place::Symbol { symbol, offset } => {
            let (module, name) = split_module(text(line, symbol));
            let place = KernelPlace::Symbol {
                module,
                name,
                offset: u64::from(*offset),
            };
            Attachment::Kernel(
                KernelProbe::register(&place, is_return, command.maxactive, handler.clone())
                    .map_err(|(code, e)| registered(code, e))?,
            )
        }
        Place::Function { symbol } => {
            let symbol = text(line, symbol);
            // As the kernel's, an fprobe's function is a glob.
            let (module, name) = split_module(symbol);
            let place = if symbol.iter().any(|c| b"*?[".contains(c)) {
                KernelPlace::Pattern(symbol)
            } else {
                KernelPlace::Symbol {
                    module,
                    name,
                    offset: 0,
                }
            };
            Attachment::Kernel(
                KernelProbe::register(&place, is_return, command.maxactive, handler.clone())
                    .map_err(|(code, e)| registered(code, e))?,
            )
        }
        Place::File {
            path,
            offset,
            ref_ctr_offset,
        } => Attachment::User(
            UserProbe::new(
                text(line, path),
                *offset,
                (*ref_ctr_offset != 0).then_some(*ref_ctr_offset),
                is_return,
                handler.clone(),
            )
            .map_err(|(code, e)| registered(code, e))?,
        ),
        Place::Tracepoint { name } => Attachment::Tracepoint(
            TracepointProbe::new(text(line, name), handler.clone()).map_err(from_error)?,
        ),
    };
    let mut place = place;
    if let (
        PlaceText::Kprobe {
            symbol: None,
            pointer_text: shown,
            ..
        },
        Attachment::Kernel(probe),
    ) = (&mut place, &attachment)
    {
        // The listings show the probed address (past an `endbr64`), as
        // the kernel shows its kprobe's.
        if let Some(addr) = probe.address() {
            *shown = pointer_text(addr as u64)?;
        }
    }
    Ok(Point {
        seq: super::point::next_seq(),
        place,
        handler,
        attachment,
    })
}

/// `[MOD:]SYM` split at its colon.
fn split_module(whole: &[u8]) -> (Option<&[u8]>, &[u8]) {
    match whole.iter().position(|&b| b == b':') {
        Some(colon) => (Some(&whole[..colon]), &whole[colon + 1..]),
        None => (None, whole),
    }
}

/// Adds `event` to the event layer and the registry.
fn publish(registry: &mut Registry, event: Arc<ProbeEvent>) -> Result {
    let args = event.primary_args.specs();
    let is_return = event.recorder.is_return;
    let mut print_fmt = KVec::new();
    let print_type = if is_return {
        PrintType::Return
    } else {
        PrintType::Normal
    };
    format::write_print_fmt(&mut TextOut(&mut print_fmt), args, print_type).map_err(|_| ENOMEM)?;
    let definer: Arc<dyn crate::events::defined::DefinedEvent> = event.clone();
    let catalog_event = Event::defined(
        event.recorder.id,
        (event.group(), event.name()),
        format::probe_fields(args, is_return),
        core::str::from_utf8(&print_fmt).unwrap_or(""),
        (definer, event.record_type.output()),
    )?;
    crate::events::defined::add(catalog_event)?;
    if let Err(e) = registry.add(event.clone()) {
        crate::events::defined::withdraw(event.recorder.id);
        return Err(e);
    }
    Ok(())
}

/// Removes the probes `remove` selects (from `line`); the kernel clears the
/// buffers after any removal command.
fn remove_events(
    instance: &Instance,
    line: &[u8],
    remove: &RemoveCommand,
) -> Result<(), CommandError> {
    let mut registry = registry::lock().map_err(from_error)?;
    let mut result = Err(silent(2));
    let mut index = 0;
    while index < registry.events().len() {
        let event = registry.events()[index].clone();
        let matches = |point: &Point| remove.matches(line, &listed(&event, point));
        if !event.with_points(|points| points.iter().any(&matches)) {
            index += 1;
            continue;
        }
        match event.remove_points(matches) {
            Ok(true) => {
                if let Err(e) = registry.remove(index) {
                    result = Err(from_error(e));
                    break;
                }
                result = Ok(());
            }
            Ok(false) => {
                index += 1;
                result = Ok(());
            }
            Err(e) => {
                result = Err(from_error(e));
                break;
            }
        }
    }
    drop(registry);
    instance.clear(None);
    result
}

/// A point of `event` as the listings show it.
fn listed<'a>(event: &'a ProbeEvent, point: &'a Point) -> ListedProbe<'a> {
    ListedProbe {
        is_return: event.recorder.is_return,
        group: event.group().as_bytes(),
        event: event.name().as_bytes(),
        place: point.place.listed(),
        args: &*point.handler.args,
    }
}

/// Writes the definition of every point of every event of `kind` (all
/// for `None`), oldest first: `kprobe_events`, `uprobe_events`,
/// `dynamic_events`.
pub(crate) fn write_definitions(out: &mut dyn Write, kind: Option<ProbeKind>) -> fmt::Result {
    let Ok(registry) = registry::lock() else {
        return Ok(());
    };
    for_each_point(&registry, kind, |event, point| {
        listing::write_probe_line(out, &listed(event, point))
    })
}

/// Calls `f` on every point of the events of `kind` (all for `None`), in
/// the order the points were made, as the kernel's `dyn_event_list`.
fn for_each_point(
    registry: &Registry,
    kind: Option<ProbeKind>,
    mut f: impl FnMut(&ProbeEvent, &Point) -> fmt::Result,
) -> fmt::Result {
    let mut order: KVec<(u64, usize, usize)> = KVec::new();
    for (e, event) in registry.events().iter().enumerate() {
        if kind.is_some_and(|k| k != event.kind) {
            continue;
        }
        let pushed = event.with_points(|points| {
            points
                .iter()
                .enumerate()
                .try_for_each(|(p, point)| order.push((point.seq, e, p), GFP_KERNEL))
        });
        pushed.map_err(|_| fmt::Error)?;
    }
    heap_sort(&mut order);
    for &(_, e, p) in order.iter() {
        let Some(event) = registry.events().get(e) else {
            continue;
        };
        event.with_points(|points| points.get(p).map_or(Ok(()), |point| f(event, point)))?;
    }
    Ok(())
}

/// Writes `kprobe_profile` or `uprobe_profile`.
pub(crate) fn write_profile(out: &mut dyn Write, kind: ProbeKind) -> fmt::Result {
    let Ok(registry) = registry::lock() else {
        return Ok(());
    };
    for_each_point(&registry, Some(kind), |event, point| {
        let name = event.name().as_bytes();
        match &point.place {
            PlaceText::Uprobe { path, .. } => {
                listing::write_uprobe_profile_line(out, path, name, point.hits())
            }
            _ => listing::write_kprobe_profile_line(out, name, point.hits(), point.misses()),
        }
    })
}
