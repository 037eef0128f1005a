//! Operand kinds of opaque handles and their coordinates: `[h0, .., {c0, ..}]`
//! ([`HandleAddr`]: a tensor map, a texture and its sampler, a surface) and braced
//! coordinate lists of mixed types or with ignored elements ([`Coords`]: a texture lookup's
//! offsets and gradients).
//!
//! A coordinate list is a tuple of element kinds `C` followed by `P` ignored elements,
//! which pad it to a vector length PTX accepts (a 3-D lookup reads `{x, y, z, _}`); the
//! padding is written as a zero of the last element's type, so the caller passes only the
//! coordinates that mean something. The values are an array of one kind (`[x, y]`) or a
//! tuple (`(layer, x, y)`), each element checked against its kind as any operand is.

use super::Operand;
use crate::core::ir::Opnd;
use crate::core::{DType, Kernel};
use crate::types::DataType;
use core::marker::PhantomData;

/// The handle kinds of a [`HandleAddr`] operand (what stands before the coordinates).
pub mod h {
    /// A TMA tensor map's address (`tmap`).
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Tmap;
    /// A texture (`tex`): a `.texref` variable or a 64-bit texture object.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Tex;
    /// A sampler (`smp`): a `.samplerref` variable, or in the unified mode a texture's own.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Smp;
    /// A surface (`surf`): a `.surfref` variable or a 64-bit surface object.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Surf;
}

/// Operand kind: `[h0, .., {c0, ..}]`, the handles `H` (a tuple of [`h`] kinds), the
/// coordinates `C` (a tuple of element kinds; `()` for `[h]`), then `P` ignored
/// coordinates.
pub struct HandleAddr<H, C, const P: usize>(PhantomData<(H, C)>);

/// Operand kind: `{c0, ..}`, coordinates of the kinds `C` (a tuple) then `P` ignored ones.
pub struct Coords<C, const P: usize>(PhantomData<C>);

/// A tuple of coordinate element kinds.
pub trait CoordKinds: 'static {
    /// The type of the last element, which padding repeats as a zero.
    const LAST: DType;
    /// The element types, in order.
    const TYPES: &'static [DType];
}
impl CoordKinds for () {
    const LAST: DType = DType::B32;
    const TYPES: &'static [DType] = &[];
}

/// A tuple of handle kinds (what stands before the coordinates of a [`HandleAddr`]).
pub trait HandleKinds: 'static {
    const HANDLES: crate::core::Handles;
}
macro_rules! handle_kinds {
    ($($t:ty => $v:ident;)*) => {$( impl HandleKinds for $t { const HANDLES: crate::core::Handles = crate::core::Handles::$v; } )*};
}
handle_kinds! {
    (h::Tmap,) => TensorMap;
    (h::Tex,) => Texture;
    (h::Tex, h::Smp) => TextureSampler;
    (h::Smp,) => Sampler;
    (h::Surf,) => Surface;
}

/// The zero written for an ignored coordinate of type `t` (`0f00000000` for `.f32`: ptxas
/// refuses a vector whose elements differ in type).
pub fn pad_opnd(t: DType) -> Opnd {
    match t {
        DType::F32 => Opnd::F32(0),
        DType::F64 => Opnd::f64_bits(0),
        _ => Opnd::int(0),
    }
}

/// Operands gathered for one run in the arena (handles and coordinates: eight at most).
#[doc(hidden)]
pub struct Run {
    ops: [Opnd; 8],
    len: usize,
}

impl Run {
    pub(crate) fn new() -> Run {
        Run { ops: [Opnd::Sink; 8], len: 0 }
    }
    pub(crate) fn push(&mut self, o: Opnd) {
        self.ops[self.len] = o;
        self.len += 1;
    }
    /// Appends `n` ignored coordinates after the last one, typed as `C`'s last element.
    pub(crate) fn pad<C: CoordKinds>(&mut self, n: usize) {
        for _ in 0..n {
            self.push(pad_opnd(C::LAST));
        }
    }
    pub(crate) fn len(&self) -> usize {
        self.len
    }
    /// Moves the run into the kernel's operand arena: `(start, length)`.
    pub(crate) fn commit(&self, k: &mut Kernel) -> (u32, u16) {
        k.push_run(&self.ops[..self.len])
    }
}

