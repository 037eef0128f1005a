//! The thread's stack: typed `alloca` blocks and frames that free them.

use crate::core::Kernel;
use crate::ptx;
use crate::regs::{elem_bytes, LocalPtr, Ptr};
use crate::types::{DataType, Reg, U32, U64};

/// The length of an [`Kernel::alloca`] block, in elements: a `u32`/`u64` constant or a
/// `Reg<U32>`/`Reg<U64>`.
pub trait AllocaLen {
    #[doc(hidden)]
    fn alloca_bytes(self, k: &mut Kernel, elem: u32) -> Bytes;
}

#[doc(hidden)]
pub enum Bytes {
    Const(u64),
    Reg(Reg<U64>),
}

impl AllocaLen for u64 {
    #[track_caller]
    fn alloca_bytes(self, k: &mut Kernel, elem: u32) -> Bytes {
        match self.checked_mul(elem as u64) {
            Some(b) => Bytes::Const(b),
            None => {
                k.invalid(format!("alloca of {self} elements of {elem} bytes overflows 64 bits"));
                Bytes::Const(0)
            }
        }
    }
}
impl AllocaLen for u32 {
    #[track_caller]
    fn alloca_bytes(self, k: &mut Kernel, elem: u32) -> Bytes {
        (self as u64).alloca_bytes(k, elem)
    }
}
impl AllocaLen for Reg<U64> {
    #[track_caller]
    fn alloca_bytes(self, k: &mut Kernel, elem: u32) -> Bytes {
        Bytes::Reg(if elem == 1 { self } else { ptx!(k, "mul.lo.u64", self, elem as u64) })
    }
}
impl AllocaLen for Reg<U32> {
    #[track_caller]
    fn alloca_bytes(self, k: &mut Kernel, elem: u32) -> Bytes {
        let wide = ptx!(k, "cvt.u64.u32", self);
        wide.alloca_bytes(k, elem)
    }
}

impl Kernel {
    /// `alloca.u64`: a block of `len` elements of `T` on this thread's stack, aligned to
    /// `align` bytes (a power of two from the element's size to 2^23; another is an error
    /// when the kernel is built), as a `.local` pointer for `ld`/`st` (`cvta.local.u64`
    /// makes it generic). The block lives until the enclosing
    /// [`stack_frame`](Self::stack_frame) ends, or the thread does.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    ///
    /// let mut m = Module::new(Target::SM_90);
    /// m.kernel("k", |k, (n,): (Reg<U32>,)| {
    ///     let a: LocalPtr<F32> = k.alloca(n, 16);
    ///     k.st(a.at(0u32), 1.0f32);
    /// })?;
    /// assert!(m.to_ptx()?.contains("alloca.u64"));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    #[track_caller]
    pub fn alloca<T: DataType>(&mut self, len: impl AllocaLen, align: u32) -> LocalPtr<T> {
        if align < elem_bytes::<T>() {
            self.invalid(format!("alloca alignment {align} is smaller than its {}-byte elements", elem_bytes::<T>()));
        }
        let raw = match len.alloca_bytes(self, elem_bytes::<T>()) {
            Bytes::Const(b) => ptx!(self, "alloca.u64" as aligned, b, align),
            Bytes::Reg(r) => ptx!(self, "alloca.u64" as aligned, r, align),
        };
        Ptr::from_reg(raw)
    }

    /// Runs `body` between `stacksave.u64` and `stackrestore.u64`: every
    /// [`alloca`](Self::alloca) block of the body is freed when it returns. A pointer into
    /// such a block must not be used after the frame.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    ///
    /// let mut m = Module::new(Target::SM_90);
    /// m.kernel("k", |k, (out,): (GlobalPtr<U32>,)| {
    ///     let v = k.stack_frame(|k| {
    ///         let a: LocalPtr<U32> = k.alloca(4u32, 16);
    ///         k.st(a.offset(3), 5u32);
    ///         k.ld(a.offset(3))
    ///     });
    ///     k.st(out.offset(0), v);
    /// })?;
    /// let ptx = m.to_ptx()?;
    /// assert!(ptx.contains("stacksave.u64") && ptx.contains("stackrestore.u64"));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    #[track_caller]
    pub fn stack_frame<R>(&mut self, body: impl FnOnce(&mut Kernel) -> R) -> R {
        let sp = ptx!(self, "stacksave.u64");
        let r = body(self);
        ptx!(self, "stackrestore.u64", sp);
        r
    }
}
