// SPDX-License-Identifier: GPL-2.0

//! What user space writes to the function filter files.
//!
//! `set_ftrace_filter` and `set_ftrace_notrace` take words of the form
//!
//! ```text
//! [!]PATTERN[:mod:[!]MODULE_PATTERN]    select functions by name (and module)
//! [!]N                                  select line N of available_filter_functions
//! [!]PATTERN:COMMAND[:PARAMETER]        a function command (traceon, snapshot, ...)
//! ```
//!
//! `set_graph_function` and `set_graph_notrace` take only `[!]PATTERN`.
//! Patterns are those of [`super::glob`]. A leading `!` removes what the word
//! selects instead of adding it.
//!
//! The parser only borrows from the written text; it neither allocates nor
//! looks anything up. The caller walks its functions and asks
//! [`FilterCommand::selects`] of each.

use core::num::NonZeroUsize;

use super::glob::Pattern;
use super::input::{self, InputError};

/// The longest word accepted, as ftrace's parser takes: a symbol with its
/// module as kallsyms prints it (`KSYM_SYMBOL_LEN`, 666 bytes on 64-bit),
/// plus 4 for wildcards, less the terminating NUL. Rust symbols easily pass
/// 255 bytes, so a shorter limit would refuse real names.
pub(crate) const MAX_WORD_LEN: usize = 669;

/// Which grammar a filter file speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FilterFile {
    /// `set_ftrace_filter`, `set_ftrace_notrace`: patterns, indexes, `:mod:`
    /// and function commands.
    Function,
    /// `set_graph_function`, `set_graph_notrace`: patterns only; a `:` is an
    /// ordinary byte of the pattern.
    Graph,
}

/// One function the filters choose among: one line of
/// `available_filter_functions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Site<'a> {
    /// Its line in `available_filter_functions`, counting from 1.
    pub(crate) line: usize,
    /// The function's name, as kallsyms gives it.
    pub(crate) function: &'a [u8],
    /// The module the function is in; `None` for vmlinux.
    pub(crate) module: Option<&'a [u8]>,
}

/// What one word of a write asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FilterCommand<'a> {
    /// The word began with `!`: remove the functions instead of adding them.
    pub(crate) remove: bool,
    /// Which functions the word names.
    pub(crate) target: Target<'a>,
    /// What to do with them.
    pub(crate) action: Action<'a>,
}

impl FilterCommand<'_> {
    /// Whether this command names `site`.
    ///
    /// ftrace refuses (`EINVAL`, here [`InputError::NoMatchingFunction`]) a
    /// word that names no function at all. For `set_ftrace_filter` and
    /// `set_ftrace_notrace` a removal only has to name some function, listed
    /// or not; for the graph files it must remove at least one that was
    /// listed. A `:mod:` word that names no function because its module is
    /// not loaded is not refused there: ftrace keeps it for when the module
    /// loads.
    pub(crate) fn selects(&self, site: &Site<'_>) -> bool {
        self.target.selects(site)
    }
}

/// Which functions a word names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target<'a> {
    /// `N`: line N of `available_filter_functions`, counting from 1.
    Index(NonZeroUsize),
    /// Every function whose name (and module) matches.
    Functions(FunctionSelector<'a>),
}

impl Target<'_> {
    /// Whether `site` is among the functions named.
    pub(crate) fn selects(&self, site: &Site<'_>) -> bool {
        match self {
            Target::Index(line) => line.get() == site.line,
            Target::Functions(selector) => selector.selects(site.function, site.module),
        }
    }
}

/// A function name pattern, optionally limited by `:mod:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FunctionSelector<'a> {
    /// The pattern function names must match.
    pub(crate) function: Pattern<'a>,
    /// Which modules the functions may come from.
    pub(crate) module: ModuleFilter<'a>,
}

