// SPDX-License-Identifier: GPL-2.0

//! The kernel internals the patch engine and the function_graph tracer
//! need that Linux does not export.
//!
//! Resolved once, at load, through `kallsyms_lookup_name` (itself found by
//! placing a kprobe on it); `insmod` fails with a message naming whatever is
//! missing. Everything else reaches these symbols only through the small
//! safe wrappers here.
//!
//! Supported kernels: Linux 6.16 to 7.2 on x86-64 (the batch text-patching
//! API took its `smp_text_poke_*` names in 6.16); tested on 7.2. With
//! `CONFIG_X86_KERNEL_IBT` a function starts with `endbr64` and its
//! `__fentry__` call follows at +4; the ftrace records, and so the engine,
//! always name the call site itself. Kernels with `CONFIG_CFI` (kCFI) are
//! not supported: the indirect calls made here carry no type hash.

use crate::bindings;
use crate::symbols;
use core::ffi::c_void;
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use kernel::ffi::c_char;
use kernel::{c_str, prelude::*, str::CStr, sync::SetOnce};

type LookupNameFn = unsafe extern "C" fn(*const c_char) -> usize;
type PokeBatchAddFn = unsafe extern "C" fn(*mut c_void, *const c_void, usize, *const c_void);
type PokeBatchFinishFn = unsafe extern "C" fn();
type RecIterStartFn = unsafe extern "C" fn() -> *mut c_void;
type RecIterNextFn = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
type RecIterRecordFn = unsafe extern "C" fn(*mut c_void) -> *mut bindings::dyn_ftrace;
type ModuleAddressFn = unsafe extern "C" fn(usize) -> *mut bindings::module;
type LookupIpFn = unsafe extern "C" fn(*mut FtraceHash, usize) -> *mut c_void;
type StackTraceSaveRegsFn =
    unsafe extern "C" fn(*mut bindings::pt_regs, *mut usize, u32, u32) -> u32;
/// `task_call_f`: called with the task held still, and the caller's data.
pub(crate) type TaskCallback = unsafe extern "C" fn(*mut bindings::task_struct, *mut c_void) -> i32;
type TaskCallFuncFn =
    unsafe extern "C" fn(*mut bindings::task_struct, TaskCallback, *mut c_void) -> i32;
type GetKprobeFn = unsafe extern "C" fn(*mut c_void) -> *mut bindings::kprobe;

/// The start of `struct ftrace_hash` (kernel/trace/trace.h, private to
/// kernel/trace; unchanged from 5.x to 7.2): the fields read here.
#[repr(C)]
pub(crate) struct FtraceHash {
    size_bits: usize,
    buckets: *mut c_void,
    count: usize,
    flags: usize,
}

/// `FTRACE_HASH_FL_MOD`: the hash holds module patterns still to be applied.
const FTRACE_HASH_FL_MOD: usize = 1;

/// The resolved symbols.
///
/// # Invariants
///
/// Every field is the address of the kernel object of that name, of the
/// type the kernel declares for it.
struct KernelSymbols {
    lookup_name: LookupNameFn,
    text_mutex: *mut bindings::mutex,
    ftrace_lock: *mut bindings::mutex,
    poke_batch_add: PokeBatchAddFn,
    poke_batch_finish: PokeBatchFinishFn,
    rec_iter_start: RecIterStartFn,
    rec_iter_next: RecIterNextFn,
    rec_iter_record: RecIterRecordFn,
    ftrace_ops_list: *mut *mut bindings::ftrace_ops,
    ftrace_list_end: *mut bindings::ftrace_ops,
    ftrace_lookup_ip: LookupIpFn,
    module_address: ModuleAddressFn,
    stack_trace_save_regs: StackTraceSaveRegsFn,
    task_call_func: TaskCallFuncFn,
    get_kprobe: GetKprobeFn,
    /// `__irqentry_text_start` and `__irqentry_text_end`: the interrupt
    /// entry functions, which function_graph output marks.
    irqentry_text: core::ops::Range<usize>,
    /// `_stext` and `_etext`: the kernel image's text.
    kernel_text: core::ops::Range<usize>,
}

// SAFETY: the symbols are addresses of kernel objects that live as long as
// the kernel; every use goes through the locks the kernel uses for them.
unsafe impl Send for KernelSymbols {}
// SAFETY: as above; the struct itself is never changed after it is set.
unsafe impl Sync for KernelSymbols {}

