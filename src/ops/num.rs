//! Chain parts spelled by numbers, for code generic over the numbers: a kernel generic over
//! its tile width names the wgmma shape `m64n{N}k16` as `Mnk<64, N, 16>`, one generic over a
//! tensor's rank names `.{R}d` as `Dim<R>`. [`Spell`] gives the modifier type the numbers
//! spell; it is implemented for exactly the numbers the tables use (generated from them), so
//! a shape no form has does not compile:
//!
//! ```
//! use ptxkit::ops::num::{Dim, Mnk, Spell, X};
//! use ptxkit::ops::{m, Part};
//!
//! fn name<S: Spell>() -> &'static str {
//!     <S::Part as Part>::NAME
//! }
//! assert_eq!(name::<Mnk<64, 192, 16>>(), "m64n192k16");
//! assert_eq!(name::<Dim<3>>(), "3d");
//! assert_eq!(name::<X<32>>(), "x32");
//! let _: m::M64n192k16 = <Mnk<64, 192, 16> as Spell>::Part::default();
//! ```
//!
//! ```compile_fail
//! use ptxkit::ops::num::{Mnk, Spell};
//! // wgmma has no N = 100.
//! let _ = <Mnk<64, 100, 16> as Spell>::Part::default();
//! ```
//!
//! The forms are then chosen with [`Select`](super::Select), whose impls cover the table
//! rows marked `select`; [`crate::intrinsics::wgmma`] and [`crate::builder::TensorMap`] do
//! so for their users.

use super::Part;

/// The modifier the numbers `Self` spell.
#[diagnostic::on_unimplemented(
    message = "no modifier of the tables is spelled by `{Self}`",
    label = "not a shape, rank or count any PTX form has",
    note = "the numbers each form takes are in its table row (tables/forms/*.forms) and in `ptxkit::reference`"
)]
pub trait Spell {
    /// The modifier type (`m::M64n128k16`).
    type Part: Part + Default;
}

/// `.m{M}n{N}k{K}`: an MMA shape.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mnk<const M: u32, const N: u32, const K: u32>;
/// `.{R}d`: the dimensions of a tensor (TMA) or a texture.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dim<const R: usize>;
/// `.x{N}`: a repetition count (`tcgen05.ld`/`st`, `ldmatrix`, `stmatrix`).
#[derive(Clone, Copy, Debug, Default)]
pub struct X<const N: u32>;
/// `.{L}x{B}b`: a tensor-memory access shape, `L` lanes of `B` bits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lanes<const L: u32, const B: u32>;
/// `.cta_group::{N}`: the CTAs a tcgen05 instruction acts for.
#[derive(Clone, Copy, Debug, Default)]
pub struct CtaGroup<const N: u32>;

ptxkit_macros::define_tokens!(numbered);
