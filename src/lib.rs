//! # ptxkit
//!
//! NVIDIA GPU kernels written as typed Rust builder code that emits PTX.
//!
//! Every PTX opcode and modifier is a zero-sized type; an instruction is
//! `Op<Opcode, (Modifiers...)>`, and the trait impl generated from its family's table
//! fixes the result type and the operand kinds. [`ptx!`] maps a chain string such as
//! `"fma.rn.f32"` onto those types, so a wrong register type, a modifier the family does
//! not have, or a wrong operand count does not compile.
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_80);
//! m.kernel("saxpy", |k, (x, y, a, n): (GlobalPtr<F32>, GlobalPtr<F32>, Reg<F32>, Reg<U32>)| {
//!     let i = k.global_thread_index_x();
//!     let inb = ptx!(k, "setp.lt.u32", i, n);
//!     k.if_(inb, |k| {
//!         let xi = ptx!(k, "ld.global.f32", x.at(i));
//!         let yi = ptx!(k, "ld.global.f32", y.at(i));
//!         let r = ptx!(k, "fma.rn.f32", a, xi, yi);
//!         ptx!(k, "st.global.f32", y.at(i), r);
//!     });
//! }).unwrap();
//! let text = m.to_ptx().unwrap();
//! assert!(text.contains("fma.rn.f32"));
//! assert!(text.contains(".target sm_80"));
//! ```

extern crate self as ptxkit;

pub mod builder;
pub mod ops;
pub mod ptxas;
pub mod regs;
#[cfg(feature = "cuda")]
pub mod runtime;
pub mod types;

pub use builder::{Error, FuncRef, Kernel, KernelRef, Module, Target, Version};
pub use ptxkit_macros::ptx;
pub use regs::{Label, NotPred, Ptr, Reg, SReg};

/// Everything a kernel author needs in scope.
pub mod prelude {
    pub use crate::builder::{Error, FuncRef, Kernel, KernelRef, LoopLabels, Module, Target, Var, Version};
    pub use crate::ops::Generic;
    pub use crate::ptx;
    pub use crate::regs::{sreg, ConstPtr, GenericPtr, GlobalPtr, Label, LocalPtr, NotPred, ParamPtr, Ptr, Reg, SReg, SharedPtr};
    pub use crate::types::*;
}
