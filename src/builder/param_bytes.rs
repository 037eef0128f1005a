//! Kernel parameters of raw bytes: [`ParamBytes<N>`] is a 64-byte-aligned block passed by
//! value, the form a TMA tensor map (or any other plain struct) travels in.

use super::KernelParam;
use crate::core::names::intern;
use crate::core::Kernel;
use crate::regs::{ParamPtr, Ptr};
use crate::types::DataType;

/// A kernel parameter of `N` bytes passed by value, declared `.param .align 64 .b8
/// name[N]`. Kernel code reads it with `ld.param` through [`ParamBytes::ptr`], at constant
/// offsets or at a register index. The host passes a `&HostBytes<N>`, or for
/// `ParamBytes<128>` a `&CUtensorMap` (see `ptxkit::runtime`, feature `cuda`).
///
/// `N` is a multiple of 4 from 4 to 4096; a kernel with any other size does not compile.
///
/// ```
/// use ptxkit::builder::ParamBytes;
/// use ptxkit::prelude::*;
/// let mut m = Module::new(Target::SM_90);
/// m.kernel("second_word", |k, (p, out): (ParamBytes<128>, GlobalPtr<U32>)| {
///     let w = ptx!(k, "ld.param.u32", p.ptr::<U32>().offset(1));
///     ptx!(k, "st.global.u32", out.offset(0), w);
/// })?;
/// let ptx = m.to_ptx()?;
/// assert!(ptx.contains(".param .align 64 .b8 second_word_param_0[128]"));
/// assert!(ptx.contains("ld.param.u32 %r1, [second_word_param_0+4];"), "{ptx}");
/// # Ok::<(), ptxkit::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ParamBytes<const N: usize> {
    sym: u32,
    owner: u32,
}

impl<const N: usize> ParamBytes<N> {
    /// The size in bytes.
    pub const BYTES: usize = N;
    const VALID_SIZE: () = assert!(N % 4 == 0 && N >= 4 && N <= 4096, "ParamBytes<N> needs N a multiple of 4, from 4 to 4096");

    /// The parameter's first byte as a pointer to `T` elements in the `.param` space.
    pub fn ptr<T: DataType>(&self) -> ParamPtr<T> {
        Ptr::from_sym(self.sym, self.owner)
    }
}

impl<const N: usize> KernelParam for ParamBytes<N> {
    fn decl(name: &str) -> String {
        let () = Self::VALID_SIZE;
        format!(".param .align 64 .b8 {name}[{N}]")
    }
    #[track_caller]
    fn declare(k: &mut Kernel, name: &str) -> Self {
        k.params.push(Self::decl(name));
        ParamBytes { sym: intern(name), owner: k.id }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(<ParamBytes<4> as KernelParam>::decl("p"), ".param .align 64 .b8 p[4]");
        assert_eq!(<ParamBytes<4096> as KernelParam>::decl("p"), ".param .align 64 .b8 p[4096]");
        assert_eq!(ParamBytes::<128>::BYTES, 128);
    }
}
