//! The typed builder over the core: kernels and device functions built from Rust closures
//! with typed parameters, structured control flow and guarded scopes, memory helpers (the
//! stack's `alloca` blocks among them), directives, module variables (texture, sampler and
//! surface references among them), and kernel parameters of raw bytes, tensor maps,
//! textures and surfaces.

mod calls;
mod control;
mod directives;
mod memory;
mod module;
mod param_bytes;
mod param_funcs;
mod params;
mod stack;
mod tensor_map;
mod textures;

pub use crate::core::{check_ident, Directive, Error, Kernel, Module, Suffix, Target, Version, MAX_BRANCH_TARGETS};
pub use calls::{Abi, FuncPtr, FuncRef};
pub use control::{LoopBound, LoopIndex, LoopLabels};
pub use module::{InitValue, KernelRef, Var};
pub use param_bytes::ParamBytes;
pub use param_funcs::{CallPrototype, Linkage, ParamFunc, ParamVar, ParamVars};
pub use params::{FuncValues, KernelParam, KernelParams, PointerParam, ScalarParam};
pub use stack::AllocaLen;
pub use tensor_map::{TensorElem, TensorMap, TileRank};
pub use textures::{AddressMode, FilterMode, SamplerState};
