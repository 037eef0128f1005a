//! Kernel parameters of raw bytes: [`ParamBytes<N>`] is a 64-byte-aligned block passed by
//! value, the form a TMA tensor map (or any other plain struct) travels in; `ParamBytes<N, A>`
//! is aligned to `A` bytes instead (a C struct passed by value, as nvcc declares it).

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
/// `N` is a multiple of 4 from 4 to 4096 for the default alignment of 64, and from 1 to
/// 4096 for an alignment `A` of 1 to 128 bytes (a power of two); a kernel with any other
/// size or alignment does not compile.
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
pub struct ParamBytes<const N: usize, const A: usize = 64> {
    sym: u32,
    owner: u32,
}

impl<const N: usize, const A: usize> ParamBytes<N, A> {
    /// The size in bytes.
    pub const BYTES: usize = N;
    const VALID_SIZE: () = assert!(
        N >= 1 && N <= 4096 && A.is_power_of_two() && A <= 128 && (A != 64 || (N % 4 == 0 && N >= 4)),
        "ParamBytes<N> needs N a multiple of 4, from 4 to 4096; ParamBytes<N, A> needs N from 1 to 4096 and A a power of two up to 128"
    );

    pub(crate) fn from_sym(sym: u32, owner: u32) -> Self {
        ParamBytes { sym, owner }
    }

    /// The parameter's first byte as a pointer to `T` elements in the `.param` space.
    pub fn ptr<T: DataType>(&self) -> ParamPtr<T> {
        Ptr::from_sym(self.sym, self.owner)
    }
}

impl<const N: usize, const A: usize> KernelParam for ParamBytes<N, A> {
    fn decl(name: &str) -> String {
        let () = Self::VALID_SIZE;
        format!(".param .align {A} .b8 {name}[{N}]")
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
        assert_eq!(<ParamBytes<12, 4> as KernelParam>::decl("p"), ".param .align 4 .b8 p[12]");
        assert_eq!(<ParamBytes<3, 1> as KernelParam>::decl("p"), ".param .align 1 .b8 p[3]");
    }
}
