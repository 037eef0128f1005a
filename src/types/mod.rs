//! PTX fundamental data types as zero-sized types, and registers typed by them.
//!
//! Each type knows its PTX name, its width, the register class that holds it (8-bit
//! integers live in 16-bit registers; packed FP8/FP6 pairs and FP4 quads in 16-bit, FP8/FP6
//! quads in 32-bit, and the FP4 pair `.e2m1x2`, which PTX reads and writes as `.b8`, and
//! the single FP8 values `.e4m3`/`.e5m2` of the `multimem` vectors in an 8-bit register:
//! [`RegClass`]), the host
//! type it maps to, and which register types PTX accepts where an instruction names it
//! ([`Accepts`]): a `.bN` instruction type takes any N-bit register, `.uN`/`.sN` take
//! `.uN`, `.sN` and `.bN`, `.fN` takes `.fN` and `.bN`.

pub mod minifloat;
mod reg;

pub use crate::core::dtype::{DType, Family, RegClass};
pub use reg::{IntoGuard, NotPred, Reg};

use core::fmt::Debug;

/// A PTX data type.
pub trait DataType: Copy + Debug + Default + 'static {
    /// PTX name without the dot.
    const NAME: &'static str;
    /// Width in bits (1 for `.pred`).
    const BITS: u32;
    const CLASS: RegClass;
    const FAMILY: Family;
    const ID: DType;
    /// The host type a value of this type maps to.
    type Host: Copy + 'static;
}

/// `Self` (an instruction type) accepts a register declared with type `T`.
#[diagnostic::on_unimplemented(
    message = "a `{T}` value cannot be used where PTX expects `{Self}`",
    label = "wrong register type for this instruction",
    note = "PTX accepts the same type, a same-width `.bN`, or the other signedness of a same-width integer"
)]
pub trait Accepts<T: DataType> {}

macro_rules! dtype_zsts {
    ($( $id:ident $name:literal $bits:literal $class:ident $fam:ident $host:ty [$($acc:ident)*]; )*) => {$(
        #[doc = concat!("PTX type `.", $name, "`.")]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $id;
        impl DataType for $id {
            const NAME: &'static str = $name;
            const BITS: u32 = $bits;
            const CLASS: RegClass = RegClass::$class;
            const FAMILY: Family = Family::$fam;
            const ID: DType = DType::$id;
            type Host = $host;
        }
        $( #[diagnostic::do_not_recommend] impl Accepts<$acc> for $id {} )*
    )*};
}
crate::core::dtype::dtype_table!(dtype_zsts);

#[cfg(test)]
mod tests {
    /// The macros' list of data-type tokens (what `ptx!` and the tables treat as types) and
    /// the types defined here are the same list.
    #[test]
    fn macro_data_types_are_the_types() {
        let macro_list: &[&str] = ptxkit_macros::dtype_tokens!();
        let here: Vec<&str> = super::DType::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(macro_list, &here[..]);
    }
}
