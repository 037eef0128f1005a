#![doc = include_str!("../README.md")]

extern crate self as ptxkit;

pub mod builder;
pub mod core;
pub mod descriptors;
pub mod import;
pub mod intrinsics;
pub mod kernels;
pub mod ops;
pub mod ptxas;
pub mod reference;
pub mod regs;
#[cfg(feature = "cuda")]
pub mod runtime;
pub mod trace;
pub mod types;

#[doc(inline)]
pub use builder::{Error, FuncRef, Kernel, KernelRef, Module, Target, Version};
pub use ptxkit_macros::{op, ptx};
pub use regs::{BranchTargets, Label, NotPred, Ptr, Reg, SReg};

/// Everything a kernel author needs in scope: the builder and its parameter types, registers,
/// pointers and data types, `ptx!` and `op!`, the extension traits that give [`Kernel`] its
/// instruction sequences (loads and stores, vectors, thread indices, warp and block
/// collectives, barriers, matrix descriptors), and what an asynchronous tensor-core kernel
/// names: tensor maps, mbarrier rings and deadlines, tile layouts, the `order`, `wgmma`,
/// `tmem` and `roles` modules, tensor-memory addresses and the numbered chain parts.
pub mod prelude {
    pub use crate::builder::{
        Abi, Error, FuncRef, Kernel, KernelRef, LoopLabels, Module, ParamBytes, Target, TensorMap, TileRank, Var, Version,
        MAX_BRANCH_TARGETS,
    };
    pub use crate::descriptors::{AtomOrder, ElemBytes, Major, Swizzle, TileLayout};
    pub use crate::intrinsics::block::BlockOps;
    pub use crate::intrinsics::gmma::DescriptorOps;
    pub use crate::intrinsics::mbarrier::{BarrierOps, Deadline, Mbarrier, Publish, Ring};
    pub use crate::intrinsics::order::MemoryOps;
    pub use crate::intrinsics::thread::ThreadIndex;
    pub use crate::intrinsics::vector::VectorOps;
    pub use crate::intrinsics::warp::{LaneMask, WarpOps};
    pub use crate::intrinsics::{order, roles, tmem, wgmma};
    pub use crate::ops::num::{Dim, Lanes, Mnk};
    pub use crate::ops::{Acc, Generic};
    pub use crate::regs::{
        sreg, BranchTargets, Const, ConstPtr, GenericPtr, GlobalPtr, Label, LocalPtr, NotPred, ParamPtr, Ptr, Reg, SReg, Sampler,
        SharedPtr, Surface, Texture, TmemAddr,
    };
    pub use crate::types::*;
    pub use crate::{op, ptx};
}
