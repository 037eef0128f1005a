//! Registers wider than an instruction's type: `r.wide()`, the data operands of `ld`, `ldu`,
//! `st` and `cvt` in a register of a regular width, as PTX's relaxed size rule allows; and
//! the data operands of `ld`, `ldu` and `st` in braces, `r.braced()`.

use crate::core::ir::Opnd;
use crate::core::Kernel;
use crate::ops::{Braceable, Dst, DstFor, Operand, WideDst, Widenable};
use crate::types::{DataType, Family, Reg};

/// A register standing where the instruction's type is narrower: `r.wide()`.
///
/// PTX allows it for the data operands of `ld`, `ldu`, `st` and `cvt` (the ISA's "operand
/// size exceeding instruction-type size"), and `ptx!` takes it there and nowhere else: a
/// source is truncated to the instruction type; a destination is written sign-extended for a
/// signed type and zero-extended otherwise. The register must be wider than the type, an
/// integer or bit-size register for an integer type, and a bit-size register for a
/// floating-point type (any register for a bit-size type); anything else does not compile.
///
/// ```
/// use ptxkit::prelude::*;
///
/// let mut m = Module::new(Target::SM_80);
/// m.kernel("bytes", |k, (p,): (GlobalPtr<U8>,)| {
///     // A byte, zero-extended into 32 bits.
///     let w = k.reg::<U32>();
///     ptx!(k, "ld.global.u8" => w.wide(), p);
///     let d = ptx!(k, "add.u32", w, 1u32);
///     // Its low byte stored, and sign-extended from 8 to 64 bits.
///     ptx!(k, "st.global.u8", p.offset(1), d.wide());
///     let s = ptx!(k, "cvt.s64.s8", d.wide());
///     let _ = s;
/// })?;
/// let text = m.to_ptx()?;
/// assert!(text.contains("ld.global.u8 %r1, [%rd2];"), "{text}");
/// assert!(text.contains("st.global.u8 [%rd2+1], %r2;"), "{text}");
/// assert!(text.contains("cvt.s64.s8 %rd3, %r2;"), "{text}");
/// # Ok::<(), ptxkit::Error>(())
/// ```
///
/// Elsewhere a wider register is refused, as ptxas refuses it:
///
/// ```compile_fail
/// use ptxkit::prelude::*;
///
/// let mut m = Module::new(Target::SM_80);
/// m.kernel("k", |k, (a,): (Reg<U32>,)| {
///     let _ = ptx!(k, "add.u16", a.wide(), a.wide());
/// });
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wide<R: DataType>(pub Reg<R>);

impl<R: DataType> Reg<R> {
    /// The register where an `ld`, `ldu`, `st` or `cvt` names a narrower type ([`Wide`]).
    pub fn wide(self) -> Wide<R> {
        Wide(self)
    }
}

/// Whether a register of `R` may stand for an operand of type `T` by the relaxed size rule.
const fn fits<T: DataType, R: DataType>() -> bool {
    R::BITS > T::BITS
        && match T::FAMILY {
            Family::Bits => true,
            Family::Unsigned | Family::Signed => matches!(R::FAMILY, Family::Bits | Family::Unsigned | Family::Signed),
            Family::Float => matches!(R::FAMILY, Family::Bits),
            Family::Pred | Family::Packed => false,
        }
}

impl<T: DataType, R: DataType, B> Operand<Widenable<T, B>> for Wide<R> {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        const {
            assert!(
                fits::<T, R>(),
                "a wide register must be wider than the instruction type: an integer or bit-size one for an integer type, a bit-size one for a float type"
            )
        };
        Opnd::Reg(self.0.checked(k))
    }
}

/// The destination of `ld`/`ldu`/`cvt` in a wider register, as the instruction writes it.
impl<T: DataType, R: DataType, B> WideDst<Reg<T>, B> for Wide<R> {
    type Dst = Reg<T>;
    fn into_dst(self) -> Reg<T> {
        const {
            assert!(
                fits::<T, R>(),
                "a wide register must be wider than the instruction type: an integer or bit-size one for an integer type, a bit-size one for a float type"
            )
        };
        Reg::new(self.0.r, self.0.owner)
    }
}

/// The data operand of `ld`, `ldu` or `st` as a one-element vector: `r.braced()` is `{%r1}`,
/// `r.wide().braced()` a wider register so written.
///
/// ptxas takes the braces there, and compilers write them (Triton for its predicated loads
/// and stores); they are not always assembled to the same code as the bare register, so
/// PTX imported with them keeps them. Anywhere else (`cvt`, `add`, ...) ptxas refuses a
/// vector, and `ptx!` does not compile it.
///
/// ```
/// use ptxkit::prelude::*;
///
/// let mut m = Module::new(Target::SM_80);
/// m.kernel("k", |k, (p,): (GlobalPtr<B16>,)| {
///     let h = k.reg::<B16>();
///     ptx!(k, "ld.global.b16" => h.braced(), p);
///     let w = k.reg::<B32>();
///     ptx!(k, "ld.global.b16" => w.wide().braced(), p.offset(1));
///     ptx!(k, "st.global.b16", p.offset(2), h.braced());
/// })?;
/// let text = m.to_ptx()?;
/// assert!(text.contains("ld.global.b16 {%rs1}, [%rd2];"), "{text}");
/// assert!(text.contains("ld.global.b16 {%r1}, [%rd2+2];"), "{text}");
/// assert!(text.contains("st.global.b16 [%rd2+4], {%rs1};"), "{text}");
/// # Ok::<(), ptxkit::Error>(())
/// ```
///
/// ```compile_fail
/// use ptxkit::prelude::*;
///
/// let mut m = Module::new(Target::SM_80);
/// m.kernel("k", |k, (h,): (Reg<F16>,)| {
///     let _ = ptx!(k, "cvt.f32.f16", h.braced());
/// });
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Braced<X>(pub X);

impl<R: DataType> Reg<R> {
    /// The register in braces, `{%r1}`, where an `ld`, `ldu` or `st` takes it ([`Braced`]).
    pub fn braced(self) -> Braced<Reg<R>> {
        Braced(self)
    }
}

impl<R: DataType> Wide<R> {
    /// The wider register in braces, `{%r1}` ([`Braced`]).
    pub fn braced(self) -> Braced<Wide<R>> {
        Braced(self)
    }
}

/// One operand as a one-element vector.
fn brace(k: &mut Kernel, o: Opnd) -> Opnd {
    let (start, len) = k.push_run(&[o]);
    Opnd::Vec { start, len }
}

impl<T: DataType, X: Operand<Widenable<T, Braceable>>> Operand<Widenable<T, Braceable>> for Braced<X> {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        let o = self.0.lower(k);
        brace(k, o)
    }
}

/// The destination of `ld` or `ldu` in braces, as [`Braced`] gives it to the call.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct BracedDst<T: DataType>(Reg<T>);

impl<T: DataType> Dst for BracedDst<T> {
    fn lower_dst(&self, k: &mut Kernel, out: &mut Vec<Opnd>) {
        let o = Opnd::Reg(self.0.checked(k));
        out.push(brace(k, o));
    }
}
#[diagnostic::do_not_recommend]
impl<T: DataType> DstFor<Reg<T>> for BracedDst<T> {}

impl<T: DataType, X: WideDst<Reg<T>, Braceable, Dst = Reg<T>>> WideDst<Reg<T>, Braceable> for Braced<X> {
    type Dst = BracedDst<T>;
    fn into_dst(self) -> BracedDst<T> {
        BracedDst(self.0.into_dst())
    }
}
