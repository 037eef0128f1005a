//! Typed operations: modifier tokens and form keys as zero-sized types,
//! `Op<Key, Modifiers, Variant>`, and one table per instruction family.
//!
//! A form is a trait impl `impl Form<(m::Rn, F32)> for op::FmaF32` generated from one row
//! of its family's table (`macros/tables/<family>.forms`) by `forms!`. It fixes the
//! destination type (`Dst`), the operand kinds (`Src`), and a descriptor the untyped IR and
//! printer use. [`Call`] then accepts any tuple of operands whose types fit the kinds
//! ([`Operand`]), so a `Reg<U32>` where `.f32` is expected, or the wrong operand count, is a
//! compile error; `ptx!` checks the chain itself against the same tables when it expands.
//!
//! Impls are keyed by the opcode and the chain's last part (`op::LdU32` holds the `ld`
//! forms ending in `.u32`): rustc compares the impls on one type pairwise, so keying keeps
//! the cost of the tables near linear in their size.
//!
//! # Table notation
//!
//! A row is `"pattern"  "signature"  [as variant];`.
//!
//! In the pattern, `.tok` is a literal part; `.<set>` one member of a named set
//! (`macros/src/vocab.rs`); `.<T:set>` a member bound to `T`; `.<a|b>` an inline list;
//! `.m64n<N:8..256/8>k16` a number bound inside a token (`a..b/s` is inclusive, step `s`;
//! lists mix `,` and ranges: `<N:8,16,24,32,48..256/16>`); `.v<L:4>` or `.<T:f16x2>` a
//! variable bound to a single value; `.<A>` the value bound to `A` earlier in the row;
//! `{..|..}` an optional group and `(..|..)` a required choice.
//!
//! The signature is `dsts = srcs`. Destinations: `-` (none), `_` (the sink), a type, `X|Y`
//! (a grouped pair), `{T*EXPR}` (a braced vector; `EXPR` is integer arithmetic over bound
//! numbers, `{f32*N/2}`), `V(T)` (a vector of the bound width `v2`/`v4`), `+{T*EXPR}` (a
//! tied accumulator, read and written in place), `{T*EXPR}|pred` (a vector and a
//! predicate, `d|p`), several separated by commas. Sources: a type; a vector; `[T]` (an
//! address of `T` in the chain's state space; `[]` any element); `[T@space]` / `[@space]` /
//! `[T@S]` (a named or bound space per operand; `[tmem]` tensor memory); `imm(T)` (an
//! immediate only); `imm(T: -1|1)`, `imm(u32: 24..256/8)` (an immediate from a set of legal
//! values); `label`; `tlist` (the label of a `.branchtargets` list, `brx.idx`'s operand).
//!
//! Opaque handles and their coordinates are one operand kind, [`HandleAddr`]:
//! `[tmap, {s32*R}]` (a tensor map's address and `R` coordinates), `[tex, {f32*2}]` (a
//! texture), `[tex, smp, {..}]` (a texture and a separate sampler), `[surf, {s32*2}]` (a
//! surface), and the handle alone, `[tex]`, `[smp]`, `[surf]`, for queries. A coordinate
//! list is a braced list of items, each a type, a run `T*EXPR`, or `_`: an ignored element
//! (a zero of the type before it), which pads a list to a length PTX takes
//! (`{u32, f32*2, _}`: a layer index, two coordinates, one ignored). Texture and surface
//! lists are 1, 2 or 4 long. Such a list also stands alone ([`Coords`]: `{s32*3, _}`, a 3-D
//! offset), where a plain vector would need one type and no padding.
//!
//! `<name:item>` in a signature is an optional item: the row stands for the forms with and
//! without each, and the names of the items a form has, those of the sources first, make
//! its variant. `"{T*4}<resident:|pred> = [tex, <sampler:smp>, {f32*2}], <offset:{s32*2}>"`
//! is eight forms, from `plain` to `sampler_offset_resident`.
//!
//! The video instructions' registers carry part selectors (`%r1.b1`, `%r2.h10`,
//! `%r3.b7654`). A source `T{.<sel>}` is a register of `T` with an optional selector from a
//! named set, `reg(T)` a register without one, and a leading `-` negates either (`-T`,
//! `-T{.<sel>}`): the form negates that operand, which the call passes as `-a` (`vmad ...
//! as neg_a`). A destination `T.<hmask>` is a register with a required selector, passed as
//! `=> d.h1()`; `_|T` is a pair whose first value is dropped (`lop3.and.b32 _|p, ...`).
//! The sets: `<sel>` `.b0`..`.b3`, `.h0`, `.h1` (scalar sources, which also take an
//! immediate, and merge destinations); `<hsel>` `.hxy` and `<bsel>` `.bxyzw` (2- and 4-lane
//! SIMD sources, lanes of the pair `{b, a}`); `<hmask>` `.h0`, `.h1`, `.h10` and `<bmask>`
//! `.b0` to `.b3210` (the lanes a SIMD instruction writes). Their types are in [`sel`]; the
//! selector methods of `Reg` are listed at [`crate::regs::Part`].
//!
//! # Orders
//!
//! A row writes a chain's parts in one order; ptxas accepts many (`ld.global.relaxed.gpu.u32`
//! for `ld.relaxed.gpu.global.u32`, `cvt.f32.rn.f64` for `cvt.rn.f32.f64`) and rejects some
//! (`mul.u32.wide`, `ld.v4.global.u32`). `ptx!` and [`op!`](crate::op) accept every order ptxas
//! accepts, by rules measured with it (`macros/tables/orders.tsv`, written by
//! `cargo run --release --example order_sweep`), and name the table form, which prints in
//! table order:
//!
//! ```
//! use ptxkit::op;
//! use ptxkit::ops::{m, op, Op};
//! use ptxkit::types::U32;
//! use std::any::TypeId;
//!
//! type Relaxed = Op<op::LdU32, (m::Relaxed, m::Gpu, m::Global, U32)>;
//! assert_eq!(TypeId::of::<op!("ld.global.relaxed.gpu.u32")>(), TypeId::of::<Relaxed>());
//! assert_eq!(TypeId::of::<op!("ld.relaxed.gpu.global.u32")>(), TypeId::of::<Relaxed>());
//! ```

