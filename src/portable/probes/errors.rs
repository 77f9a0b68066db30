// SPDX-License-Identifier: GPL-2.0

//! The errors of probe commands, as the kernel's `trace_probe.h` lists
//! them: every refused `kprobe_events`, `uprobe_events` or
//! `dynamic_events` command logs one of these messages in `error_log`,
//! with the caret where the kernel puts it.

/// One entry of the kernel's `ERRORS` table, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProbeErrorCode {
    /// Failed to find the given file
    FileNotFound,
    /// Not a regular file
    NoRegularFile,
    /// Invalid reference counter offset
    BadRefcnt,
    /// Reference counter brace is not closed
    RefcntOpenBrace,
    /// Reference counter has wrong suffix
    BadRefcntSuffix,
    /// Invalid uprobe offset
    BadUprobeOffs,
    /// Maxactive is only for function exit
    BadMaxactType,
    /// Invalid maxactive number
    BadMaxact,
    /// Maxactive is too big
    MaxactTooBig,
    /// Invalid probed address or symbol
    BadProbeAddr,
    /// The symbol is not unique
    NonUniqSymbol,
    /// Retprobe address must be an function entry
    BadRetprobe,
    /// Tracepoint is not found
    NoTracepoint,
    /// Invalid character in tracepoint name
    BadTpName,
    /// Invalid probed address suffix
    BadAddrSuffix,
    /// Group name is not specified
    NoGroupName,
    /// Group name is too long
    GroupTooLong,
    /// Group name must follow the same rules as C identifiers
    BadGroupName,
    /// Event name is not specified
    NoEventName,
    /// Event name is too long
    EventTooLong,
    /// Event name must follow the same rules as C identifiers
    BadEventName,
    /// Given group/event name is already used by another event
    EventExist,
    /// $retval is not available on probe
    RetvalOnProbe,
    /// This function returns 'void' type
    NoRetval,
    /// Invalid stack number
    BadStackNum,
    /// Invalid argument number
    BadArgNum,
    /// Invalid $-variable specified
    BadVar,
    /// Invalid register name
    BadRegName,
    /// Invalid memory address
    BadMemAddr,
    /// Invalid immediate value
    BadImm,
    /// String is not closed with '"'
    ImmstrNoClose,
    /// File offset is not available with kprobe
    FileOnKprobe,
    /// Invalid file offset value
    BadFileOffs,
    /// Symbol is not available with uprobe
    SymOnUprobe,
    /// Dereference is too much nested
    TooManyOps,
    /// Dereference needs a brace
    DerefNeedBrace,
    /// Invalid dereference offset
    BadDerefOffs,
    /// Dereference brace is not closed
    DerefOpenBrace,
    /// $comm can not be dereferenced
    CommCantDeref,
    /// Invalid fetch argument
    BadFetchArg,
    /// Array is not closed
    ArrayNoClose,
    /// Array has wrong suffix
    BadArraySuffix,
    /// Invalid array size
    BadArrayNum,
    /// Array number is too big
    ArrayTooBig,
    /// Unknown type is specified
    BadType,
    /// String accepts only memory argument
    BadString,
    /// Symbol String doesn't accept data/userdata
    BadSymstring,
    /// Invalid bitfield
    BadBitfield,
    /// Argument name is too long
    ArgNameTooLong,
    /// Argument name is not specified
    NoArgName,
    /// Argument name must follow the same rules as C identifiers
    BadArgName,
    /// This argument name is already used
    UsedArgName,
    /// Argument expression is too long
    ArgTooLong,
    /// No argument expression
    NoArgBody,
    /// Probe point is not an instruction boundary
    BadInsnBndry,
    /// Failed to register probe event
    FailRegProbe,
    /// Probe type is different from existing probe
    DiffProbeType,
    /// Argument type or name is different from existing probe
    DiffArgType,
    /// There is already the exact same probe event
    SameProbe,
    /// This requires both group and event name to attach
    NoEventInfo,
    /// Attached event does not exist
    BadAttachEvent,
    /// Attached event does not have this field
    BadAttachArg,
    /// No filter rule after 'if'
    NoEpFilter,
    /// BTF is not available or not supported
    NosupBtfarg,
    /// This variable is not found at this probe point
    NoBtfarg,
    /// No BTF entry for this probe point
    NoBtfEntry,
    /// $arg* must be an independent parameter without name etc.
    BadVarArgs,
    /// $arg* can be used only on function entry or exit
    NofentryArgs,
    /// $arg* can be used only once in the parameters
    DoubleArgs,
    /// $arg* failed because the argument list is too long
    Args2long,
    /// $argN index is too big
    Argidx2big,
    /// This is not a pointer to union/structure.
    NoPtrStrct,
    /// Non pointer structure/union argument is not supported.
    NosupDatArg,
    /// Failed to parse single hyphen. Forgot '>'?
    BadHyphen,
    /// This field is not found.
    NoBtfField,
    /// Failed to get BTF type info.
    BadBtfTid,
    /// This type does not fit for string.
    BadType4str,
    /// $comm and immediate-string only accepts string type
    NeedStringType,
    /// Too many arguments are specified
    TooManyArgs,
    /// Too many entry arguments specified
    TooManyEargs,
    /// Event too big (too many fields?)
    EventTooBig,
    /// Typecasts are only for eprobe fields
    TypecastNotEvent,
}

