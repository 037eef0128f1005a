//! Typed operations: opcodes, modifiers and variants as zero-sized types, forms as types
//! made of them, and one module per instruction family.
//!
//! A form is the type `Form<Op<op::Fma, (m::Rn, F32)>, F32, (F32, F32, F32)>`: its name (the
//! opcode, the modifiers, the variant), its destination kind and its operand kinds. `ptx!`
//! and [`op!`](crate::op) write it for the chain they are given, once they have found the
//! form in its family's table (`tables/forms/<family>.forms`, one row per line); the chain
//! itself is checked there, when the macro expands, and so is the number of operands. Each
//! operand is then lowered as its kind ([`Operand`]), so a `Reg<U32>` where `.f32` is
//! expected is a compile error at that operand; [`Call`] does the same for a tuple of
//! operands (what code holding an `op!` type calls). The instruction's run-time
//! descriptor ([`Instr::DESC`]) is built from the same type parameters when the program is
//! compiled, so the crate carries no item per form: a program pays for the forms it uses.
//!
//! Generic code that composes a chain from types (a load of any element type from any state
//! space) names its form through [`Select`], implemented for the table rows marked `select`.
//! The forms of a family are listed at run time by its module's `forms()` (from the tables),
//! and with their operands, oldest PTX ISA version and targets in the
//! [forms reference](crate::reference).
//!
//! # Table notation
//!
//! A row is `"pattern"  "signature"  [as variant] [select];`. A table's header holds its
//! vocabulary: `//!` lines (the family module's documentation), `@variant name "doc";` (a
//! form variant), `@count N;` (the number of forms the rows expand to, pinned by a test).
//!
//! In the pattern, `.tok` is a literal part; `.<set>` one member of a named set
//! (`tables/src/vocab.rs`); `.<T:set>` a member bound to `T`; `.<a|b>` an inline list;
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
//! accepts, by rules measured with it (`tables/orders.tsv`, written by
//! `cargo run --release --example order_sweep`), and name the table form, which prints in
//! table order:
//!
//! ```
//! use ptxkit::op;
//! use ptxkit::ops::{m, op, Addr, Form, Op};
//! use ptxkit::types::U32;
//! use std::any::TypeId;
//!
//! type Relaxed = Form<Op<op::Ld, (m::Relaxed, m::Gpu, m::Global, U32)>, U32, (Addr<m::Global, U32>,)>;
//! assert_eq!(TypeId::of::<op!("ld.global.relaxed.gpu.u32")>(), TypeId::of::<Relaxed>());
//! assert_eq!(TypeId::of::<op!("ld.relaxed.gpu.global.u32")>(), TypeId::of::<Relaxed>());
//! ```

pub mod access;
mod call;
mod coords;
mod form;
mod kinds;
pub mod num;
pub mod sel;
mod tables;

pub use crate::core::ir::{Guard, Opnd};
pub use crate::core::isa::{self, Req};
pub use crate::core::{DstKind, FormDesc, Handles, Kind, Sel, SelSet, Space, TexMode};
pub(crate) use call::{conjunction, in_scope};
pub use call::{emit, emit_into, emit_new, guard_of, Acc, Alloc, Call, Dst, DstFor, IntoDst, Lower, Operand, PartDst, WideDst};
pub(crate) use coords::handle_addr;
pub use coords::{h, pad_opnd, CoordKinds, CoordList, Coords, HandleAddr, HandleKinds, Run};
pub use form::{DstSpec, Form, Instr, Op, Opcode, OperandKind, OperandKinds, Pair, Part, Parts, Select, Sink, SinkPair, Variant, VecPred};
pub use kinds::{
    Addr, Admits, AnyElem, Bare, Braceable, ElemKind, Generic, Imm, ImmIn, InWindow, LabelOp, Legal, Negated, Selectable, StateSpace,
    TargetsOp, Tmem, Vector, Widenable,
};
pub use tables::{all_forms, families};

// The token modules `op`, `m`, `v` and `legal`: a zero-sized type per opcode, modifier,
// variant and set of legal immediates the tables use.
ptxkit_macros::define_tokens!(opcodes);
ptxkit_macros::define_tokens!(modifiers);
ptxkit_macros::define_tokens!(variants);
ptxkit_macros::define_tokens!(legal);

// One module per family table: its documentation, `forms()`, and the selection impls of
// its `select` rows.
ptxkit_macros::families!();