impl FunctionSelector<'_> {
    /// Whether `function`, in `module` (`None`: vmlinux), is selected.
    pub(crate) fn selects(&self, function: &[u8], module: Option<&[u8]>) -> bool {
        self.module.admits(module) && self.function_matches(function)
    }

    /// Whether `function` matches the name pattern.
    fn function_matches(&self, function: &[u8]) -> bool {
        // Next to `:mod:`, a blank function pattern takes the whole module.
        let whole_module = self.module != ModuleFilter::Any && self.function.is_blank();
        whole_module || self.function.matches(function)
    }
}

/// Which modules a [`FunctionSelector`] takes functions from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ModuleFilter<'a> {
    /// No `:mod:`: vmlinux and every module alike.
    Any,
    /// `:mod:PATTERN`: only modules whose name matches; never vmlinux.
    Only(Pattern<'a>),
    /// `:mod:!PATTERN`: vmlinux and every module whose name does not match.
    Except(Pattern<'a>),
}

impl<'a> ModuleFilter<'a> {
    /// Reads the text after `:mod:`.
    fn parse(text: &'a [u8]) -> Self {
        match text.split_first() {
            Some((b'!', rest)) => ModuleFilter::Except(Pattern::parse(rest)),
            _ => ModuleFilter::Only(Pattern::parse(text)),
        }
    }

    /// Whether a function of `module` (`None`: vmlinux) may be selected.
    pub(crate) fn admits(&self, module: Option<&[u8]>) -> bool {
        match self {
            ModuleFilter::Any => true,
            ModuleFilter::Only(pattern) => names_module(pattern, module),
            ModuleFilter::Except(pattern) => !names_module(pattern, module),
        }
    }
}

/// Whether `pattern` names `module`. vmlinux is no module; a blank pattern
/// (`:mod:`, `:mod:*`) names every module.
fn names_module(pattern: &Pattern<'_>, module: Option<&[u8]>) -> bool {
    module.is_some_and(|name| pattern.is_blank() || pattern.matches(name))
}

/// What a word asks to do with the functions it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action<'a> {
    /// Add them to the file's list (or, with `!`, take them out).
    List,
    /// Attach a function command to them (or, with `!`, detach it).
    Command(FunctionCommand<'a>),
}

/// A function command: `PATTERN:NAME[:PARAMETER]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FunctionCommand<'a> {
    /// Which command.
    pub(crate) kind: CommandKind,
    /// Everything after the second `:`, itself possibly holding more `:`
    /// (`enable_event:sched:sched_switch:2`); `None` without a second `:`.
    pub(crate) parameter: Option<&'a [u8]>,
}

/// The function commands ftrace has, other than `mod`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CommandKind {
    /// `traceon[:count]`: turn tracing on when the function is hit.
    TraceOn,
    /// `traceoff[:count]`: turn tracing off when the function is hit.
    TraceOff,
    /// `stacktrace[:count]`: record a stack trace.
    StackTrace,
    /// `dump`: print the whole ring buffer to the console.
    Dump,
    /// `cpudump`: print the current CPU's ring buffer to the console.
    CpuDump,
    /// `snapshot[:count]`: take a snapshot.
    Snapshot,
    /// `enable_event:system:event[:count]`: enable a trace event.
    EnableEvent,
    /// `disable_event:system:event[:count]`: disable a trace event.
    DisableEvent,
}

impl CommandKind {
    const ALL: [CommandKind; 8] = [
        CommandKind::TraceOn,
        CommandKind::TraceOff,
        CommandKind::StackTrace,
        CommandKind::Dump,
        CommandKind::CpuDump,
        CommandKind::Snapshot,
        CommandKind::EnableEvent,
        CommandKind::DisableEvent,
    ];

    /// The command's name as written.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CommandKind::TraceOn => "traceon",
            CommandKind::TraceOff => "traceoff",
            CommandKind::StackTrace => "stacktrace",
            CommandKind::Dump => "dump",
            CommandKind::CpuDump => "cpudump",
            CommandKind::Snapshot => "snapshot",
            CommandKind::EnableEvent => "enable_event",
            CommandKind::DisableEvent => "disable_event",
        }
    }

    fn from_name(name: &[u8]) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.name().as_bytes() == name)
    }
}