impl ProbeErrorCode {
    /// The message `error_log` shows.
    pub(crate) const fn message(self) -> &'static str {
        match self {
            ProbeErrorCode::FileNotFound => "Failed to find the given file",
            ProbeErrorCode::NoRegularFile => "Not a regular file",
            ProbeErrorCode::BadRefcnt => "Invalid reference counter offset",
            ProbeErrorCode::RefcntOpenBrace => "Reference counter brace is not closed",
            ProbeErrorCode::BadRefcntSuffix => "Reference counter has wrong suffix",
            ProbeErrorCode::BadUprobeOffs => "Invalid uprobe offset",
            ProbeErrorCode::BadMaxactType => "Maxactive is only for function exit",
            ProbeErrorCode::BadMaxact => "Invalid maxactive number",
            ProbeErrorCode::MaxactTooBig => "Maxactive is too big",
            ProbeErrorCode::BadProbeAddr => "Invalid probed address or symbol",
            ProbeErrorCode::NonUniqSymbol => "The symbol is not unique",
            ProbeErrorCode::BadRetprobe => "Retprobe address must be an function entry",
            ProbeErrorCode::NoTracepoint => "Tracepoint is not found",
            ProbeErrorCode::BadTpName => "Invalid character in tracepoint name",
            ProbeErrorCode::BadAddrSuffix => "Invalid probed address suffix",
            ProbeErrorCode::NoGroupName => "Group name is not specified",
            ProbeErrorCode::GroupTooLong => "Group name is too long",
            ProbeErrorCode::BadGroupName => {
                "Group name must follow the same rules as C identifiers"
            }
            ProbeErrorCode::NoEventName => "Event name is not specified",
            ProbeErrorCode::EventTooLong => "Event name is too long",
            ProbeErrorCode::BadEventName => {
                "Event name must follow the same rules as C identifiers"
            }
            ProbeErrorCode::EventExist => "Given group/event name is already used by another event",
            ProbeErrorCode::RetvalOnProbe => "$retval is not available on probe",
            ProbeErrorCode::NoRetval => "This function returns 'void' type",
            ProbeErrorCode::BadStackNum => "Invalid stack number",
            ProbeErrorCode::BadArgNum => "Invalid argument number",
            ProbeErrorCode::BadVar => "Invalid $-variable specified",
            ProbeErrorCode::BadRegName => "Invalid register name",
            ProbeErrorCode::BadMemAddr => "Invalid memory address",
            ProbeErrorCode::BadImm => "Invalid immediate value",
            ProbeErrorCode::ImmstrNoClose => "String is not closed with '\"'",
            ProbeErrorCode::FileOnKprobe => "File offset is not available with kprobe",
            ProbeErrorCode::BadFileOffs => "Invalid file offset value",
            ProbeErrorCode::SymOnUprobe => "Symbol is not available with uprobe",
            ProbeErrorCode::TooManyOps => "Dereference is too much nested",
            ProbeErrorCode::DerefNeedBrace => "Dereference needs a brace",
            ProbeErrorCode::BadDerefOffs => "Invalid dereference offset",
            ProbeErrorCode::DerefOpenBrace => "Dereference brace is not closed",
            ProbeErrorCode::CommCantDeref => "$comm can not be dereferenced",
            ProbeErrorCode::BadFetchArg => "Invalid fetch argument",
            ProbeErrorCode::ArrayNoClose => "Array is not closed",
            ProbeErrorCode::BadArraySuffix => "Array has wrong suffix",
            ProbeErrorCode::BadArrayNum => "Invalid array size",
            ProbeErrorCode::ArrayTooBig => "Array number is too big",
            ProbeErrorCode::BadType => "Unknown type is specified",
            ProbeErrorCode::BadString => "String accepts only memory argument",
            ProbeErrorCode::BadSymstring => "Symbol String doesn't accept data/userdata",
            ProbeErrorCode::BadBitfield => "Invalid bitfield",
            ProbeErrorCode::ArgNameTooLong => "Argument name is too long",
            ProbeErrorCode::NoArgName => "Argument name is not specified",
            ProbeErrorCode::BadArgName => {
                "Argument name must follow the same rules as C identifiers"
            }
            ProbeErrorCode::UsedArgName => "This argument name is already used",
            ProbeErrorCode::ArgTooLong => "Argument expression is too long",
            ProbeErrorCode::NoArgBody => "No argument expression",
            ProbeErrorCode::BadInsnBndry => "Probe point is not an instruction boundary",
            ProbeErrorCode::FailRegProbe => "Failed to register probe event",
            ProbeErrorCode::DiffProbeType => "Probe type is different from existing probe",
            ProbeErrorCode::DiffArgType => "Argument type or name is different from existing probe",
            ProbeErrorCode::SameProbe => "There is already the exact same probe event",
            ProbeErrorCode::NoEventInfo => "This requires both group and event name to attach",
            ProbeErrorCode::BadAttachEvent => "Attached event does not exist",
            ProbeErrorCode::BadAttachArg => "Attached event does not have this field",
            ProbeErrorCode::NoEpFilter => "No filter rule after 'if'",
            ProbeErrorCode::NosupBtfarg => "BTF is not available or not supported",
            ProbeErrorCode::NoBtfarg => "This variable is not found at this probe point",
            ProbeErrorCode::NoBtfEntry => "No BTF entry for this probe point",
            ProbeErrorCode::BadVarArgs => {
                "$arg* must be an independent parameter without name etc."
            }
            ProbeErrorCode::NofentryArgs => "$arg* can be used only on function entry or exit",
            ProbeErrorCode::DoubleArgs => "$arg* can be used only once in the parameters",
            ProbeErrorCode::Args2long => "$arg* failed because the argument list is too long",
            ProbeErrorCode::Argidx2big => "$argN index is too big",
            ProbeErrorCode::NoPtrStrct => "This is not a pointer to union/structure.",
            ProbeErrorCode::NosupDatArg => "Non pointer structure/union argument is not supported.",
            ProbeErrorCode::BadHyphen => "Failed to parse single hyphen. Forgot '>'?",
            ProbeErrorCode::NoBtfField => "This field is not found.",
            ProbeErrorCode::BadBtfTid => "Failed to get BTF type info.",
            ProbeErrorCode::BadType4str => "This type does not fit for string.",
            ProbeErrorCode::NeedStringType => "$comm and immediate-string only accepts string type",
            ProbeErrorCode::TooManyArgs => "Too many arguments are specified",
            ProbeErrorCode::TooManyEargs => "Too many entry arguments specified",
            ProbeErrorCode::EventTooBig => "Event too big (too many fields?)",
            ProbeErrorCode::TypecastNotEvent => "Typecasts are only for eprobe fields",
        }
    }
}

