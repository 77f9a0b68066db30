// SPDX-License-Identifier: GPL-2.0

//! The text of the `README` file.
//!
//! It lists what rftrace can do now and nothing more: the kernel's ftrace
//! selftests search it to decide which cases apply, so a line here is a
//! promise that the feature works.

/// Contents of `README`.
pub(crate) const TEXT: &str = "\
rftrace mini-HOWTO (rftracefs, a tracefs-compatible file system)

 Mount:    mount -t rftracefs [-o [gid=<gid>]] nodev /sys/kernel/rftrace
   Mount options: uid=<id>  gid=<id>  mode=<octal permissions of the root>;
   gid adds the group to every directory and file

 Files in the root and in every instance:
  README\t\t- this file
  tracing_on\t\t- 0 stops recording, 1 resumes it
  current_tracer\t- the tracer in use; write a name from available_tracers
  available_tracers\t- the tracers built into rftrace
  trace_options\t\t- every general option, then those of the current tracer,
\t\t\t  one per line, as <option> or no<option>;
\t\t\t  write <option> to set it, no<option> to clear it
  options/\t\t- one file per option, holding 0 or 1
  available_filter_functions\t- the functions that can be traced,
\t\t\t  as func or func [module]
  available_filter_functions_addrs\t- the same, each after its call site's address
  enabled_functions\t- the functions whose call sites call rftrace now, with
\t\t\t  how many tracers and probes each calls
  set_ftrace_filter\t- the functions the function tracer traces (all if empty);
\t\t\t  writes take glob patterns (*, ?, [...]), !pattern to remove,
\t\t\t  a line number of available_filter_functions,
\t\t\t  pattern:mod:module (also before the module loads), :mod:module;
\t\t\t  > replaces the list, >> adds to it, an empty write clears it
  set_ftrace_notrace\t- functions never traced, written as set_ftrace_filter;
\t\t\t  it wins over set_ftrace_filter
  set_graph_function\t- function_graph traces only these functions and what
\t\t\t  they call (everything if empty); written as set_ftrace_filter,
\t\t\t  patterns only
  set_graph_notrace\t- function_graph leaves out these functions and what they call
  max_graph_depth\t- how deep function_graph follows calls (0: no limit)
  set_ftrace_pid\t- only these pids are traced (all if empty)
  set_ftrace_notrace_pid\t- these pids are never traced
\t\t\t  (options/function-fork: children of listed tasks join them)
  tracing_cpumask\t- hex mask of the CPUs that are traced (as %*pb prints it)
  error_log\t\t- why recent writes to these files were refused;
\t\t\t  write to it (echo > error_log) to clear it
  trace\t\t\t- the trace buffer as text, all CPUs merged by time; reading
\t\t\t  consumes nothing; open it with O_TRUNC (echo > trace) to clear it
  trace_pipe\t\t- like trace, but consumes what it prints and waits for more
  trace_marker\t\t- each write is recorded as a print event
  trace_marker_raw\t- each write (a 4-byte id, then data) is recorded as raw_data
  snapshot\t\t- the snapshot buffer, shown like trace; write
\t\t\t  1 to allocate it if needed and swap it with the main buffer,
\t\t\t  0 to free it, any other number to clear it
  instances\t\t- Make sub-buffers with: mkdir instances/foo
\t\t\t  Remove sub-buffer with rmdir
  per_cpu/\t\t- cpuN/trace, cpuN/trace_pipe: the same for one CPU;
\t\t\t  cpuN/trace_pipe_raw: its pages in the binary format, consumed;
\t\t\t  cpuN/stats: that CPU's buffer counters;
\t\t\t  cpuN/buffer_size_kb: that CPU's buffer size, writable;
\t\t\t  cpuN/snapshot: that CPU's part of the snapshot (write 2 clears it)
  saved_cmdlines\t- the task names kept for pids seen in events, saved at
\t\t\t  context switches while a function tracer runs or events are
\t\t\t  recorded (options/record-cmd), and by trace_marker writes
  saved_cmdlines_size\t- how many task names are kept; writing N (1 to 32768) keeps
