//! The typed builder over the core: kernels and device functions built from Rust closures
//! with typed parameters, structured control flow and guarded scopes, memory helpers,
//! directives, and module variables.

mod control;
mod directives;
mod memory;
mod module;
mod param_bytes;
mod params;

pub use crate::core::{check_ident, Directive, Error, Kernel, Module, Suffix, Target, Version};
pub use control::{LoopBound, LoopIndex, LoopLabels};
pub use module::{FuncRef, InitValue, KernelRef, Var};
pub use param_bytes::ParamBytes;
pub use params::{FuncValues, KernelParam, KernelParams, ScalarParam};
