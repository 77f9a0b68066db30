// SPDX-License-Identifier: GPL-2.0

//! Function name patterns, matched as ftrace matches them.
//!
//! ftrace sorts a pattern into one of five kinds before matching, so that the
//! common forms cost a plain comparison:
//!
//! | pattern    | kind                    | matches names that        |
//! | ---------- | ----------------------- | ------------------------- |
//! | `abc`      | [`PatternKind::Exact`]     | are `abc`                 |
//! | `abc*`     | [`PatternKind::Prefix`]    | start with `abc`          |
//! | `*abc`     | [`PatternKind::Suffix`]    | end with `abc`            |
//! | `*abc*`    | [`PatternKind::Substring`] | contain `abc`             |
//! | `a*c`, `a?c`, `[ab]c`, `a\*` | [`PatternKind::Glob`] | match the glob(7) pattern |
//!
//! A pattern is a glob as soon as it holds `?`, `[` or `\`, or a `*`
//! anywhere but at its two ends. Globs follow glob(7) as the kernel's
//! `glob_match()` does: `*` and `?` do not treat `/` or a leading `.`
//! specially, a class is complemented by a leading `!` (not `^`), `\`
//! escapes the next byte, and a `[` without its `]` is an ordinary byte.

/// How a [`Pattern`] compares names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PatternKind {
    /// `abc`: the name is the text.
    Exact,
    /// `abc*`: the name starts with the text.
    Prefix,
    /// `*abc`: the name ends with the text.
    Suffix,
    /// `*abc*`: the name contains the text.
    Substring,
    /// Anything else with a wildcard: the text is a glob(7) pattern.
    Glob,
}

/// A function or module name pattern, borrowed from the text written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pattern<'a> {
    /// The pattern as written.
    source: &'a [u8],
    /// How names are compared.
    kind: PatternKind,
    /// What names are compared with: the pattern without the `*` that chose
    /// `kind`, or the whole pattern for a glob.
    text: &'a [u8],
}

impl<'a> Pattern<'a> {
    /// Sorts `pattern` into its kind. Every byte string is a pattern: a
    /// malformed glob construct stands for itself.
    pub(crate) fn parse(pattern: &'a [u8]) -> Self {
        if needs_glob(pattern) {
            return Pattern {
                source: pattern,
                kind: PatternKind::Glob,
                text: pattern,
            };
        }
        let leading_star = pattern.first() == Some(&b'*');
        let trailing_star = pattern.len() > 1 && pattern.last() == Some(&b'*');
        let kind = match (leading_star, trailing_star) {
            (false, false) => PatternKind::Exact,
            (false, true) => PatternKind::Prefix,
            (true, false) => PatternKind::Suffix,
            (true, true) => PatternKind::Substring,
        };
        let start = usize::from(leading_star);
        let end = pattern.len() - usize::from(trailing_star);
        Pattern {
            source: pattern,
            kind,
            text: pattern.get(start..end).unwrap_or_default(),
        }
    }

    /// The pattern as written, wildcards and all.
    pub(crate) fn source(&self) -> &'a [u8] {
        self.source
    }

    /// How this pattern compares names.
    #[cfg(test)]
    pub(crate) fn kind(&self) -> PatternKind {
        self.kind
    }

    /// The bytes names are compared with: for `*abc*` that is `abc`, for a
    /// glob the whole pattern.
    #[cfg(test)]
    pub(crate) fn text(&self) -> &'a [u8] {
        self.text
    }

    /// Whether nothing is left to compare once the `*` are taken off (`""`,
    /// `*`, `**`). ftrace gives such a blank pattern a meaning of its own
    /// next to `:mod:`, where even `""` stands for every name.
    pub(crate) fn is_blank(&self) -> bool {
        self.text.is_empty()
    }

    /// Whether every name matches (`*`, `**`, `***`, ...). The empty pattern
    /// does not: it is the exact name `""`, which no function has.
    #[cfg(test)]
    pub(crate) fn is_match_all(&self) -> bool {
        match self.kind {
            PatternKind::Exact => false,
            PatternKind::Glob => self.text.iter().all(|&b| b == b'*'),
            PatternKind::Prefix | PatternKind::Suffix | PatternKind::Substring => {
                self.text.is_empty()
            }
        }
    }

    /// Whether `name` matches this pattern.
    pub(crate) fn matches(&self, name: &[u8]) -> bool {
        match self.kind {
            PatternKind::Exact => name == self.text,
            PatternKind::Prefix => name.starts_with(self.text),
            PatternKind::Suffix => name.ends_with(self.text),
            PatternKind::Substring => contains(name, self.text),
            PatternKind::Glob => glob_match(self.text, name),
        }
    }
}