static SYMBOLS: SetOnce<KernelSymbols> = SetOnce::new();

/// The symbols, once [`resolve`] succeeded.
fn symbols() -> Result<&'static KernelSymbols> {
    SYMBOLS.as_ref().ok_or(ENODEV)
}

/// The start of the function a kprobe was placed in: the probe sits after
/// an `endbr64` when the kernel has indirect branch tracking, and an
/// indirect call must land on the `endbr64`.
fn function_start(probed: usize) -> usize {
    const ENDBR64: [u8; 4] = [0xf3, 0x0f, 0x1e, 0xfa];
    let mut before = [0u8; 4];
    match read_text(probed.wrapping_sub(4), &mut before) {
        Ok(()) if before == ENDBR64 => probed - 4,
        _ => probed,
    }
}

/// Copies kernel text at `address` into `out`; fails if it is not mapped.
pub(crate) fn read_text(address: usize, out: &mut [u8]) -> Result {
    // SAFETY: `copy_from_kernel_nofault` checks the source and writes at
    // most `out.len()` bytes into `out`.
    let ret = unsafe {
        bindings::copy_from_kernel_nofault(
            out.as_mut_ptr().cast(),
            address as *const c_void,
            out.len(),
        )
    };
    if ret == 0 {
        Ok(())
    } else {
        Err(EFAULT)
    }
}

/// Resolves every symbol, or fails naming (in the kernel log) each one that
/// is missing.
pub(crate) fn resolve() -> Result {
    if SYMBOLS.as_ref().is_some() {
        return Ok(());
    }
    let Some(probed) = symbols::address_of(c_str!("kallsyms_lookup_name")) else {
        pr_err!("cannot find kallsyms_lookup_name (kprobes needed)\n");
        return Err(ENOENT);
    };
    // SAFETY: the address is the start of `kallsyms_lookup_name`, whose C
    // type is `LookupNameFn`.
    let lookup: LookupNameFn = unsafe { core::mem::transmute(function_start(probed)) };
    let mut missing = false;
    let mut find = |name: &CStr| {
        // SAFETY: `name` is NUL-terminated; the lookup may sleep, and this
        // runs at module load.
        let address = unsafe { lookup(name.as_char_ptr()) };
        if address == 0 {
            pr_err!(
                "kernel symbol {} not found; this kernel is not supported\n",
                name
            );
            missing = true;
        }
        address
    };
    let addresses = [
        find(c_str!("text_mutex")),
        find(c_str!("ftrace_lock")),
        find(c_str!("smp_text_poke_batch_add")),
        find(c_str!("smp_text_poke_batch_finish")),
        find(c_str!("ftrace_rec_iter_start")),
        find(c_str!("ftrace_rec_iter_next")),
        find(c_str!("ftrace_rec_iter_record")),
        find(c_str!("ftrace_ops_list")),
        find(c_str!("ftrace_list_end")),
        find(c_str!("ftrace_lookup_ip")),
        find(c_str!("__module_address")),
        find(c_str!("stack_trace_save_regs")),
        find(c_str!("task_call_func")),
        find(c_str!("get_kprobe")),
        find(c_str!("__irqentry_text_start")),
        find(c_str!("__irqentry_text_end")),
        find(c_str!("_stext")),
        find(c_str!("_etext")),
    ];
    if missing {
        return Err(ENOENT);
    }
    let [text_mutex, ftrace_lock, add, finish, start, next, record, list, end, lookup_ip, module, stack, task_call, kprobe, irq_start, irq_end, stext, etext] =
        addresses;
    // SAFETY: each address is the kernel's symbol of that name, whose C
    // declaration has the Rust type it is converted to (the invariant of
    // `KernelSymbols`).
    let resolved = unsafe {
        KernelSymbols {
            lookup_name: lookup,
            text_mutex: text_mutex as *mut bindings::mutex,
            ftrace_lock: ftrace_lock as *mut bindings::mutex,
            poke_batch_add: core::mem::transmute::<usize, PokeBatchAddFn>(add),
            poke_batch_finish: core::mem::transmute::<usize, PokeBatchFinishFn>(finish),
            rec_iter_start: core::mem::transmute::<usize, RecIterStartFn>(start),
            rec_iter_next: core::mem::transmute::<usize, RecIterNextFn>(next),
            rec_iter_record: core::mem::transmute::<usize, RecIterRecordFn>(record),
            ftrace_ops_list: list as *mut *mut bindings::ftrace_ops,
            ftrace_list_end: end as *mut bindings::ftrace_ops,
            ftrace_lookup_ip: core::mem::transmute::<usize, LookupIpFn>(lookup_ip),
            module_address: core::mem::transmute::<usize, ModuleAddressFn>(module),
            stack_trace_save_regs: core::mem::transmute::<usize, StackTraceSaveRegsFn>(stack),
            task_call_func: core::mem::transmute::<usize, TaskCallFuncFn>(task_call),
            get_kprobe: core::mem::transmute::<usize, GetKprobeFn>(kprobe),
            irqentry_text: irq_start..irq_end,
            kernel_text: stext..etext,
        }
    };
    SYMBOLS.populate(resolved);
    Ok(())
}

