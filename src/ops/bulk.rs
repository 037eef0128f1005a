//! Bulk and tensor copies (TMA) and the tensor-map instructions.
//!
//! - `cp.async.bulk`: a byte range (a multiple of 16 bytes, 16-byte aligned) from global to
//!   shared memory completing on an mbarrier (`.multicast::cluster` writes it to every CTA
//!   of a 16-bit mask), from shared memory to another CTA's, or from shared to global
//!   memory completing in a bulk group; `cp.reduce.async.bulk` reduces instead of copying.
//! - `cp.async.bulk.tensor`: a box of a tensor described by a tensor map, addressed by a
//!   [`TensorAt`](crate::regs::TensorAt) (the map's address and one `s32` coordinate per
//!   dimension, so the coordinate count is the copy's dimension), in tile or im2col mode
//!   (the im2col offsets are a vector of R-2 `u16`); `cp.reduce.async.bulk.tensor` reduces a
//!   shared-memory box into the tensor. A kernel parameter
//!   [`TensorMap<T, R>`](crate::builder::TensorMap) gives the `TensorAt` from `map.at(coords)`.
//! - prefetches into L2 of a byte range or a box; `cp.async.bulk.commit_group` and
//!   `cp.async.bulk.wait_group{.read}` for the bulk-group completions.
//! - tensor maps themselves: `prefetch{.const|.param}.tensormap`, `tensormap.replace` of a
//!   field of a map in global or shared memory (the enumerated fields take their values from
//!   legal sets), `tensormap.cp_fenceproxy`, and `fence.proxy.tensormap::generic`.
//!
//! An optional operand that comes with an optional modifier is two forms: the cache policy
//! (`u64`, last) exists exactly where the chain has `.L2::cache_hint`, the CTA mask (`u16`)
//! exactly where it has `.multicast::cluster`. Each address operand names its own state
//! space, so a global pointer where the shared destination goes does not compile; a
//! `.shared` address is accepted where `.shared::cta` or `.shared::cluster` is named.
//!
//! `.multicast::cluster` assembles for plain `sm_90`, but ptxas then advises `sm_90a`; the
//! `.cta_group::1/2` forms, gather4/scatter4 and `.im2col::w` need sm_100a or its family
//! (see `src/core/isa.tsv` for each form's targets).
//!
//! ```
//! use ptxkit::prelude::*;
//! use ptxkit::regs::TensorAt;
//!
//! let mut m = Module::new(Target::SM_90A);
//! m.kernel("bulk_ops", |k, (src, dst, map, policy): (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U64>, Reg<U64>)| {
//!     let buf = k.shared_array::<U32>("buf", 1024, 128);
//!     let bar = k.shared_array::<B64>("bar", 1, 8);
//!     ptx!(k, "mbarrier.init.shared::cta.b64", bar, 1u32);
//!     // 4 KiB global -> shared, completing on the barrier, with an L2 cache policy.
//!     ptx!(k, "mbarrier.arrive.expect_tx.shared::cta.b64", bar, 4096u32);
//!     ptx!(k, "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.L2::cache_hint", buf, src, 4096u32, bar, policy);
//!     // A 2-D box at (x, y) to the shared memory of CTAs 0 and 1 of the cluster.
//!     let x = ptx!(k, "mov.s32", 64i32);
//!     let y = ptx!(k, "mov.s32", 0i32);
//!     let mask = ptx!(k, "mov.u16", 0b11u16);
//!     ptx!(k, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster",
//!         buf, TensorAt::new(map, [x, y]), bar, mask);
//!     // An im2col box of a 4-D tensor: two 16-bit offsets.
//!     let (n, c) = (ptx!(k, "mov.s32", 0i32), ptx!(k, "mov.s32", 0i32));
//!     let off: [Reg<U16>; 2] = [ptx!(k, "mov.u16", 1u16), ptx!(k, "mov.u16", 2u16)];
//!     ptx!(k, "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes",
//!         buf, TensorAt::new(map, [c, x, y, n]), bar, off);
//!     // Shared -> global: add the buffer into `dst` element by element, in a bulk group.
//!     ptx!(k, "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32", dst, buf, 4096u32);
//!     ptx!(k, "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", TensorAt::new(map, [x, y]), buf);
//!     ptx!(k, "cp.async.bulk.commit_group");
//!     ptx!(k, "cp.async.bulk.wait_group.read", 0);
//!     // A map updated in shared memory, then made visible to the tensormap proxy.
//!     ptx!(k, "tensormap.replace.tile.box_dim.shared::cta.b1024.b32", buf, 1u32, 32u32);
//!     ptx!(k, "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32", buf, Const::<3>);
//!     ptx!(k, "fence.proxy.tensormap::generic.release.gpu");
//! })?;
//! let ptx = m.to_ptx()?;
//! assert!(ptx.contains("multicast::cluster [buf], [%rd5, {%r1, %r2}], [bar], %rs1;"), "{ptx}");
//! assert!(ptx.contains("[%rd5, {%r4, %r1, %r2, %r3}], [bar], {%rs2, %rs3};"), "{ptx}");
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! A swizzle mode outside the legal set does not compile:
//!
//! ```compile_fail
//! use ptxkit::prelude::*;
//! let mut m = Module::new(Target::SM_90A);
//! m.kernel("bad", |k, (map,): (Reg<U64>,)| {
//!     ptx!(k, "tensormap.replace.tile.swizzle_mode.global.b1024.b32", ptxkit::regs::GlobalPtr::<B8>::from_reg(map), Const::<7>);
//! });
//! ```
//!
//! The forms come from the table `macros/tables/bulk.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(bulk);
