//! Pure bit packing for Hopper wgmma operands in shared memory: the 64-bit matrix
//! descriptor ([`SmemDesc`]), the swizzle modes ([`Swizzle`]) and the canonical tile
//! layouts that the two must agree on ([`TileLayout`]); for Blackwell's `tcgen05.mma`, its
//! shared-memory descriptor ([`Tcgen05SmemDesc`], also from a `TileLayout`) and its
//! instruction descriptors ([`InstrDesc`] from [`MmaParams`]); and the parameters of TMA
//! tensor maps ([`TiledMap`], [`Im2colMap`]), checked as the driver requires.
//!
//! Nothing here depends on the rest of the crate, so host code (to plan shared memory,
//! or to check a kernel's addressing on the CPU) and the kernel builder (to bake a
//! descriptor into an immediate, or to compute per-thread store offsets) use the same
//! functions. Every constructor is a `const fn` and returns [`DescError`] rather than
//! truncating a field.
//!
//! Sources: the PTX ISA's wgmma sections "Matrix Descriptor Format" (9.7.15.5.1.2.2),
//! "Shared Memory Matrix Layout", "Leading/Stride Dimension Byte Offset" and "Canonical
//! Layouts" (9.7.15.5.1.2.1.x), <https://docs.nvidia.com/cuda/parallel-thread-execution/>;
//! CUTLASS `GmmaDescriptor` (include/cute/arch/mma_sm90_desc.hpp), `make_gmma_desc` and the
//! `Layout_*_Atom` definitions (include/cute/atom/mma_traits_sm90_gmma.hpp), `Swizzle`
//! (include/cute/swizzle.hpp); DeepGEMM's sm90 `make_gmma_desc`
//! (deep_gemm/include/deep_gemm/common/sm90_utils.cuh). For tcgen05: the PTX ISA's
//! "Matrix Descriptors" sections (9.7.16.4.1 shared memory, 9.7.16.4.2 instruction),
//! "Matrix Shape" (9.7.16.2.1) and "Block Scaling" (9.7.16.10.7); CUTLASS
//! `UMMA::SmemDescriptor`, `InstrDescriptor`, `InstrDescriptorBlockScaled`
//! (include/cute/arch/mma_sm100_desc.hpp) and `make_umma_desc`
//! (include/cute/atom/mma_traits_sm100.hpp); DeepGEMM's sm100 `make_umma_desc`
//! (deep_gemm/include/deep_gemm/common/sm100_utils.cuh). Each file cites what it uses.
//!
//! # Example
//!
//! A 64×64 bf16 K-major tile with 128B swizzle, at shared address 0x400:
//!
//! ```
//! use ptxkit::descriptors::{ElemBytes, Major, Swizzle, TileLayout};
//!
//! let tile = TileLayout::new(ElemBytes::B2, 64, 64, Major::K, Swizzle::B128)?;
//! assert_eq!((tile.bytes(), tile.base_alignment()), (8192, 1024));
//!
//! let desc = tile.desc(0x400)?;
//! println!("{desc}");
//! println!(
//!     "start {:#x}, LBO {}, SBO {}, base offset {}, {}",
//!     desc.start_addr(),
//!     desc.lbo(),
//!     desc.sbo(),
//!     desc.base_offset(),
//!     desc.swizzle()
//! );
//! assert_eq!((desc.start_addr(), desc.lbo(), desc.sbo()), (0x400, 16, 1024));
//! assert_eq!(desc.bits(), 0x4000_0040_0001_0040);
//!
//! // Element (row 1, col 0) is stored one 16-byte chunk to the right: the 128B XOR.
//! assert_eq!(tile.offset(1, 0), 128 + 16);
//!
//! // The third wgmma along K (16 bf16 each) reads from 64 bytes further on.
//! assert_eq!(tile.k_step_offset(2)?, 64);
//! assert_eq!(tile.k_desc(0x400, 2)?.start_addr(), 0x440);
//!
//! // A 128B swizzle needs a 1024-byte aligned tile.
//! assert!(tile.desc(0x200).is_err());
//! # Ok::<(), ptxkit::descriptors::DescError>(())
//! ```

mod desc;
mod error;
mod layout;
mod operand;
mod swizzle;
mod tcgen05;
mod tcgen05_instr;
mod tcgen05_params;
mod tensor_map;

pub use desc::{SmemDesc, MAX_FIELD_BYTES};
pub use error::DescError;
pub use layout::{AtomOrder, TileLayout};
pub use operand::{ElemBytes, Major, K_SLICE_BYTES, SHARED_WINDOW};
pub use swizzle::Swizzle;
pub use tcgen05::{LboMode, Tcgen05SmemDesc, Tcgen05Swizzle};
pub use tcgen05_instr::{
    F16Type, F8f6f4Type, FloatAccum, Fp4K, Fp4Scale, I8Type, InstrDesc, KindTag, MaxShift, MmaIssue, MmaKind, MmaParams, Sparsity,
};
pub use tensor_map::{
    Field, Im2colMap, Interleave, L2Promotion, OobFill, TensorDataType, TensorMapError, TiledMap, MAX_BOX_DIM, MAX_DIM, MAX_ELEMENT_STRIDE,
    MAX_STRIDE_BYTES,
};

#[cfg(test)]
mod tcgen05_instr_tests;
#[cfg(test)]
mod tcgen05_tests;

/// The random round trips' generator: a fresh seed each run, printed, unless `PTXKIT_SEED`
/// sets it (to replay a failure).
#[cfg(test)]
pub(crate) mod test_rng {
    /// The seed of `test`, printed.
    pub fn seed(test: &str) -> u64 {
        let seed = std::env::var("PTXKIT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random);
        println!("{test}: seed {seed} (PTXKIT_SEED={seed} replays it)");
        seed
    }
    /// splitmix64.
    pub fn next(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