/// The address of the kernel symbol `name`, for symbols only some
/// features need (none before [`resolve`]).
pub(crate) fn address_of(name: &CStr) -> Option<usize> {
    let symbols = symbols().ok()?;
    // SAFETY: `name` is NUL-terminated; the lookup may sleep, and callers
    // are in process context.
    let address = unsafe { (symbols.lookup_name)(name.as_char_ptr()) };
    (address != 0).then_some(address)
}

/// Whether some task holds `text_mutex`: text is being patched (by the
/// kernel's ftrace, static keys, kprobes or rftrace). Any context.
pub(crate) fn text_mutex_held() -> bool {
    // SAFETY: `text_mutex` is the kernel's mutex; reading its owner word
    // is what `mutex_is_locked` does, from any context.
    symbols().is_ok_and(|s| unsafe { bindings::rft_mutex_is_locked(s.text_mutex) })
}

/// Text-patching batches of rftrace's under way: counted from
/// [`FtraceLocked::patch`] to the end of the [`TextPatcher`].
static BATCHES_IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// How many of rftrace's text-patching batches are under way.
pub(crate) fn batches_in_flight() -> usize {
    BATCHES_IN_FLIGHT.load(Relaxed)
}

/// The kernel's interrupt entry text (empty before [`resolve`]).
pub(crate) fn irqentry_text() -> core::ops::Range<usize> {
    symbols().map_or(0..0, |s| s.irqentry_text.clone())
}

/// The kernel image's text (empty before [`resolve`]).
pub(crate) fn kernel_text() -> core::ops::Range<usize> {
    symbols().map_or(0..0, |s| s.kernel_text.clone())
}

/// Saves into `store` the stack at `regs`: its instruction pointer, then
/// the return addresses the kernel's unwinder finds from its stack pointer
/// on. Returns how many entries it saved (none before [`resolve`]). Any
/// context may call it.
pub(crate) fn stack_trace_from(regs: &bindings::pt_regs, store: &mut [usize]) -> usize {
    let Ok(symbols) = symbols() else {
        return 0;
    };
    let size = u32::try_from(store.len()).unwrap_or(u32::MAX);
    // SAFETY: `store` has room for `size` entries; the walk only reads
    // `regs` (the kernel's pointer is not const), and may run in any
    // context, as the kernel's kprobe and perf paths call it.
    let saved = unsafe {
        (symbols.stack_trace_save_regs)(
            core::ptr::from_ref(regs).cast_mut(),
            store.as_mut_ptr(),
            size,
            0,
        )
    };
    (saved as usize).min(store.len())
}

/// `task_call_func`: calls `callback(task, arg)` with `task` held still
/// by the scheduler (it is neither woken, scheduled in nor out meanwhile;
/// the callback runs with interrupts off, under the task's `pi_lock` and,
/// unless the task is blocked, its runqueue's lock). Returns what the
/// callback returned, or `ENODEV` before [`resolve`].
///
/// # Safety
///
/// `task` is a live task; `callback` may be called with `arg` in that
/// context, and takes no lock the scheduler's locks nest inside.
pub(crate) unsafe fn call_with_task_held(
    task: *mut bindings::task_struct,
    callback: TaskCallback,
    arg: *mut c_void,
) -> Result<i32> {
    let symbols = symbols()?;
    // SAFETY: the kernel's `task_call_func`, with the caller's guarantees.
    Ok(unsafe { (symbols.task_call_func)(task, callback, arg) })
}