/// Whether `pattern` needs the glob matcher: it holds `?`, `[` or `\`, or a
/// `*` that is neither its first nor its last byte.
fn needs_glob(pattern: &[u8]) -> bool {
    let last = pattern.len().saturating_sub(1);
    pattern.iter().enumerate().any(|(i, &b)| match b {
        b'*' => i != 0 && i != last,
        b'?' | b'[' | b'\\' => true,
        _ => false,
    })
}

/// Whether `needle` occurs in `haystack` (the empty needle always does).
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// The byte at `i`, or NUL past the end: patterns and names are compared as
/// C strings, which end at the first NUL.
fn byte_at(bytes: &[u8], i: usize) -> u8 {
    bytes.get(i).copied().unwrap_or(0)
}

/// Matches the whole of `name` against the glob(7) `pattern`, as the
/// kernel's `glob_match()` does.
///
/// Without recursion: on a mismatch the match resumes after the last `*`,
/// which takes one more byte of the name. Going back to that `*` alone is
/// enough because a `*` matches any bytes. The cost is at most the product of
/// both lengths.
pub(crate) fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    let mut p = 0;
    let mut n = 0;
    // After the last `*`: where its pattern continues, and how much of the
    // name it has swallowed so far.
    let mut last_star: Option<(usize, usize)> = None;
    loop {
        let c = byte_at(name, n);
        let token = byte_at(pattern, p);
        p += 1;
        let step = match token {
            b'*' => {
                if byte_at(pattern, p) == 0 {
                    return true;
                }
                last_star = Some((p, n));
                continue;
            }
            b'?' => Step::from_bool(c != 0),
            b'[' if c == 0 => return false,
            b'[' => match match_class(pattern, p, c) {
                ClassMatch::Hit(after) => {
                    p = after;
                    Step::Next
                }
                ClassMatch::Miss => Step::Mismatch,
                // An unclosed class is a literal `[`.
                ClassMatch::Malformed => literal(b'[', c),
            },
            b'\\' => {
                let escaped = byte_at(pattern, p);
                p += 1;
                literal(escaped, c)
            }
            other => literal(other, c),
        };
        match step {
            Step::Next => n += 1,
            Step::Matched => return true,
            Step::Mismatch => {
                // Let the last `*` take one more byte and try again.
                let Some((star_p, star_n)) = last_star.filter(|_| c != 0) else {
                    return false;
                };
                last_star = Some((star_p, star_n + 1));
                p = star_p;
                n = star_n + 1;
            }
        }
    }
}

/// The outcome of one pattern token against one byte of the name.
enum Step {
    /// The byte matched; go on with the next one.
    Next,
    /// Pattern and name ended together.
    Matched,
    /// The byte did not match.
    Mismatch,
}

impl Step {
    fn from_bool(matched: bool) -> Self {
        if matched {
            Step::Next
        } else {
            Step::Mismatch
        }
    }
}

/// Compares a literal pattern byte with the name's byte `c`; both being NUL
/// means both strings ended.
fn literal(expected: u8, c: u8) -> Step {
    match (expected == c, c) {
        (true, 0) => Step::Matched,
        (true, _) => Step::Next,
        (false, _) => Step::Mismatch,
    }
}

/// The outcome of a character class against one byte.
enum ClassMatch {
    /// The byte is in the class; the pattern goes on at this index, past `]`.
    Hit(usize),
    /// The byte is not in the class.
    Miss,
    /// The pattern ends before the class is closed.
    Malformed,
}

