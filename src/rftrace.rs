// SPDX-License-Identifier: GPL-2.0

//! rftrace: the kernel's function tracer, rebuilt as a loadable Rust module.
//!
//! Loading the module registers `rftracefs`, a file system with the files,
//! formats and semantics of tracefs, and creates its mount point
//! `/sys/kernel/rftrace`. See `Documentation/design.rst` for how the pieces
//! fit together.

mod bench;
mod bindings;
mod control_files;
mod cpu_local;
mod events;
mod fentry;
mod full_waiters;
mod function_files;
mod function_filter;
mod function_probes;
mod function_tracer;
mod graph;
mod held_task;
mod instance;
mod instances;
mod kernel_api;
mod ksyms;
mod pid_filter;
mod portable;
mod probes;
mod rftracefs;
mod ring_buffer;
mod stack_trace;
mod symbols;
mod task_events;
mod task_info;
mod trace_readers;
mod tracer;
mod try_lock;
mod wait;

use kernel::{prelude::*, sync::Arc};

module! {
    type: Rftrace,
    name: "rftrace",
    authors: ["The rftrace developers"],
    description: "ftrace rebuilt as a loadable Rust module",
    license: "GPL",
    params: {
        bench_ms: u64 {
            default: 0,
            description: "At load, write 10-byte events to the buffer for this many milliseconds and log the cost per event, as ring_buffer_benchmark does (a benchmark; 0: none)",
        },
        bench_reader: u8 {
            default: 0,
            description: "With bench_ms: 1 runs a consumer that reads pages meanwhile, 0 none",
        },
        debug_patching: u8 {
            default: 0,
            description: "1: check every text-patching batch and report stray int3 traps in the kernel log (a debugging aid)",
        },
    },
}

/// The loaded module: the registered file system and the trace instances
/// it shows, over the patch engine. Fields drop in order: the probe events
/// first, then the module and CPU-hotplug followers of events, then the
/// file system, then the instances (and every tracer with them), then the
/// function_graph tracers' shadow stacks, then the engine.
#[pin_data]
struct Rftrace {
    probe_events: Option<probes::ProbeEvents>,
    module_events: Option<events::modules::ModuleEvents>,
    cpu_events: Option<events::hotplug::CpuEvents>,
    #[pin]
    fs: rftracefs::Registration,
    instances: InstancesListed,
    graph: GraphRunning,
    engine: EngineRunning,
    /// Last: the catalog outlives everything that uses its events.
    catalog: CatalogLoaded,
}

/// The event catalog is (or may be) filled; dropping this empties it, as
/// statics are not dropped when the module goes.
struct CatalogLoaded;

impl Drop for CatalogLoaded {
    fn drop(&mut self) {
        events::catalog::unload();
    }
}

/// The top-level instance is listed; dropping this shuts every instance
/// down and empties the list.
struct InstancesListed;

impl InstancesListed {
    fn list(top: Arc<instance::Instance>) -> Self {
        instances::list::set_top(top);
        InstancesListed
    }
}

impl Drop for InstancesListed {
    fn drop(&mut self) {
        instances::list::unload();
    }
}

/// The function_graph runtime is set up; dropping this tears it down.
struct GraphRunning;

impl GraphRunning {
    fn start() -> Result<Self> {
        graph::start()?;
        Ok(GraphRunning)
    }
}

impl Drop for GraphRunning {
    fn drop(&mut self) {
        // Probes at engine sites hook returns on the shadow stacks (and
        // use the engine, which stops after this).
        probes::tracepoint_attach::release();
        probes::attach::release();
        graph::stop();
    }
}

/// The patch engine is started; dropping this stops it.
struct EngineRunning;

impl EngineRunning {
    fn start(module: &'static ThisModule, debug_patching: bool) -> Result<Self> {
        fentry::start(module, debug_patching)?;
        Ok(EngineRunning)
    }
}

impl Drop for EngineRunning {
    fn drop(&mut self) {
        fentry::stop();
    }
}

impl kernel::InPlaceModule for Rftrace {
    fn init(module: &'static ThisModule) -> impl PinInit<Self, Error> {
        let debug_patching = *module_parameters::debug_patching.value() != 0;
        instances::list::init();
        probes::attach::init();
        probes::tracepoint_attach::init();
        probes::registry::init();
        events::catalog::init();
        events::tree::init();
        let engine = EngineRunning::start(module, debug_patching);
        let graph = GraphRunning::start();
        // The kernel's events, read once; without them rftrace still
        // traces functions.
        let events_loaded = events::catalog::load();
        if let Err(e) = &events_loaded {
            pr_warn!("kernel trace events not available ({e:?}); events/ shows none\n");
        }
        let top = instance::Instance::new_top();
        if let Ok(top) = &top {
            bench::run(
                top,
                *module_parameters::bench_ms.value(),
                *module_parameters::bench_reader.value() != 0,
            );
        }
        // Listed from here on: if loading fails below, dropping `listed`
        // shuts the instances down.
        let listed = top.map(InstancesListed::list);
        let module_events = match (&listed, events_loaded) {
            (Ok(_), Ok(())) => events::modules::ModuleEvents::follow()
                .inspect_err(|e| pr_warn!("module events not followed ({e:?})\n"))
                .ok(),
            _ => None,
        };
        let cpu_events = listed.as_ref().ok().and_then(|_| {
            events::hotplug::CpuEvents::follow()
                .inspect_err(|e| pr_warn!("events not renewed on CPUs back online ({e:?})\n"))
                .ok()
        });
        let probe_events = listed.as_ref().ok().map(|_| probes::ProbeEvents::start());
        try_pin_init!(Self {
            probe_events,
            module_events,
            cpu_events,
            engine: engine?,
            graph: graph?,
            fs <- rftracefs::Registration::new(module),
            instances: listed?,
            catalog: CatalogLoaded,
        })
    }
}