/// Whether a kprobe is registered at `address`, armed or not. A kprobe on
/// an `__fentry__` site is carried by the kernel's ftrace once it is armed;
/// a disabled one is not, yet it would arm through ftrace when enabled.
pub(crate) fn kprobe_at(address: usize) -> bool {
    let Ok(symbols) = symbols() else {
        return false;
    };
    let _rcu = kernel::sync::rcu::read_lock();
    // SAFETY: `get_kprobe` walks the kprobe table under RCU, held; only
    // whether it found one is used, not the kprobe itself.
    !unsafe { (symbols.get_kprobe)(address as *mut c_void) }.is_null()
}

/// The module whose memory holds `address`, or null: a pointer to compare,
/// not a reference (the module may go right after).
pub(crate) fn module_of(address: usize) -> *mut bindings::module {
    let Ok(symbols) = symbols() else {
        return core::ptr::null_mut();
    };
    let _rcu = kernel::sync::rcu::read_lock();
    // SAFETY: `__module_address` walks the module tree under RCU, held.
    unsafe { (symbols.module_address)(address) }
}

/// The kernel's `ftrace_lock`, held: the kernel's ftrace records and ops
/// list cannot change, and text may be patched once [`FtraceLocked::patch`]
/// also takes `text_mutex` (the kernel's order: `ftrace_lock`, then
/// `text_mutex`).
///
/// # Invariants
///
/// `ftrace_lock` is held by this task while the value exists.
pub(crate) struct FtraceLocked {
    symbols: &'static KernelSymbols,
}

impl FtraceLocked {
    /// Takes `ftrace_lock`; may sleep.
    pub(crate) fn lock() -> Result<Self> {
        let symbols = symbols()?;
        // SAFETY: `ftrace_lock` is the kernel's mutex; process context.
        unsafe { bindings::rft_mutex_lock(symbols.ftrace_lock) };
        // INVARIANT: locked just above.
        Ok(FtraceLocked { symbols })
    }

    /// Calls `f` on every ftrace record (each `__fentry__` call site the
    /// kernel knows, in vmlinux and in loaded modules), in the kernel's
    /// order.
    pub(crate) fn for_each_record(&self, mut f: impl FnMut(FtraceRecord<'_>)) {
        // SAFETY: the record iterator is protected by `ftrace_lock`, held
        // (the type invariant).
        let mut iter = unsafe { (self.symbols.rec_iter_start)() };
        while !iter.is_null() {
            // SAFETY: `iter` is a live iterator position; the record it
            // names is valid while `ftrace_lock` is held.
            let rec = unsafe { (self.symbols.rec_iter_record)(iter) };
            f(FtraceRecord { rec, _lock: self });
            // SAFETY: as above.
            iter = unsafe { (self.symbols.rec_iter_next)(iter) };
        }
    }

    /// The records of the call sites `ips`, found by address: one walk of
    /// every record, each looked up among the wanted addresses.
    ///
    /// Records are never remembered across a release of `ftrace_lock`: the
    /// kernel moves them within their page when it frees a module's init
    /// text (`ftrace_free_mem`), and frees pages that become empty, so a
    /// pointer kept from an earlier walk may name a neighbour's record or
    /// freed memory.
    pub(crate) fn records_at(&self, ips: impl Iterator<Item = usize>) -> Result<RecordIndex<'_>> {
        let mut entries = KVec::new();
        for ip in ips {
            entries.push(
                RecordSlot {
                    ip,
                    rec: core::ptr::null_mut(),
                },
                GFP_KERNEL,
            )?;
        }
        crate::portable::sort::heap_sort(&mut entries);
        let mut i = 0usize;
        self.for_each_record(|rec| {
            let ip = rec.ip();
            if let Ok(found) = entries.binary_search_by(|e| e.ip.cmp(&ip)) {
                if let Some(entry) = entries.get_mut(found) {
                    entry.rec = rec.rec;
                }
            }
            i += 1;
            if i % 4096 == 0 {
                // SAFETY: process context; only mutexes are held.
                unsafe { bindings::rft_cond_resched() };
            }
        });
        // INVARIANT: filled from this walk, under the lock `self` holds.
        Ok(RecordIndex {
            entries,
            _lock: self,
        })
    }