/// Matches `c` against the class whose body starts at `start`, just after
/// `[`. The body is an optional `!`, then spans `a` or `a-b` up to a `]`;
/// a `]` right at the start of the body is a member, not the end, and so is
/// a `-` just before the closing `]`.
fn match_class(pattern: &[u8], start: usize, c: u8) -> ClassMatch {
    let inverted = byte_at(pattern, start) == b'!';
    let mut i = start + usize::from(inverted);
    let mut member = false;
    let mut low = byte_at(pattern, i);
    i += 1;
    loop {
        if low == 0 {
            return ClassMatch::Malformed;
        }
        let mut high = low;
        if byte_at(pattern, i) == b'-' && byte_at(pattern, i + 1) != b']' {
            high = byte_at(pattern, i + 1);
            if high == 0 {
                return ClassMatch::Malformed;
            }
            i += 2;
        }
        member |= (low..=high).contains(&c);
        low = byte_at(pattern, i);
        i += 1;
        if low == b']' {
            break;
        }
    }
    if member != inverted {
        ClassMatch::Hit(i)
    } else {
        ClassMatch::Miss
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_and_text(pattern: &[u8]) -> (PatternKind, &[u8]) {
        let p = Pattern::parse(pattern);
        assert_eq!(p.source(), pattern);
        (p.kind(), p.text())
    }

    #[test]
    fn sorts_patterns_into_kinds() {
        use PatternKind::*;
        assert_eq!(
            kind_and_text(b"sys_nanosleep"),
            (Exact, &b"sys_nanosleep"[..])
        );
        assert_eq!(kind_and_text(b"hrtimer_*"), (Prefix, &b"hrtimer_"[..]));
        assert_eq!(kind_and_text(b"*_lock"), (Suffix, &b"_lock"[..]));
        assert_eq!(kind_and_text(b"*preempt*"), (Substring, &b"preempt"[..]));
        assert_eq!(kind_and_text(b"*"), (Suffix, &b""[..]));
        assert_eq!(kind_and_text(b"**"), (Substring, &b""[..]));
        assert_eq!(kind_and_text(b""), (Exact, &b""[..]));
        // `]`, `!` and `-` mean nothing outside a class.
        assert_eq!(kind_and_text(b"a]b!c-d"), (Exact, &b"a]b!c-d"[..]));
    }

    #[test]
    fn anything_else_is_a_glob() {
        for p in [
            &b"a*c"[..],
            b"***",
            b"*a*b",
            b"a**",
            b"*_[ab]?c",
            b"a?",
            b"?",
            b"[",
            b"\\*",
            b"ab\\",
            b"*a\\*",
        ] {
            assert_eq!(kind_and_text(p), (PatternKind::Glob, p), "{p:?}");
        }
    }

    #[test]
    fn plain_kinds_match() {
        let prefix = Pattern::parse(b"hrtimer_*");
        assert!(prefix.matches(b"hrtimer_interrupt"));
        assert!(prefix.matches(b"hrtimer_"));
        assert!(!prefix.matches(b"hrtimer"));
        assert!(!prefix.matches(b"__hrtimer_run_queues"));

        let substring = Pattern::parse(b"*preempt*");
        assert!(substring.matches(b"preempt_schedule"));
        assert!(substring.matches(b"__preempt_count_add"));
        assert!(substring.matches(b"preempt"));
        assert!(!substring.matches(b"preemp"));

        let suffix = Pattern::parse(b"*_lock");
        assert!(suffix.matches(b"_raw_spin_lock"));
        assert!(suffix.matches(b"_lock"));
        assert!(!suffix.matches(b"_raw_spin_lock_irq"));
        assert!(!suffix.matches(b"lock"));

        let exact = Pattern::parse(b"sys_nanosleep");
        assert!(exact.matches(b"sys_nanosleep"));
        assert!(!exact.matches(b"sys_nanosleep.cold"));
        assert!(!exact.matches(b"__sys_nanosleep"));
    }

    #[test]
    fn match_all_and_blank() {
        for p in [&b"*"[..], b"**", b"***", b"****"] {
            assert!(Pattern::parse(p).is_match_all(), "{p:?}");
            assert!(Pattern::parse(p).matches(b""));
            assert!(Pattern::parse(p).matches(b"schedule"));
        }
        let empty = Pattern::parse(b"");
        assert!(!empty.is_match_all());
        assert!(empty.is_blank());
        assert!(!empty.matches(b"schedule"));
        assert!(Pattern::parse(b"*").is_blank());
        assert!(!Pattern::parse(b"***").is_blank());
        assert!(!Pattern::parse(b"*?").is_match_all());
        assert!(!Pattern::parse(b"a*").is_match_all());
    }

    #[test]
    fn globs_from_the_ftrace_documentation() {
        let p = Pattern::parse(b"*_[ab]?c");
        assert!(p.matches(b"x_abc"));
        assert!(p.matches(b"_bxc"));
        assert!(p.matches(b"a_b_a?c"));
        assert!(!p.matches(b"x_cbc"));
        assert!(!p.matches(b"x_ac"));
        assert!(!p.matches(b"x_abcd"));

        let p = Pattern::parse(b"hrtimer_*_range_ns");
        assert!(p.matches(b"hrtimer_start_range_ns"));
        assert!(p.matches(b"hrtimer__range_ns"));
        assert!(!p.matches(b"hrtimer_start_range_ns_x"));
    }

    #[test]
    fn stars_match_any_run_of_bytes() {
        assert!(glob_match(b"a*c", b"ac"));
        assert!(glob_match(b"a*c", b"abbbc"));
        assert!(glob_match(b"a*c", b"acc"));
        assert!(!glob_match(b"a*c", b"acb"));
        assert!(glob_match(b"*aaaaa", b"aaaaaaaaaa"));
        assert!(!glob_match(b"*aaaaab", b"aaaaaaaaaa"));
        assert!(glob_match(b"*a*b*c", b"xxaxxbxxc"));
        assert!(!glob_match(b"*a*b*c", b"xxaxxcxxb"));
        assert!(glob_match(b"a**b", b"ab"));
        // `*` takes `/` and a leading `.` like any byte.
        assert!(glob_match(b"*", b".x/y"));
        assert!(glob_match(b"a*b", b"a/b"));
    }

    #[test]
    fn question_mark_takes_exactly_one_byte() {
        assert!(glob_match(b"a?c", b"abc"));
        assert!(!glob_match(b"a?c", b"ac"));
        assert!(!glob_match(b"a?c", b"abbc"));
        assert!(!glob_match(b"?", b""));
        assert!(glob_match(b"*?", b"x"));
        assert!(!glob_match(b"*?", b""));
    }

    #[test]
    fn classes() {
        assert!(glob_match(b"[ab]", b"a"));
        assert!(glob_match(b"[ab]", b"b"));
        assert!(!glob_match(b"[ab]", b"c"));
        assert!(!glob_match(b"[ab]", b""));
        assert!(glob_match(b"[a-c]x", b"bx"));
        assert!(!glob_match(b"[a-c]x", b"dx"));
        assert!(glob_match(b"[!a-c]", b"d"));
        assert!(!glob_match(b"[!a-c]", b"b"));
        // `]` first is a member, as is `-` before the closing `]`.
        assert!(glob_match(b"[]a]", b"]"));
        assert!(glob_match(b"[!]a]", b"b"));
        assert!(!glob_match(b"[!]a]", b"]"));
        assert!(glob_match(b"[a-]", b"-"));
        assert!(glob_match(b"[a-]", b"a"));
        assert!(!glob_match(b"[a-]", b"b"));
        // No escapes inside a class; a reversed range holds nothing.
        assert!(glob_match(b"[\\]", b"\\"));
        assert!(!glob_match(b"[z-a]", b"m"));
        // Several spans, then more pattern.
        assert!(glob_match(b"x[0-9a-f_]y", b"x_y"));
        assert!(glob_match(b"*[0-9]", b"cpu7"));
        assert!(!glob_match(b"*[0-9]", b"cpu"));
    }

    #[test]
    fn unclosed_class_is_literal() {
        assert!(glob_match(b"[ab", b"[ab"));
        assert!(!glob_match(b"[ab", b"a"));
        assert!(glob_match(b"a[", b"a["));
        assert!(glob_match(b"[a-", b"[a-"));
        assert!(glob_match(b"[!", b"[!"));
        assert!(glob_match(b"*[", b"xx["));
    }

    #[test]
    fn backslash_escapes() {
        assert!(glob_match(b"a\\*", b"a*"));
        assert!(!glob_match(b"a\\*", b"ab"));
        assert!(glob_match(b"\\?", b"?"));
        assert!(!glob_match(b"\\?", b"x"));
        assert!(glob_match(b"\\[a]", b"[a]"));
        assert!(glob_match(b"\\a", b"a"));
        // A trailing backslash escapes the end: it matches the name's end.
        assert!(glob_match(b"ab\\", b"ab"));
        assert!(!glob_match(b"ab\\", b"ab\\"));
    }

    #[test]
    fn the_whole_name_must_match() {
        assert!(!glob_match(b"a?", b"abc"));
        assert!(!glob_match(b"", b"a"));
        assert!(glob_match(b"", b""));
        assert!(!glob_match(b"abc", b"ab"));
    }
}
