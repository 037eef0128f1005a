//! Parameters: how kernel parameters are declared and loaded, and how device functions
//! pass `.reg` values.

use crate::core::ir::{Opnd, RegRef};
use crate::core::names::intern;
use crate::core::{Kernel, RegClass};
use crate::ops::access::{Load, MemType};
use crate::ops::{m, Generic};
use crate::ptx;
use crate::regs::Ptr;
use crate::types::{DataType, Pred, Reg, B128, B16, B32, B64};

/// A kernel parameter type: how it is declared and loaded.
pub trait KernelParam: Sized {
    #[doc(hidden)]
    fn declare(k: &mut Kernel, name: &str) -> Self;
    /// The `.param` declaration of a parameter called `name`.
    #[doc(hidden)]
    fn decl(name: &str) -> String;
}

/// Scalar types a kernel can take by value (declared and loaded as their `ld` type:
/// `.b16` for an `f16`).
#[diagnostic::on_unimplemented(
    message = "a `Reg<{Self}>` cannot be a kernel parameter",
    label = "kernels take integers, floats and their packed forms by value, and pointers",
    note = "pass a predicate as a `Reg<U32>` and compare it with `setp.ne.u32`"
)]
pub trait ScalarParam: MemType {}
macro_rules! scalar_params { ($($t:ident)*) => {$(#[diagnostic::do_not_recommend] impl ScalarParam for crate::types::$t {})*}; }
scalar_params!(B8 B16 B32 B64 U8 U16 U32 U64 S8 S16 S32 S64 F32 F64 F16 Bf16 F16x2 Bf16x2);

/// The parameter `name` of the kernel (a `.param` symbol).
fn param<T: DataType>(k: &Kernel, name: &str) -> Ptr<m::Param, T> {
    Ptr::from_sym(intern(name), k.id)
}

impl<T: ScalarParam + Load<(), m::Param>> KernelParam for Reg<T> {
    fn decl(name: &str) -> String {
        format!(".param .{} {name}", <T::Mem as DataType>::NAME)
    }
    fn declare(k: &mut Kernel, name: &str) -> Self {
        k.params.push(Self::decl(name));
        let p = param::<T>(k, name);
        let d: Reg<T> = k.reg();
        <T as Load<(), m::Param>>::emit_ld(k, None, d.retype(), p);
        d
    }
}

impl<T: DataType> KernelParam for Ptr<m::Global, T> {
    fn decl(name: &str) -> String {
        format!(".param .u64 {name}")
    }
    fn declare(k: &mut Kernel, name: &str) -> Self {
        k.params.push(Self::decl(name));
        let p = param::<crate::types::U64>(k, name);
        let raw = ptx!(k, "ld.param.u64", p);
        Ptr::from_reg(ptx!(k, "cvta.to.global.u64", raw))
    }
}

impl<T: DataType> KernelParam for Ptr<Generic, T> {
    fn decl(name: &str) -> String {
        format!(".param .u64 {name}")
    }
    fn declare(k: &mut Kernel, name: &str) -> Self {
        k.params.push(Self::decl(name));
        let p = param::<crate::types::U64>(k, name);
        Ptr::from_reg(ptx!(k, "ld.param.u64", p))
    }
}

/// A parameter the kernel loads itself: declared `.param .T name` and handed over as its
/// address in the `.param` space, with no load emitted (`ld.param.u64 %rd1, [p];` is the
/// kernel's own, as compilers write it).
///
/// ```
/// use ptxkit::prelude::*;
/// use ptxkit::regs::ParamPtr;
/// let mut m = Module::new(Target::SM_80);
/// m.kernel("k", |k, (n, out): (ParamPtr<U32>, GlobalPtr<U32>)| {
///     let v = ptx!(k, "ld.param.u32", n);
///     ptx!(k, "st.global.u32", out.offset(0), v);
/// })?;
/// let text = m.to_ptx()?;
/// assert!(text.contains(".param .u32 k_param_0") && text.matches("ld.param.u32").count() == 1, "{text}");
/// # Ok::<(), ptxkit::Error>(())
/// ```
impl<T: ScalarParam> KernelParam for Ptr<m::Param, T> {
    fn decl(name: &str) -> String {
        format!(".param .{} {name}", <T::Mem as DataType>::NAME)
    }
    fn declare(k: &mut Kernel, name: &str) -> Self {
        k.params.push(Self::decl(name));
        param::<T>(k, name)
    }
}

/// A pointer parameter with PTX's `.ptr` attribute, as compilers declare them: `.param .u64
/// .ptr .global .align 16 name` (space `S`: `m::Global`, `m::Shared`, `m::Const`,
/// `m::Local`, or `Generic` for none; `A` the alignment of what it points at, a power of
/// two). ptxas records the attribute in the kernel's parameter information. The kernel
/// loads the pointer itself, through [`PointerParam::ptr`].
///
/// ```
/// use ptxkit::builder::PointerParam;
/// use ptxkit::ops::m;
/// use ptxkit::prelude::*;
/// let mut m = Module::new(Target::SM_80);
/// m.kernel("k", |k, (x,): (PointerParam<m::Global, 16>,)| {
///     let a = ptx!(k, "ld.param.u64", x.ptr());
///     let g = ptx!(k, "cvta.to.global.u64", a);
///     ptx!(k, "st.global.u64", GlobalPtr::<U64>::from_reg(g), a);
/// })?;
/// assert!(m.to_ptx()?.contains(".param .u64 .ptr .global .align 16 k_param_0"));
/// # Ok::<(), ptxkit::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PointerParam<S, const A: usize> {
    sym: u32,
    owner: u32,
    _s: std::marker::PhantomData<S>,
}

impl<S: crate::ops::StateSpace, const A: usize> PointerParam<S, A> {
    const VALID: () = {
        assert!(A.is_power_of_two(), "PointerParam<S, A> needs A a power of two");
        use crate::core::Space::*;
        assert!(
            matches!(S::SPACE, Generic | Global | Shared | Const | Local),
            "a `.ptr` parameter points into generic, global, shared, const or local memory"
        );
    };
    /// The parameter's address in the `.param` space, to load the pointer from.
    pub fn ptr(&self) -> Ptr<m::Param, crate::types::U64> {
        Ptr::from_sym(self.sym, self.owner)
    }
}

impl<S: crate::ops::StateSpace, const A: usize> KernelParam for PointerParam<S, A> {
    fn decl(name: &str) -> String {
        let () = Self::VALID;
        match S::SPACE {
            crate::core::Space::Generic => format!(".param .u64 .ptr .align {A} {name}"),
            s => format!(".param .u64 .ptr .{} .align {A} {name}", s.name()),
        }
    }
    fn declare(k: &mut Kernel, name: &str) -> Self {
        k.params.push(Self::decl(name));
        PointerParam { sym: intern(name), owner: k.id, _s: std::marker::PhantomData }
    }
}

/// The parameter list of a kernel: a tuple of [`KernelParam`]s.
pub trait KernelParams: Sized {
    #[doc(hidden)]
    fn declare_all(k: &mut Kernel) -> Self;
    /// The `.param` declarations of a kernel called `kernel` with these parameters.
    #[doc(hidden)]
    fn decls(kernel: &str) -> Vec<String>;
}

fn param_name(kernel: &str, i: usize) -> String {
    format!("{kernel}_param_{i}")
}

/// Parameters and results of a device function: a tuple of registers passed as `.reg`.
pub trait FuncValues: Sized {
    #[doc(hidden)]
    fn classes() -> Vec<RegClass>;
    #[doc(hidden)]
    fn from_refs(refs: &[RegRef], owner: u32) -> Self;
    #[doc(hidden)]
    fn regs(&self, k: &mut Kernel) -> Vec<Opnd>;
    /// Moves the values into the registers `dst` (a function's return registers).
    #[doc(hidden)]
    fn mov_into(&self, k: &mut Kernel, dst: &[RegRef]);
}

/// `mov.bN dst, src` by register class.
pub(crate) fn mov_class<T: DataType>(k: &mut Kernel, dst: RegRef, src: Reg<T>) {
    let id = k.id;
    match T::CLASS {
        RegClass::Pred => {
            ptx!(k, "mov.pred" => Reg::<Pred>::new(dst, id), src.retype::<Pred>());
        }
        RegClass::B16 => {
            ptx!(k, "mov.b16" => Reg::<B16>::new(dst, id), src.retype::<B16>());
        }
        RegClass::B8 => {
            ptx!(k, "cvt.u8.u8" => Reg::<crate::types::U8>::new(dst, id), src.retype::<crate::types::U8>());
        }
        RegClass::B32 => {
            ptx!(k, "mov.b32" => Reg::<B32>::new(dst, id), src.retype::<B32>());
        }
        RegClass::B64 => {
            ptx!(k, "mov.b64" => Reg::<B64>::new(dst, id), src.retype::<B64>());
        }
        RegClass::B128 => {
            ptx!(k, "mov.b128" => Reg::<B128>::new(dst, id), src.retype::<B128>());
        }
    }
}

macro_rules! tuples {
    ($(($($t:ident $i:tt),*);)*) => {$(
        #[allow(non_snake_case, unused_variables, unused_mut, unused_assignments)]
        impl<$($t: KernelParam),*> KernelParams for ($($t,)*) {
            fn declare_all(k: &mut Kernel) -> Self {
                let mut i = 0;
                ($({ let n = param_name(&k.name, i); i += 1; $t::declare(k, &n) },)*)
            }
            fn decls(kernel: &str) -> Vec<String> {
                let mut i = 0;
                vec![$({ i += 1; $t::decl(&param_name(kernel, i - 1)) }),*]
            }
        }
        #[allow(non_snake_case, unused_variables, unused_mut, unused_assignments)]
        impl<$($t: DataType),*> FuncValues for ($(Reg<$t>,)*) {
            fn classes() -> Vec<RegClass> { vec![$($t::CLASS),*] }
            fn from_refs(refs: &[RegRef], owner: u32) -> Self {
                let mut i = 0;
                ($({ i += 1; Reg::<$t>::new(refs[i - 1], owner) },)*)
            }
            fn regs(&self, k: &mut Kernel) -> Vec<Opnd> {
                vec![$(Opnd::Reg(self.$i.checked(k))),*]
            }
            fn mov_into(&self, k: &mut Kernel, dst: &[RegRef]) {
                $( mov_class(k, dst[$i], self.$i); )*
            }
        }
    )*};
}
tuples! {
    ();
    (A 0);
    (A 0, B 1);
    (A 0, B 1, C 2);
    (A 0, B 1, C 2, D 3);
    (A 0, B 1, C 2, D 3, E 4);
    (A 0, B 1, C 2, D 3, E 4, F 5);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11, M 12);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11, M 12, N 13);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11, M 12, N 13, O2 14);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11, M 12, N 13, O2 14, P 15);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11, M 12, N 13, O2 14, P 15, Q 16);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11, M 12, N 13, O2 14, P 15, Q 16, R 17);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11, M 12, N 13, O2 14, P 15, Q 16, R 17, S2 18);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11, M 12, N 13, O2 14, P 15, Q 16, R 17, S2 18, T2 19);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11, M 12, N 13, O2 14, P 15, Q 16, R 17, S2 18, T2 19, U 20);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11, M 12, N 13, O2 14, P 15, Q 16, R 17, S2 18, T2 19, U 20, V 21);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11, M 12, N 13, O2 14, P 15, Q 16, R 17, S2 18, T2 19, U 20, V 21, W 22);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K2 10, L 11, M 12, N 13, O2 14, P 15, Q 16, R 17, S2 18, T2 19, U 20, V 21, W 22, X 23);
}

impl<T: DataType> FuncValues for Reg<T> {
    fn classes() -> Vec<RegClass> {
        vec![T::CLASS]
    }
    fn from_refs(refs: &[RegRef], owner: u32) -> Self {
        Reg::new(refs[0], owner)
    }
    fn regs(&self, k: &mut Kernel) -> Vec<Opnd> {
        vec![Opnd::Reg(self.checked(k))]
    }
    fn mov_into(&self, k: &mut Kernel, dst: &[RegRef]) {
        mov_class(k, dst[0], *self);
    }
}