/// A refused command: what is wrong, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ProbeError {
    pub(crate) code: ProbeErrorCode,
    /// The byte offset of the caret, in the text the error is relative to
    /// (a word, or the logged command: the words joined by one space).
    pub(crate) pos: usize,
    /// A second error the kernel logs at the same place after `code`, as
    /// a second `error_log` entry.
    pub(crate) also: Option<ProbeErrorCode>,
}

impl ProbeError {
    /// `code` at `pos`.
    pub(crate) const fn at(code: ProbeErrorCode, pos: usize) -> Self {
        ProbeError {
            code,
            pos,
            also: None,
        }
    }

    /// `code` and then `then` at `pos`.
    pub(crate) const fn twice(code: ProbeErrorCode, then: ProbeErrorCode, pos: usize) -> Self {
        ProbeError {
            code,
            pos,
            also: Some(then),
        }
    }

    /// The same error, `by` bytes further right: an error found in a word
    /// moved to where that word starts in the command.
    pub(crate) const fn shifted(self, by: usize) -> Self {
        ProbeError {
            pos: self.pos + by,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_the_kernels() {
        assert_eq!(
            ProbeErrorCode::FileNotFound.message(),
            "Failed to find the given file"
        );
        assert_eq!(
            ProbeErrorCode::ImmstrNoClose.message(),
            "String is not closed with '\"'"
        );
        assert_eq!(
            ProbeErrorCode::TypecastNotEvent.message(),
            "Typecasts are only for eprobe fields"
        );
    }

    #[test]
    fn shifting_moves_the_caret() {
        let e = ProbeError::at(ProbeErrorCode::BadImm, 3).shifted(10);
        assert_eq!(e.pos, 13);
    }
}