/// The name of the command that limits a pattern to modules.
const MOD_COMMAND: &[u8] = b"mod";

/// The words of one write, each parsed into a [`FilterCommand`].
///
/// The kernel acts on each word before it reads the next, so a caller that
/// applies the commands in order and stops at the first error does as ftrace
/// does. A write of only white space (`echo > set_ftrace_filter`) holds no
/// word: clearing the list is the truncating open's doing, not the write's.
#[derive(Debug, Clone)]
pub(crate) struct FilterWords<'a> {
    text: &'a [u8],
    file: FilterFile,
    /// Where the unread rest of `text` starts.
    next: usize,
    /// Where the word yielded last starts.
    last: usize,
}

impl<'a> FilterWords<'a> {
    /// The words of `text`, written to a file of the kind `file`.
    pub(crate) fn new(text: &'a [u8], file: FilterFile) -> Self {
        FilterWords {
            text,
            file,
            next: 0,
            last: 0,
        }
    }

    /// The offset in the write of the word yielded last, for the caret of an
    /// `error_log` entry.
    pub(crate) fn last_word_offset(&self) -> usize {
        self.last
    }
}

impl<'a> Iterator for FilterWords<'a> {
    type Item = Result<FilterCommand<'a>, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.text.get(self.next..)?;
        let start = rest.iter().position(|&b| !is_separator(b))?;
        let word = rest.get(start..)?;
        let len = word
            .iter()
            .position(|&b| is_separator(b))
            .unwrap_or(word.len());
        self.last = self.next + start;
        self.next = self.last + len;
        Some(parse_word(word.get(..len)?, self.file))
    }
}

/// Whether `b` ends a word: the kernel's `isspace()` (which includes `\v`
/// and Latin-1's no-break space 0xa0) or a NUL.
fn is_separator(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ' | 0xa0 | 0)
}

/// Parses one word (no white space in it) written to a file of the kind
/// `file`.
pub(crate) fn parse_word(word: &[u8], file: FilterFile) -> Result<FilterCommand<'_>, InputError> {
    // Longer than ftrace's parser buffer: refused as ftrace refuses it.
    if word.len() > MAX_WORD_LEN {
        return Err(InputError::PatternTooLong);
    }
    // No function or module name holds other bytes; refuse them early.
    if !word.iter().all(u8::is_ascii_graphic) {
        return Err(InputError::NotText);
    }
    // One leading `!` removes; a second is part of the pattern. A lone `!`
    // leaves the empty pattern, which names no function (EINVAL in ftrace).
    let (remove, body) = match word.split_first() {
        Some((b'!', rest)) => (true, rest),
        _ => (false, word),
    };
    match file {
        // The graph files know neither commands nor indexes: the rest is
        // the pattern, `:` and all. No function name starts with a digit,
        // so a number there selects nothing, as in the kernel.
        FilterFile::Graph => Ok(FilterCommand {
            remove,
            target: Target::Functions(FunctionSelector {
                function: Pattern::parse(body),
                module: ModuleFilter::Any,
            }),
            action: Action::List,
        }),
        FilterFile::Function => parse_function_word(remove, body),
    }
}

/// Parses a `set_ftrace_filter` word after its `!`: the functions up to the
/// first `:`, then the command and its parameter.
fn parse_function_word(remove: bool, body: &[u8]) -> Result<FilterCommand<'_>, InputError> {
    let (functions, command) = split_at_colon(body);
    let (name, parameter) = match command {
        // No `:`: a plain pattern or index, vmlinux and modules alike.
        None => return list(remove, functions, ModuleFilter::Any),
        Some(command) => split_at_colon(command),
    };
    if name == MOD_COMMAND {
        // `func:mod` with nothing after it is plain `func`, as in the kernel.
        let module = parameter.map_or(ModuleFilter::Any, ModuleFilter::parse);
        return list(remove, functions, module);
    }
    // Any other name must be one of ftrace's function commands.
    let kind = CommandKind::from_name(name).ok_or(InputError::UnknownFunctionCommand)?;
    Ok(FilterCommand {
        remove,
        target: target(functions, ModuleFilter::Any)?,
        action: Action::Command(FunctionCommand { kind, parameter }),
    })
}

