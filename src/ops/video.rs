//! Video instructions: the scalar vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr, vmad and
//! vset with their byte and half-word part selectors, saturation, secondary operation
//! (`.add`, `.min`, `.max` with `c`) and merge into a part of `c` (`as dsel`); the 2- and
//! 4-lane SIMD forms (vadd2 .. vmax2, vavrg2, vset2 and the x4 ones) with lane selectors
//! from the pair `{b, a}`, saturation, accumulation into `c` (`.add`) and destination
//! masks (`as mask`).
//!
//! A selector is a method of the register (`a.b1()`, `b.halves::<3, 2>()`, `d.h10()`,
//! [`crate::regs::Part`]) and each operand position names the set it takes, so an
//! illegal selector does not compile.
//!
//! The forms come from the table `macros/tables/video.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(video);