\t\t\t  at least N (all that fit the kernel's allocation for N)
  saved_tgids\t\t- pid tgid: the thread group of pids, saved at context switches
\t\t\t  while events are recorded with options/record-tgid set, which
\t\t\t  also adds the TGID column to trace and trace_pipe
  printk_formats\t- address : \"string\" of each string the kernel's events
\t\t\t  record a pointer to (trace_printk() formats, tracepoint strings)
  buffer_size_kb\t- size of each CPU's buffer in KiB (X if they differ);
\t\t\t  writing resizes every CPU's buffer and empties it
  buffer_total_size_kb\t- the sizes of all CPUs' buffers added up
  buffer_percent\t- how full (0-100%) a CPU's buffer gets before a poll or
\t\t\t  splice of its per_cpu/cpuN/trace_pipe_raw wakes (0: any data)
  free_buffer\t\t- closing it shrinks the buffer to its minimum
  trace_clock\t\t- the clock that times events, [current] in brackets;
\t\t\t  write a name to switch (this empties the buffer)
  available_events\t- every kernel trace event, system:event
  set_event\t\t- the enabled events; write system:event (or system:*,
\t\t\t  :event, system) to enable, !system:event to disable
\t\t\t  Can enable module events via: :mod:<module>
\t\t\t  (kept until the module loads if it is not loaded)
  set_event_pid\t\t- only events of these pids are recorded (all if empty)
  set_event_notrace_pid\t- events of these pids are never recorded
\t\t\t  (options/event-fork: children of listed tasks join them)
  dynamic_events\t\t- Create/append/remove/show the generic dynamic events
\t\t\t  Write into this file to define/undefine new trace events.
  kprobe_events\t\t- Create/append/remove/show the kernel dynamic events
\t\t\t  Write into this file to define/undefine new trace events.
  uprobe_events\t\t- Create/append/remove/show the userspace dynamic events
\t\t\t  Write into this file to define/undefine new trace events.
\t  accepts: event-definitions (one definition per line)
\t   Format: p[:[<group>/][<event>]] <place> [<args>]
\t           r[maxactive][:[<group>/][<event>]] <place> [<args>]
\t           f[:[<group>/][<event>]] <func-name>[%return] [<args>]
\t           t[:[<group>/][<event>]] <tracepoint> [<args>]
\t           -:[<group>/][<event>]
\t    place: [<module>:]<symbol>[+<offset>]|<memaddr>
place (kretprobe): [<module>:]<symbol>[+<offset>]%return|<memaddr>
   place (uprobe): <path>:<offset>[%return][(ref_ctr_offset)]
\t     args: <name>=fetcharg[:type]
\t fetcharg: %<register>, @<address>, @<symbol>[+|-<offset>],
\t           $stack<index>, $stack, $retval, $comm, $arg<N>,
\t           +|-[u]<offset>(<fetcharg>), \\imm-value, \\\"imm-string\"
\t     kernel return probes support: $retval, $arg<N>, $comm
\t     type: s8/16/32/64, u8/16/32/64, x8/16/32/64, char, string, symbol,
\t           b<bit-width>@<bit-offset>/<container-size>, ustring,
\t           symstr, %pd/%pD, <type>\\[<array-size>\\]
  kprobe_profile\t- hits and misses of each kprobe event
  uprobe_profile\t- hits of each uprobe event
  events/\t\t- Directory containing all trace event subsystems:
      enable\t\t- Write 0/1 to enable/disable tracing of all events
      header_page, header_event: the binary page and event format;
\t\t\t  ftrace/print, ftrace/raw_data: format and id of the marker events;
\t\t\t  ftrace/function, ftrace/kernel_stack: those of the function tracer;
\t\t\t  ftrace/funcgraph_entry, ftrace/funcgraph_exit: those of function_graph
  events/<system>/\t- Directory containing all trace events for <system>:
      enable\t\t- Write 0/1 to enable/disable tracing of all <system>
\t\t\t  events (reads X when some are enabled)
  events/<system>/<event>/\t- Directory containing control files for
\t\t\t  <event>:
      enable\t\t- Write 0/1 to enable/disable tracing of <event>
      format\t\t- the layout of its records; id: its record type

 Tracers (echo NAME > current_tracer):
    nop\t\t- traces nothing
    function\t\t- every call of the functions set_ftrace_filter selects;
\t\t\t  options/func_stack_trace adds the stack after each call
    function_graph\t- the entry and return of those calls, shown as a call tree
\t\t\t  with durations; options/funcgraph-*, options/sleep-time
";