/// A command that adds the named functions to the list (or removes them).
fn list<'a>(
    remove: bool,
    functions: &'a [u8],
    module: ModuleFilter<'a>,
) -> Result<FilterCommand<'a>, InputError> {
    Ok(FilterCommand {
        remove,
        target: target(functions, module)?,
        action: Action::List,
    })
}

/// What the text before the first `:` names: an index if it starts with a
/// digit, else functions matching it.
fn target<'a>(functions: &'a [u8], module: ModuleFilter<'a>) -> Result<Target<'a>, InputError> {
    // A leading digit makes an index; the kernel then ignores `:mod:`.
    if functions.first().is_some_and(u8::is_ascii_digit) {
        return parse_index(functions).map(Target::Index);
    }
    Ok(Target::Functions(FunctionSelector {
        function: Pattern::parse(functions),
        module,
    }))
}

/// Splits `text` at its first `:`; the part after it is `None` if there is
/// no `:`.
fn split_at_colon(text: &[u8]) -> (&[u8], Option<&[u8]>) {
    match text.iter().position(|&b| b == b':') {
        Some(colon) => (text.get(..colon).unwrap_or_default(), text.get(colon + 1..)),
        None => (text, None),
    }
}

/// Parses an index the way `kstrtoul(.., 0, ..)` reads numbers. Lines
/// count from 1, so 0 is refused.
fn parse_index(text: &[u8]) -> Result<NonZeroUsize, InputError> {
    usize::try_from(input::parse_c_number(text)?)
        .ok()
        .and_then(NonZeroUsize::new)
        .ok_or(InputError::BadNumber)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::portable::glob::PatternKind;

    const VMLINUX: Option<&[u8]> = None;
    const EXT3: Option<&[u8]> = Some(b"ext3");
    const SND_PCM: Option<&[u8]> = Some(b"snd_pcm");

    fn one(word: &[u8]) -> Result<FilterCommand<'_>, InputError> {
        parse_word(word, FilterFile::Function)
    }

    fn cmd(word: &[u8]) -> FilterCommand<'_> {
        match one(word) {
            Ok(command) => command,
            Err(e) => panic!("{word:?}: {e}"),
        }
    }

    fn all(text: &[u8], file: FilterFile) -> Vec<Result<FilterCommand<'_>, InputError>> {
        FilterWords::new(text, file).collect()
    }

    /// Whether `word` selects `function` of `module`, at line 1.
    fn picks(word: &[u8], function: &[u8], module: Option<&[u8]>) -> bool {
        let site = Site {
            line: 1,
            function,
            module,
        };
        cmd(word).selects(&site)
    }

    fn selector<'a>(command: &FilterCommand<'a>) -> FunctionSelector<'a> {
        match command.target {
            Target::Functions(selector) => selector,
            Target::Index(n) => panic!("index {n}"),
        }
    }

    #[test]
    fn names_from_the_documentation() {
        // echo sys_nanosleep hrtimer_interrupt > set_ftrace_filter
        let words = all(b"sys_nanosleep hrtimer_interrupt\n", FilterFile::Function);
        assert_eq!(words.len(), 2);
        let [Ok(first), Ok(second)] = words.as_slice() else {
            panic!("{words:?}");
        };
        for (command, name) in [
            (first, &b"sys_nanosleep"[..]),
            (second, b"hrtimer_interrupt"),
        ] {
            assert!(!command.remove);
            assert_eq!(command.action, Action::List);
            let s = selector(command);
            assert_eq!(s.function.kind(), PatternKind::Exact);
            assert_eq!(s.function.text(), name);
            assert_eq!(s.module, ModuleFilter::Any);
        }
        assert!(picks(b"sys_nanosleep", b"sys_nanosleep", VMLINUX));
        assert!(!picks(b"sys_nanosleep", b"sys_nanosleep_time32", VMLINUX));
    }

    #[test]
    fn wildcards_from_the_documentation() {
        assert!(picks(b"hrtimer_*", b"hrtimer_interrupt", VMLINUX));
        assert!(!picks(b"hrtimer_*", b"sys_nanosleep", VMLINUX));
        // echo '*preempt*' '*lock*' > set_ftrace_notrace
        let words = all(b"*preempt* *lock*", FilterFile::Function);
        assert_eq!(words.len(), 2);
        assert!(picks(b"*preempt*", b"preempt_count_add", VMLINUX));
        assert!(picks(b"*lock*", b"_raw_spin_unlock_irqrestore", VMLINUX));
        assert!(picks(b"*_[ab]?c", b"foo_bxc", VMLINUX));
        assert!(!picks(b"*_[ab]?c", b"foo_cxc", VMLINUX));
    }

    #[test]
    fn without_mod_modules_match_like_vmlinux() {
        assert!(picks(b"write*", b"write_inode", VMLINUX));
        assert!(picks(b"write*", b"write_inode", EXT3));
        assert!(picks(b"*", b"ext3_sync_fs", EXT3));
    }

    #[test]
    fn bang_removes() {
        let c = cmd(b"!*lock*");
        assert!(c.remove);
        assert_eq!(c.action, Action::List);
        assert_eq!(selector(&c).function.text(), b"lock");
        assert!(c.selects(&Site {
            line: 7,
            function: b"mutex_lock",
            module: VMLINUX
        }));
        // Only the first `!` is taken: the pattern `!x` names nothing.
        let c = cmd(b"!!x");
        assert!(c.remove);
        assert_eq!(selector(&c).function.text(), b"!x");
    }

    #[test]
    fn bang_alone_names_no_function() {
        // The kernel matches the empty name, finds none, and refuses.
        let c = cmd(b"!");
        assert!(c.remove);
        assert!(!picks(b"!", b"schedule", VMLINUX));
        assert!(!picks(b"!", b"ext3_sync_fs", EXT3));
        let graph = parse_word(b"!", FilterFile::Graph);
        assert_eq!(graph, Ok(c));
    }

    #[test]
    fn empty_write_holds_no_word() {
        for text in [&b""[..], b"\n", b"  \t\n", b"\0", b" \x0b\x0c\r\xa0 "] {
            assert!(all(text, FilterFile::Function).is_empty(), "{text:?}");
            assert!(all(text, FilterFile::Graph).is_empty(), "{text:?}");
        }
    }

    #[test]
    fn words_split_at_kernel_white_space_and_nul() {
        let words = all(b"a\tb\x0bc\x0cd\re\0f\xa0g h\n", FilterFile::Function);
        let names: Vec<&[u8]> = words
            .iter()
            .map(|w| match w {
                Ok(c) => selector(c).function.text(),
                Err(e) => panic!("{e}"),
            })
            .collect();
        assert_eq!(names, [b"a", b"b", b"c", b"d", b"e", b"f", b"g", b"h"]);
    }

    #[test]
    fn reports_where_each_word_starts() {
        let mut words = FilterWords::new(b"  foo  bar:nope baz", FilterFile::Function);
        assert!(matches!(words.next(), Some(Ok(_))));
        assert_eq!(words.last_word_offset(), 2);
        assert_eq!(words.next(), Some(Err(InputError::UnknownFunctionCommand)));
        assert_eq!(words.last_word_offset(), 7);
        assert!(matches!(words.next(), Some(Ok(_))));
        assert_eq!(words.last_word_offset(), 16);
        assert_eq!(words.next(), None);
        assert_eq!(words.next(), None);
    }

    #[test]
    fn mod_limits_to_a_module() {
        // echo 'write*:mod:ext3' > set_ftrace_filter
        let c = cmd(b"write*:mod:ext3");
        assert!(!c.remove);
        assert_eq!(c.action, Action::List);
        let s = selector(&c);
        assert_eq!(s.function.text(), b"write");
        assert_eq!(s.module, ModuleFilter::Only(Pattern::parse(b"ext3")));
        assert!(s.selects(b"write_inode", EXT3));
        assert!(!s.selects(b"write_inode", VMLINUX));
        assert!(!s.selects(b"write_inode", SND_PCM));
        assert!(!s.selects(b"ext3_write_inode", EXT3));
        // echo '!writeback*:mod:ext3' >> set_ftrace_filter
        let c = cmd(b"!writeback*:mod:ext3");
        assert!(c.remove);
        assert!(selector(&c).selects(b"writeback_inodes", EXT3));
        assert!(!selector(&c).selects(b"writeback_inodes", VMLINUX));
    }

    #[test]
    fn empty_function_with_mod_takes_the_whole_module() {
        for word in [&b":mod:ext3"[..], b"*:mod:ext3", b"**:mod:ext3"] {
            assert!(picks(word, b"ext3_sync_fs", EXT3), "{word:?}");
            assert!(!picks(word, b"ext3_sync_fs", SND_PCM), "{word:?}");
            assert!(!picks(word, b"schedule", VMLINUX), "{word:?}");
        }
        let c = cmd(b"!:mod:ext3");
        assert!(c.remove);
        assert!(picks(b"!:mod:ext3", b"ext3_sync_fs", EXT3));
    }

    #[test]
    fn mod_bang_takes_all_but_the_module() {
        // echo '!*:mod:!ext3' >> set_ftrace_filter
        let c = cmd(b"!*:mod:!ext3");
        assert!(c.remove);
        assert_eq!(
            selector(&c).module,
            ModuleFilter::Except(Pattern::parse(b"ext3"))
        );
        assert!(picks(b"!*:mod:!ext3", b"schedule", VMLINUX));
        assert!(picks(b"!*:mod:!ext3", b"snd_pcm_open", SND_PCM));
        assert!(!picks(b"!*:mod:!ext3", b"ext3_sync_fs", EXT3));
    }

    #[test]
    fn mod_star_takes_every_module_but_not_vmlinux() {
        // echo '!*:mod:*' >> set_ftrace_filter: untrace all modules.
        for word in [&b"!*:mod:*"[..], b"!*:mod:", b"!*:mod:**"] {
            assert!(picks(word, b"ext3_sync_fs", EXT3), "{word:?}");
            assert!(picks(word, b"snd_pcm_open", SND_PCM), "{word:?}");
            assert!(!picks(word, b"schedule", VMLINUX), "{word:?}");
        }
        // `***` is a glob rather than blank, with the same outcome.
        assert!(picks(b"*:mod:***", b"ext3_sync_fs", EXT3));
        assert!(!picks(b"*:mod:***", b"schedule", VMLINUX));
    }

    #[test]
    fn mod_bang_star_takes_only_vmlinux() {
        // echo '*write*:mod:!*' >> set_ftrace_filter
        for word in [&b"*write*:mod:!*"[..], b"*write*:mod:!"] {
            assert!(picks(word, b"vfs_write", VMLINUX), "{word:?}");
            assert!(!picks(word, b"ext3_write_inode", EXT3), "{word:?}");
            assert!(!picks(word, b"vfs_read", VMLINUX), "{word:?}");
        }
    }

    #[test]
    fn module_patterns_are_globs() {
        // echo '*write*:mod:*snd*' >> set_ftrace_filter
        assert!(picks(b"*write*:mod:*snd*", b"snd_pcm_write", SND_PCM));
        assert!(!picks(b"*write*:mod:*snd*", b"ext3_write_inode", EXT3));
        assert!(!picks(b"*write*:mod:*snd*", b"vfs_write", VMLINUX));
        assert!(picks(b"*:mod:ext[0-9]", b"ext3_sync_fs", EXT3));
        assert!(picks(b"*:mod:snd_*", b"snd_pcm_open", SND_PCM));
        // Module names may start with a digit and still be matched.
        assert!(picks(b":mod:9p", b"v9fs_mount", Some(b"9p")));
    }

    #[test]
    fn mod_parameter_keeps_later_colons() {
        let s = selector(&cmd(b"f:mod:a:b")).module;
        assert_eq!(s, ModuleFilter::Only(Pattern::parse(b"a:b")));
    }

    #[test]
    fn mod_without_module_is_a_plain_pattern() {
        let c = cmd(b"schedule:mod");
        assert_eq!(selector(&c).module, ModuleFilter::Any);
        assert_eq!(c, cmd(b"schedule"));
    }

    #[test]
    fn numbers_select_lines_from_one() {
        // echo 1 50 > set_ftrace_filter
        let words = all(b"1 50", FilterFile::Function);
        let lines: Vec<_> = words.iter().map(|w| w.map(|c| c.target)).collect();
        assert_eq!(
            lines,
            [
                Ok(Target::Index(NonZeroUsize::MIN)),
                Ok(Target::Index(
                    NonZeroUsize::new(50).unwrap_or(NonZeroUsize::MIN)
                )),
            ]
        );
        let c = cmd(b"!3");
        assert!(c.remove);
        let site = |line| Site {
            line,
            function: b"schedule",
            module: VMLINUX,
        };
        assert!(c.selects(&site(3)));
        assert!(!c.selects(&site(2)));
    }

    #[test]
    fn numbers_read_like_kstrtoul_base_0() {
        let line = |word| match one(word).map(|c| c.target) {
            Ok(Target::Index(n)) => Ok(n.get()),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e),
        };
        assert_eq!(line(b"10"), Ok(10));
        assert_eq!(line(b"0x10"), Ok(16));
        assert_eq!(line(b"0X1f"), Ok(31));
        assert_eq!(line(b"010"), Ok(8));
        assert_eq!(line(b"0"), Err(InputError::BadNumber));
        assert_eq!(line(b"00"), Err(InputError::BadNumber));
        assert_eq!(line(b"0x"), Err(InputError::BadNumber));
        assert_eq!(line(b"0xg"), Err(InputError::BadNumber));
        assert_eq!(line(b"08"), Err(InputError::BadNumber));
        assert_eq!(line(b"1a"), Err(InputError::BadNumber));
        assert_eq!(line(b"1*"), Err(InputError::BadNumber));
        assert_eq!(line(b"99999999999999999999999"), Err(InputError::BadNumber));
    }

    #[test]
    fn numbers_ignore_mod() {
        let c = cmd(b"5:mod:ext3");
        assert_eq!(
            c.target,
            Target::Index(NonZeroUsize::new(5).unwrap_or(NonZeroUsize::MIN))
        );
        assert_eq!(c.action, Action::List);
    }

    #[test]
    fn function_commands_carry_name_and_parameter() {
        let command = |word| match cmd(word).action {
            Action::Command(c) => (c.kind.name(), c.parameter),
            Action::List => panic!("{word:?} is no command"),
        };
        assert_eq!(
            command(b"__schedule_bug:traceoff:5"),
            ("traceoff", Some(&b"5"[..]))
        );
        assert_eq!(command(b"__schedule_bug:traceoff"), ("traceoff", None));
        assert_eq!(
            command(b"__schedule_bug:traceon:"),
            ("traceon", Some(&b""[..]))
        );
        assert_eq!(
            command(b"native_flush_tlb_others:snapshot:1"),
            ("snapshot", Some(&b"1"[..]))
        );
        assert_eq!(
            command(b"try_to_wake_up:enable_event:sched:sched_switch:2"),
            ("enable_event", Some(&b"sched:sched_switch:2"[..]))
        );
        assert_eq!(
            command(b"schedule:disable_event:sched:sched_switch"),
            ("disable_event", Some(&b"sched:sched_switch"[..]))
        );
        assert_eq!(command(b"f:dump"), ("dump", None));
        assert_eq!(command(b"f:cpudump"), ("cpudump", None));
        assert_eq!(command(b"f:stacktrace:3"), ("stacktrace", Some(&b"3"[..])));
        // `!` detaches; the functions are named as for the list.
        let c = cmd(b"!__schedule_bug:traceoff:0");
        assert!(c.remove);
        assert!(picks(
            b"!__schedule_bug:traceoff:0",
            b"__schedule_bug",
            VMLINUX
        ));
        assert_eq!(selector(&c).module, ModuleFilter::Any);
        assert!(picks(b"hrtimer_*:traceon", b"hrtimer_start", VMLINUX));
    }

    #[test]
    fn unknown_commands_are_refused() {
        for word in [
            &b"f:bogus"[..],
            b"f:",
            b":",
            b"f::mod:x",
            b"f:MOD:x",
            b"f:traceon2",
        ] {
            assert_eq!(
                one(word),
                Err(InputError::UnknownFunctionCommand),
                "{word:?}"
            );
        }
    }

    #[test]
    fn graph_files_take_patterns_only() {
        let graph = |word| match parse_word(word, FilterFile::Graph) {
            Ok(c) => c,
            Err(e) => panic!("{word:?}: {e}"),
        };
        let c = graph(b"__do_fault");
        assert_eq!(c.action, Action::List);
        assert_eq!(selector(&c).module, ModuleFilter::Any);
        assert!(c.selects(&Site {
            line: 1,
            function: b"__do_fault",
            module: VMLINUX
        }));
        // A `:` is part of the pattern; no command, no module.
        let c = graph(b"write*:mod:ext3");
        assert_eq!(selector(&c).function.text(), b"write*:mod:ext3");
        assert_eq!(selector(&c).function.kind(), PatternKind::Glob);
        assert!(!selector(&c).selects(b"write_inode", EXT3));
        let c = graph(b"f:bogus");
        assert_eq!(selector(&c).function.text(), b"f:bogus");
        // A number is a pattern, which no function name matches.
        let c = graph(b"1");
        assert_eq!(selector(&c).function.text(), b"1");
        assert!(!c.selects(&Site {
            line: 1,
            function: b"schedule",
            module: VMLINUX
        }));
        assert!(graph(b"!sys_*").remove);
    }

    #[test]
    fn words_are_bounded() {
        let longest = [b'a'; MAX_WORD_LEN];
        assert!(one(&longest).is_ok());
        let too_long = [b'a'; MAX_WORD_LEN + 1];
        assert_eq!(one(&too_long), Err(InputError::PatternTooLong));
        assert_eq!(
            parse_word(&too_long, FilterFile::Graph),
            Err(InputError::PatternTooLong)
        );
        let mut text = [b' '; MAX_WORD_LEN + 3];
        if let Some(word) = text.get_mut(1..MAX_WORD_LEN + 2) {
            word.fill(b'x');
        }
        assert_eq!(
            all(&text, FilterFile::Function),
            [Err(InputError::PatternTooLong)]
        );
    }

    #[test]
    fn bytes_no_name_holds_are_refused() {
        for word in [&b"sched\x01"[..], b"\xffschedule", b"a\x7f"] {
            assert_eq!(one(word), Err(InputError::NotText), "{word:?}");
        }
        // A refused word does not stop the words after it from parsing.
        let words = all(b"a\x01 b", FilterFile::Function);
        assert_eq!(words.len(), 2);
        assert_eq!(words.first(), Some(&Err(InputError::NotText)));
        assert!(matches!(words.get(1), Some(Ok(_))));
    }

    #[test]
    fn new_errors_are_einval_with_a_message() {
        for e in [
            InputError::PatternTooLong,
            InputError::UnknownFunctionCommand,
            InputError::UnsupportedFunctionCommand,
            InputError::NoMatchingFunction,
        ] {
            assert_eq!(e.errno(), 22);
            assert!(!e.message().is_empty());
        }
    }
}