    /// How many of the kernel's registered ftrace users select the call
    /// site `ip` right now, and the record flags they imply, as the
    /// kernel's own accounting would set them had the site been visible to
    /// it (the rule of `__ftrace_hash_rec_update`).
    fn kernel_users_of(&self, ip: usize) -> KernelUsers {
        let mut users = KernelUsers::default();
        // SAFETY: the ops list is stable under `ftrace_lock`; ops on it are
        // valid (removed ops are never freed while listed).
        let mut ops = unsafe { *self.symbols.ftrace_ops_list };
        while !ops.is_null() && ops != self.symbols.ftrace_list_end {
            // SAFETY: `ops` is a listed, live `ftrace_ops`.
            let (flags, hashes, trampoline, next) = unsafe {
                (
                    (*ops).flags,
                    (*ops).func_hash,
                    (*ops).trampoline,
                    (*ops).next,
                )
            };
            let enabled = flags & bindings::RFT_FTRACE_OPS_FL_ENABLED != 0;
            // SAFETY: a registered ops has its hashes, read under
            // `ftrace_lock`.
            if enabled && !hashes.is_null() && unsafe { self.selects(&*hashes, ip) } {
                users.count += 1;
                users.regs |= flags & bindings::RFT_FTRACE_OPS_FL_SAVE_REGS != 0;
                users.ipmodify |= flags & bindings::RFT_FTRACE_OPS_FL_IPMODIFY != 0;
                users.direct |= flags & bindings::RFT_FTRACE_OPS_FL_DIRECT != 0;
                users.trampoline |= trampoline != 0;
            }
            ops = next;
        }
        users
    }

    /// Whether an ops with `hashes` selects `ip`: in its filter (an empty
    /// filter selects everything) and not in its notrace hash.
    ///
    /// # Safety
    ///
    /// `hashes` belongs to a registered ops; `ftrace_lock` is held.
    unsafe fn selects(&self, hashes: &bindings::ftrace_ops_hash, ip: usize) -> bool {
        let filter = hashes.filter_hash.cast::<FtraceHash>();
        let notrace = hashes.notrace_hash.cast::<FtraceHash>();
        // SAFETY: the hashes of a registered ops are live; the lookup
        // function treats an empty or null hash as holding nothing.
        unsafe {
            let in_filter =
                hash_is_empty(filter) || !(self.symbols.ftrace_lookup_ip)(filter, ip).is_null();
            in_filter && (self.symbols.ftrace_lookup_ip)(notrace, ip).is_null()
        }
    }

    /// Takes `text_mutex` too, for patching text.
    pub(crate) fn patch(&self) -> TextPatcher<'_> {
        // SAFETY: `text_mutex` is the kernel's mutex; taken after
        // `ftrace_lock`, in the kernel's order.
        unsafe { bindings::rft_mutex_lock(self.symbols.text_mutex) };
        BATCHES_IN_FLIGHT.fetch_add(1, Relaxed);
        // INVARIANT: locked just above.
        TextPatcher { lock: self }
    }
}

impl Drop for FtraceLocked {
    fn drop(&mut self) {
        // SAFETY: held by this task (the type invariant).
        unsafe { bindings::rft_mutex_unlock(self.symbols.ftrace_lock) };
    }
}

/// Whether a hash is empty as `ftrace_hash_empty` decides it.
///
/// # Safety
///
/// `hash` is null or a live `struct ftrace_hash`.
unsafe fn hash_is_empty(hash: *const FtraceHash) -> bool {
    if hash.is_null() {
        return true;
    }
    // SAFETY: live, by the caller's guarantee.
    let (count, flags) = unsafe { ((*hash).count, (*hash).flags) };
    count == 0 && flags & FTRACE_HASH_FL_MOD == 0
}

/// The kernel's ftrace users of one site, as [`FtraceLocked::kernel_users_of`]
/// counts them.
#[derive(Default)]
struct KernelUsers {
    count: usize,
    regs: bool,
    ipmodify: bool,
    direct: bool,
    trampoline: bool,
}

/// Why the kernel's ftrace cannot give a site to rftrace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Busy {
    /// The kernel's ftrace (a tracer, a kprobe, BPF, livepatch) uses it.
    InUse,
    /// The kernel marked the record unusable (a weak function's leftover).
    Invalid,
}

/// A wanted call site and its record, if the kernel has one.
struct RecordSlot {
    ip: usize,
    rec: *mut bindings::dyn_ftrace,
}

impl PartialEq for RecordSlot {
    fn eq(&self, other: &Self) -> bool {
        self.ip == other.ip
    }
}

