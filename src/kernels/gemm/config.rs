//! What the configurations of every GEMM kernel share ([`GemmConfig`]): a ring of
//! shared-memory stages, checked once here for all of them, and a tile order.

/// The ring of shared-memory stages a configuration asks for, and its tile order: what
/// [`GemmConfig::check`] checks the same way for every kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageRing {
    /// Stages in the ring (2 to 8).
    pub stages: u32,
    /// Bytes of one stage (the A tile, then the B tile).
    pub stage_bytes: u32,
    /// Bytes of shared memory beside the ring (staging for C), and what they hold.
    pub extra_bytes: u32,
    pub extra: &'static str,
    /// Tile rows per band of the tile order (at least 1).
    pub group_m: u32,
    /// Tries of each bounded mbarrier wait before the kernel traps, where the kernel bounds
    /// its waits (at least 1).
    pub wait_tries: Option<u32>,
}

impl StageRing {
    /// Bytes of dynamic shared memory: the stages and what lies beside them.
    pub fn shared_bytes(&self) -> u32 {
        self.stages.saturating_mul(self.stage_bytes).saturating_add(self.extra_bytes)
    }

    /// Whether the ring fits in `max_shared` bytes of shared memory; the error says which
    /// field to change.
    pub fn check(&self, max_shared: u32) -> Result<(), String> {
        if !(2..=8).contains(&self.stages) {
            return Err(format!("stages = {} is outside 2..=8", self.stages));
        }
        if self.shared_bytes() > max_shared {
            let extra = if self.extra_bytes > 0 { format!(" and {} bytes of {}", self.extra_bytes, self.extra) } else { String::new() };
            return Err(format!(
                "{} stages of {} bytes{extra} need {} bytes of shared memory; at most {max_shared} fit: use fewer stages or a smaller tile",
                self.stages,
                self.stage_bytes,
                self.shared_bytes()
            ));
        }
        if self.group_m == 0 {
            return Err("group_m = 0: a band needs at least one tile row".into());
        }
        if self.wait_tries == Some(0) {
            return Err("wait_tries = 0: a wait needs at least one try".into());
        }
        Ok(())
    }
}

/// The configuration of a GEMM kernel: [`hopper::Config`](super::hopper::Config) (wgmma,
/// sm_90a), [`ampere::Config`](super::ampere::Config) (`mma.sync`, sm_80) and
/// [`blackwell::Config`](super::blackwell::Config) (tcgen05, sm_100a). Each says what is
/// particular to its kernel ([`check_kernel`](Self::check_kernel)); the ring of stages is
/// checked the same way for all ([`StageRing::check`]).
///
/// ```
/// use ptxkit::kernels::gemm::{ampere, blackwell, hopper, GemmConfig};
///
/// assert!(hopper::Config::default().check().is_ok());
/// let deep = hopper::Config { stages: 6, ..hopper::Config::default() };
/// assert!(deep.check().unwrap_err().contains("shared memory"));
/// assert!(ampere::Config { stages: 9, ..ampere::Config::default() }.check().unwrap_err().contains("stages = 9"));
/// assert!(blackwell::Config { group_m: 0, ..blackwell::Config::default() }.check().unwrap_err().contains("group_m"));
/// ```
pub trait GemmConfig: Copy + std::fmt::Debug + PartialEq {
    /// Bytes of dynamic shared memory one CTA of the kernel may use.
    const MAX_SHARED: u32;
    /// The ring of stages and the tile order.
    fn ring(&self) -> StageRing;
    /// The checks particular to the kernel (its tile, roles, warps); the error says which
    /// field is wrong.
    fn check_kernel(&self) -> Result<(), String>;
    /// Whether the kernel can be built as configured: [`check_kernel`](Self::check_kernel),
    /// then the ring ([`StageRing::check`]). The error says which field is wrong.
    fn check(&self) -> Result<(), String> {
        self.check_kernel()?;
        self.ring().check(Self::MAX_SHARED)
    }
}