/// Coordinate values for the element kinds `C`: an array of values of one kind or a tuple,
/// one value per element.
#[diagnostic::on_unimplemented(
    message = "`{Self}` are not coordinates of the kinds `{C}`",
    label = "wrong number or types of coordinates",
    note = "pass one value per coordinate, as an array (`[x, y]`) or, where the kinds differ (a layer index first), a tuple (`(layer, x, y)`)"
)]
pub trait CoordList<C> {
    #[doc(hidden)]
    fn lower_coords(self, k: &mut Kernel, out: &mut Run);
}

/// No coordinates (`[h]`).
#[diagnostic::do_not_recommend]
impl CoordList<()> for () {
    fn lower_coords(self, _: &mut Kernel, _: &mut Run) {}
}

macro_rules! coord_lists {
    ($($n:literal: ($($a:ident $k:ident),*);)*) => {$(
        impl<$($k: DataType),*> CoordKinds for ($($k,)*) {
            const LAST: DType = coord_lists!(@last $($k)*);
            const TYPES: &'static [DType] = &[$($k::ID),*];
        }
        #[allow(non_snake_case)]
        #[diagnostic::do_not_recommend]
        impl<$($k, $a: Operand<$k>),*> CoordList<($($k,)*)> for ($($a,)*) {
            fn lower_coords(self, k: &mut Kernel, out: &mut Run) {
                let ($($a,)*) = self;
                $( out.push($a.lower(k)); )*
            }
        }
        impl<CK: CoordKinds, const P: usize, $($a),*> Operand<Coords<CK, P>> for ($($a,)*) where ($($a,)*): CoordList<CK> {
            fn lower(self, k: &mut Kernel) -> Opnd {
                coords_operand::<CK, _>(k, self, P)
            }
        }
    )*};
    (@last $k:ident) => { $k::ID };
    (@last $k:ident $($rest:ident)+) => { coord_lists!(@last $($rest)+) };
}
coord_lists! {
    1: (A KA);
    2: (A KA, B KB);
    3: (A KA, B KB, C KC);
    4: (A KA, B KB, C KC, D KD);
    5: (A KA, B KB, C KC, D KD, E KE);
}

macro_rules! coord_arrays {
    ($($n:literal: ($($k:ident)*);)*) => {$(
        #[diagnostic::do_not_recommend]
        impl<K, X: Operand<K>> CoordList<($($k,)*)> for [X; $n] {
            fn lower_coords(self, k: &mut Kernel, out: &mut Run) {
                for x in self {
                    out.push(x.lower(k));
                }
            }
        }
    )*};
}
coord_arrays! {
    1: (K);
    2: (K K);
    3: (K K K);
    4: (K K K K);
    5: (K K K K K);
}

#[diagnostic::do_not_recommend]
impl<C: CoordKinds, const P: usize, X, const N: usize> Operand<Coords<C, P>> for [X; N]
where
    [X; N]: CoordList<C>,
{
    fn lower(self, k: &mut Kernel) -> Opnd {
        coords_operand::<C, _>(k, self, P)
    }
}

fn coords_operand<C: CoordKinds, L: CoordList<C>>(k: &mut Kernel, list: L, pads: usize) -> Opnd {
    let mut run = Run::new();
    list.lower_coords(k, &mut run);
    run.pad::<C>(pads);
    let (start, len) = run.commit(k);
    Opnd::Vec { start, len }
}

/// `[handles.., {coords.., padding}]` as one run in the arena: the lowering of every
/// [`HandleAddr`] value.
pub(crate) fn handle_addr<C: CoordKinds, L: CoordList<C>>(k: &mut Kernel, handles: &[Opnd], coords: L, pads: usize) -> Opnd {
    let mut run = Run::new();
    for h in handles {
        run.push(*h);
    }
    coords.lower_coords(k, &mut run);
    run.pad::<C>(pads);
    let n = run.len();
    let (start, _) = run.commit(k);
    Opnd::HandleAddr { start, handles: handles.len() as u8, coords: (n - handles.len()) as u8 }
}