impl Eq for RecordSlot {}

impl PartialOrd for RecordSlot {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for RecordSlot {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.ip.cmp(&other.ip)
    }
}

/// The ftrace records of some call sites, found by [`FtraceLocked::records_at`].
///
/// # Invariants
///
/// Every non-null `rec` is the kernel's live record of its `ip`, found
/// while the `ftrace_lock` that `_lock` holds was held; the kernel moves
/// and frees records only under that lock, so they stay true while the
/// index exists. `entries` is sorted by `ip`.
pub(crate) struct RecordIndex<'a> {
    entries: KVec<RecordSlot>,
    _lock: &'a FtraceLocked,
}

impl RecordIndex<'_> {
    /// The record of the call site `ip`, if the kernel has one.
    pub(crate) fn get(&self, ip: usize) -> Option<FtraceRecord<'_>> {
        let found = self.entries.binary_search_by(|e| e.ip.cmp(&ip)).ok()?;
        let rec = self.entries.get(found)?.rec;
        // INVARIANT: a live record, under the lock (the type invariant).
        (!rec.is_null()).then_some(FtraceRecord {
            rec,
            _lock: self._lock,
        })
    }
}

/// One of the kernel's ftrace records, seen with `ftrace_lock` held.
pub(crate) struct FtraceRecord<'a> {
    rec: *mut bindings::dyn_ftrace,
    _lock: &'a FtraceLocked,
}

impl FtraceRecord<'_> {
    /// The call site.
    pub(crate) fn ip(&self) -> usize {
        // SAFETY: the record is live while the lock is held.
        unsafe { (*self.rec).ip }
    }

    fn flags(&self) -> usize {
        // SAFETY: the record is live while the lock is held.
        unsafe { (*self.rec).flags }
    }

    fn set_flags(&mut self, flags: usize) {
        // SAFETY: the record is live and its flags are changed only under
        // `ftrace_lock`, held.
        unsafe { (*self.rec).flags = flags };
    }

    /// Whether rftrace could take the site: no user of the kernel's and not
    /// marked unusable.
    pub(crate) fn availability(&self) -> core::result::Result<(), Busy> {
        let flags = self.flags();
        if flags & bindings::RFT_FTRACE_FL_DISABLED != 0 {
            return Err(Busy::Invalid);
        }
        let in_use = bindings::RFT_FTRACE_REF_MAX
            | bindings::RFT_FTRACE_FL_ENABLED
            | bindings::RFT_FTRACE_FL_IPMODIFY
            | bindings::RFT_FTRACE_FL_DIRECT
            | bindings::RFT_FTRACE_FL_DIRECT_EN;
        if flags & in_use != 0 {
            return Err(Busy::InUse);
        }
        Ok(())
    }

    /// Takes the site from the kernel's ftrace: marks the record disabled,
    /// which every path of the kernel's ftrace that patches, counts or
    /// matches sites skips, so it leaves the site alone until
    /// [`Self::give_back`].
    pub(crate) fn take(&mut self) -> core::result::Result<(), Busy> {
        self.availability()?;
        self.set_flags(self.flags() | bindings::RFT_FTRACE_FL_DISABLED);
        Ok(())
    }

    /// Gives a site taken by [`Self::take`] back to the kernel's ftrace,
    /// which must find it as it left it (the NOP restored). Kernel users
    /// that started while rftrace held the site skipped it; their count is
    /// restored here, as the kernel itself does when it enables a module's
    /// records. Returns whether any exist: the kernel then still has to
    /// patch the site for them ([`kick_kernel_ftrace`]).
    pub(crate) fn give_back(&mut self, lock: &FtraceLocked) -> bool {
        let users = lock.kernel_users_of(self.ip());
        let mut flags = self.flags() & !bindings::RFT_FTRACE_FL_DISABLED;
        flags &= !(bindings::RFT_FTRACE_REF_MAX
            | bindings::RFT_FTRACE_FL_REGS
            | bindings::RFT_FTRACE_FL_TRAMP
            | bindings::RFT_FTRACE_FL_IPMODIFY
            | bindings::RFT_FTRACE_FL_DIRECT);
        flags |= users.count.min(bindings::RFT_FTRACE_REF_MAX);
        if users.regs {
            flags |= bindings::RFT_FTRACE_FL_REGS;
        }
        if users.count == 1 && users.trampoline {
            flags |= bindings::RFT_FTRACE_FL_TRAMP;
        }
        if users.ipmodify {
            flags |= bindings::RFT_FTRACE_FL_IPMODIFY;
        }
        if users.direct {
            flags |= bindings::RFT_FTRACE_FL_DIRECT;
        }
        self.set_flags(flags);
        users.count > 0
    }
}

