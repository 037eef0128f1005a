//! What a kernel's probes refer to. A bounded wait that records its timeout
//! ([`Deadline::recording`](crate::intrinsics::mbarrier::Deadline::recording)) and a timeline
//! stamp ([`crate::intrinsics::timeline`]) write small numbers on the device; this table,
//! filled while the kernel is built and carried by its [`KernelRef`](crate::builder::KernelRef),
//! turns them back into barrier names, event names and Rust source locations on the host.

/// The names a kernel's probes write by number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Probes {
    barriers: Vec<String>,
    waits: Vec<WaitSite>,
    events: Vec<String>,
}

/// One bounded wait of a kernel: which barrier array it waits on and where in the Rust
/// source it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitSite {
    /// The barrier array (`k.mbarriers(name, ..)`, a ring's `{name}_full`/`{name}_empty`), or
    /// `None` for a barrier made from a bare pointer.
    pub barrier: Option<String>,
    /// The Rust file, line and column of the call that emitted the wait.
    pub file: &'static str,
    pub line: u32,
    pub column: u32,
}

impl std::fmt::Display for WaitSite {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

impl Probes {
    /// The barrier array of number `id` (as [`Probes::barrier`] returned it).
    pub fn barrier_name(&self, id: u32) -> Option<&str> {
        self.barriers.get(id as usize).map(String::as_str)
    }
    /// The bounded waits that record, by the site number the device writes.
    pub fn wait_sites(&self) -> &[WaitSite] {
        &self.waits
    }
    /// The timeline's event names, by the number the device writes.
    pub fn events(&self) -> &[String] {
        &self.events
    }
    /// Whether nothing was registered.
    pub fn is_empty(&self) -> bool {
        self.barriers.is_empty() && self.waits.is_empty() && self.events.is_empty()
    }

    /// The number of barrier array `name` (a new one for each array).
    pub(crate) fn barrier(&mut self, name: &str) -> u32 {
        self.barriers.push(name.to_string());
        self.barriers.len() as u32 - 1
    }
    /// The number of a new wait site.
    pub(crate) fn wait(&mut self, barrier: Option<u32>, at: &'static std::panic::Location<'static>) -> u32 {
        let barrier = barrier.and_then(|b| self.barriers.get(b as usize).cloned());
        self.waits.push(WaitSite { barrier, file: at.file(), line: at.line(), column: at.column() });
        self.waits.len() as u32 - 1
    }
    /// The number of event `name` (the same number for the same name).
    pub(crate) fn event(&mut self, name: &str) -> u32 {
        match self.events.iter().position(|e| e == name) {
            Some(i) => i as u32,
            None => {
                self.events.push(name.to_string());
                self.events.len() as u32 - 1
            }
        }
    }
}