pub mod access;
mod call;
mod coords;
mod kinds;
pub mod sel;

pub mod arith;
pub mod bits;
pub mod bulk;
pub mod cache;
pub mod cluster;
pub mod cmp;
pub mod control;
pub mod cpasync;
pub mod cvt;
pub mod matrix;
pub mod mbarrier;
pub mod mem;
pub mod mma;
pub mod multimem;
pub mod stack;
pub mod sync;
pub mod tcgen05;
pub mod texture;
pub mod video;
pub mod warp;
pub mod wgmma;
pub mod wmma;

pub use crate::core::ir::Guard;
pub use crate::core::isa::{self, Req};
pub use crate::core::{Coord, DstKind, FormDesc, Handles, Kind, Sel, SelSet, Space, TexMode};
pub(crate) use call::{conjunction, in_scope};
pub use call::{guard_of, Acc, Alloc, Call, Dst, IntoDst, Lower, Operand, PartDst};
pub(crate) use coords::handle_addr;
pub use coords::{h, pad_opnd, CoordKinds, CoordList, Coords, HandleAddr, Run};
pub use kinds::{
    Addr, Admits, AnyElem, Generic, Imm, ImmIn, InWindow, LabelOp, Legal, Negated, Selectable, StateSpace, TargetsOp, Tmem, Vector,
};

use core::marker::PhantomData;

/// Form keys: one type per opcode and last chain part (`op::LdU32`), the `Self` type of
/// the forms' impls.
pub mod op {
    ptxkit_macros::define_tokens!(keys);
}

/// Modifier types (`m::Rn`, `m::SharedCta`), every modifier the tables use; data types are
/// in [`crate::types`].
pub mod m {
    ptxkit_macros::define_tokens!(modifiers);
}

/// Form variants: the same chain with another operand layout (`ptx!(k, "..." as pair)`).
pub mod v {
    ptxkit_macros::define_tokens!(variants);
}

/// Sets of legal immediates (`imm(s32: -1|1)` in a table is `ImmIn<S32, legal::Lm1or1>`).
pub mod legal {
    ptxkit_macros::define_tokens!(legal);
}

/// An instruction: form key `O`, modifiers `M` (a tuple of tokens), variant `V`.
pub struct Op<O, M, V = v::Plain>(PhantomData<(O, M, V)>);

/// A legal PTX form. Implemented by the key types, one impl per form of the tables.
#[diagnostic::on_unimplemented(
    message = "PTX has no form `{Self}` with modifiers `{M}`",
    label = "this opcode/modifier combination does not exist",
    note = "the family tables in macros/tables/ list every form"
)]
pub trait Form<M, V = v::Plain> {
    /// What the instruction returns: `Reg<T>`, `(Reg<T>, Reg<Pred>)`, `[Reg<T>; N]`,
    /// `Acc<T, N>` or `()`.
    type Dst: Dst;
    /// The operand kinds, a tuple.
    type Src;
    const DESC: &'static FormDesc;
}

/// Every family table, in order: `(name, forms)`.
pub fn families() -> &'static [(&'static str, &'static [FormDesc])] {
    static F: &[(&str, &[FormDesc])] = ptxkit_macros::families!();
    F
}

/// Every form of every family.
pub fn all_forms() -> impl Iterator<Item = &'static FormDesc> {
    families().iter().flat_map(|(_, f)| f.iter())
}