/// `text_mutex` held (with `ftrace_lock`): sites can be patched.
///
/// # Invariants
///
/// `text_mutex` is held by this task while the value exists.
pub(crate) struct TextPatcher<'a> {
    lock: &'a FtraceLocked,
}

impl TextPatcher<'_> {
    /// Queues the replacement of the instruction at `address` by `insn`
    /// (breakpoint-based: CPUs that run into the site meanwhile trap and
    /// emulate the new instruction). Addresses must come in increasing
    /// order for the queue to be applied in batches; the queue is applied
    /// when full and by [`Self::finish`].
    ///
    /// # Safety
    ///
    /// `address` is the start of an instruction in kernel or module text
    /// that stays mapped, `insn` a complete instruction of the same length
    /// that is valid there.
    pub(crate) unsafe fn queue(&mut self, address: usize, insn: &[u8; 5]) {
        // SAFETY: `text_mutex` is held (the type invariant); the caller
        // vouches for the address and the instruction, which the kernel
        // copies before returning.
        unsafe {
            (self.lock.symbols.poke_batch_add)(
                address as *mut c_void,
                insn.as_ptr().cast(),
                insn.len(),
                core::ptr::null(),
            )
        };
    }

    /// Applies every queued replacement; returns once every CPU runs the
    /// new instructions.
    pub(crate) fn finish(&mut self) {
        // SAFETY: `text_mutex` is held (the type invariant).
        unsafe { (self.lock.symbols.poke_batch_finish)() };
    }
}

impl Drop for TextPatcher<'_> {
    fn drop(&mut self) {
        self.finish();
        BATCHES_IN_FLIGHT.fetch_sub(1, Relaxed);
        // SAFETY: held by this task (the type invariant).
        unsafe { bindings::rft_mutex_unlock(self.lock.symbols.text_mutex) };
    }
}

/// Makes the kernel's ftrace patch the sites `ips`, which were given back
/// with users waiting for them ([`FtraceRecord::give_back`]): the kernel
/// patches only when its own users change, so a short-lived user of
/// exactly these sites is registered and removed. Takes `ftrace_lock`
/// itself: call without it.
pub(crate) fn kick_kernel_ftrace(ips: &mut [usize]) -> Result {
    if ips.is_empty() {
        return Ok(());
    }
    // SAFETY: zeroed is a valid unregistered `ftrace_ops`; it is boxed so
    // that it stays put while registered.
    let mut ops = KBox::new(
        unsafe { core::mem::zeroed::<bindings::ftrace_ops>() },
        GFP_KERNEL,
    )?;
    ops.func = Some(kick_callback);
    let ops_ptr: *mut bindings::ftrace_ops = &mut *ops;
    // SAFETY: `ops` is a valid unregistered ops; `ips` are ftrace sites.
    let ret = unsafe {
        bindings::ftrace_set_filter_ips(ops_ptr, ips.as_mut_ptr().cast(), ips.len() as u32, 0, 1)
    };
    if ret != 0 {
        return Err(Error::from_errno(ret));
    }
    // SAFETY: `ops` has its filter; registering it updates the sites.
    let ret = unsafe { bindings::register_ftrace_function(ops_ptr) };
    if ret == 0 {
        // SAFETY: registered just above; unregistering waits until no CPU
        // runs its callback any more, so the box may then go.
        unsafe { bindings::unregister_ftrace_function(ops_ptr) };
    }
    // SAFETY: frees the filter hash `ftrace_set_filter_ips` allocated.
    unsafe { bindings::ftrace_free_filter(ops_ptr) };
    if ret != 0 {
        return Err(Error::from_errno(ret));
    }
    Ok(())
}

/// The callback of [`kick_kernel_ftrace`]'s ops: records nothing.
///
/// # Safety
///
/// Called by the kernel's ftrace as an ops callback; it reads no argument.
unsafe extern "C" fn kick_callback(
    _ip: usize,
    _parent_ip: usize,
    _ops: *mut bindings::ftrace_ops,
    _fregs: *mut bindings::ftrace_regs,
) {
}
