//! Copy-like kernels: the scalar and 16-byte vector copies with their cache-operator
//! variants, vector add and saxpy, and the launch shapes that go with them.

use crate::builder::{Error, Kernel, KernelRef, Module};
use crate::prelude::*;

/// `y[i] = x[i]`, one `u32` per thread.
pub type CopyParams = (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>);
/// `c[i] = a[i] + b[i]`.
pub type AddParams = (GlobalPtr<F32>, GlobalPtr<F32>, GlobalPtr<F32>, Reg<U32>);
/// `y[i] = a * x[i] + y[i]`.
pub type SaxpyParams = (GlobalPtr<F32>, GlobalPtr<F32>, Reg<F32>, Reg<U32>);

/// Accesses of 16 bytes each thread issues before the first store in [`copy_v4`] (one, in
/// blocks of 256, measured fastest on an H200: see bench/results/).
pub const COPY_UNROLL: u32 = 1;
/// Threads per block the vector kernels are written for.
pub const BLOCK: u32 = 256;

/// Scalar copy: thread `i` copies element `i`.
pub fn copy_scalar(m: &mut Module) -> Result<KernelRef<CopyParams>, Error> {
    m.kernel("copy_scalar", |k, (x, y, n): CopyParams| {
        let i = k.global_thread_index_x();
        let inb = ptx!(k, "setp.lt.u32", i, n);
        k.if_(inb, |k| {
            let v = k.ld(x.at(i));
            k.st(y.at(i), v);
        });
    })
}

/// How [`copy_v4_with`] loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyLoad {
    /// `ld.global.nc` (read-only path)
    Nc,
    /// `ld.global` (default caching)
    Plain,
    /// `ld.global.cg` (L2 only)
    Cg,
    /// `ld.global.cs` (streaming)
    Cs,
    /// `ld.global.lu` (last use)
    Lu,
}

/// How [`copy_v4_with`] stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyStore {
    /// `st.global` (write-back)
    Wb,
    /// `st.global.cg` (L2 only)
    Cg,
    /// `st.global.cs` (streaming)
    Cs,
    /// `st.global.wt` (write-through)
    Wt,
}

/// Shape of a 16-byte vector copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyV4 {
    /// Threads per block.
    pub block: u32,
    /// 16-byte loads each thread issues before its first store.
    pub unroll: u32,
    /// The cache operator of the loads.
    pub load: CopyLoad,
    /// The cache operator of the stores.
    pub store: CopyStore,
    /// A fixed grid that strides over the buffer instead of one block per tile.
    pub grid_stride: bool,
}

impl CopyV4 {
    /// What [`copy_v4`] uses.
    pub const DEFAULT: CopyV4 = CopyV4 { block: BLOCK, unroll: COPY_UNROLL, load: CopyLoad::Nc, store: CopyStore::Wb, grid_stride: false };

    /// Elements (`u32`) one block covers per step.
    pub const fn block_elems(&self) -> u32 {
        self.block * self.unroll * 4
    }

    /// Blocks for `n` elements; `sms` multiprocessors size a grid-stride grid.
    pub fn blocks(&self, n: u32, sms: u32) -> u32 {
        if self.grid_stride {
            (sms * 8).min(n.div_ceil(self.block_elems())).max(1)
        } else {
            n.div_ceil(self.block_elems()).max(1)
        }
    }
}

/// Elements (`u32`) one block of [`copy_v4`] covers.
pub const fn copy_v4_block_elems() -> u32 {
    CopyV4::DEFAULT.block_elems()
}

/// 16-byte vector copy: each thread loads [`COPY_UNROLL`] `ld.global.nc.v4.u32`, spaced a
/// block apart so each warp's accesses are contiguous, before storing them. Launch with
/// [`blocks_for_copy_v4`] blocks of [`BLOCK`] threads.
pub fn copy_v4(m: &mut Module) -> Result<KernelRef<CopyParams>, Error> {
    copy_v4_with(m, "copy_v4", CopyV4::DEFAULT)
}

/// A 16-byte vector copy of the given shape (see [`CopyV4`]).
pub fn copy_v4_with(m: &mut Module, name: &str, o: CopyV4) -> Result<KernelRef<CopyParams>, Error> {
    m.kernel(name, |k, (x, y, n): CopyParams| {
        k.reqntid(o.block, 1, 1);
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        let cta = ptx!(k, "mov.u32", sreg::CTAID_X);
        let nvec = ptx!(k, "shr.u32", n, 2u32);
        let first = ptx!(k, "mad.lo.u32", cta, o.block * o.unroll, t);
        let step = |k: &mut Kernel, first: Reg<U32>| {
            let mut vals = Vec::new();
            for u in 0..o.unroll {
                let j = ptx!(k, "add.u32", first, u * o.block);
                let e = ptx!(k, "shl.b32", j, 2u32).bitcast::<U32>();
                let inb = ptx!(k, "setp.lt.u32", j, nvec);
                let v: [Reg<U32>; 4] = [k.reg(), k.reg(), k.reg(), k.reg()];
                match o.load {
                    CopyLoad::Nc => ptx!(k, @inb, "ld.global.nc.v4.u32" => v, x.at(e)),
                    CopyLoad::Plain => ptx!(k, @inb, "ld.global.v4.u32" => v, x.at(e)),
                    CopyLoad::Cg => ptx!(k, @inb, "ld.global.cg.v4.u32" => v, x.at(e)),
                    CopyLoad::Cs => ptx!(k, @inb, "ld.global.cs.v4.u32" => v, x.at(e)),
                    CopyLoad::Lu => ptx!(k, @inb, "ld.global.lu.v4.u32" => v, x.at(e)),
                };
                vals.push((inb, e, v));
            }
            for (inb, e, v) in vals {
                match o.store {
                    CopyStore::Wb => ptx!(k, @inb, "st.global.v4.u32", y.at(e), v),
                    CopyStore::Cg => ptx!(k, @inb, "st.global.cg.v4.u32", y.at(e), v),
                    CopyStore::Cs => ptx!(k, @inb, "st.global.cs.v4.u32", y.at(e), v),
                    CopyStore::Wt => ptx!(k, @inb, "st.global.wt.v4.u32", y.at(e), v),
                }
            }
        };
        if o.grid_stride {
            let nct = ptx!(k, "mov.u32", sreg::NCTAID_X);
            let stride = ptx!(k, "mul.lo.u32", nct, o.block * o.unroll);
            let f = ptx!(k, "mov.u32", first);
            k.while_(
                |k| ptx!(k, "setp.lt.u32", f, nvec),
                |k| {
                    step(k, f);
                    ptx!(k, "add.u32" => f, f, stride);
                },
            );
        } else {
            step(k, first);
        }
        tail(k, x, y, n);
    })
}

/// The last `n % 4` elements, copied by the first threads of block 0.
fn tail(k: &mut Kernel, x: GlobalPtr<U32>, y: GlobalPtr<U32>, n: Reg<U32>) {
    let i = k.global_thread_index_x();
    let rem = ptx!(k, "and.b32", n, 3u32).bitcast::<U32>();
    let p = ptx!(k, "setp.lt.u32", i, rem);
    k.if_(p, |k| {
        let body = ptx!(k, "sub.u32", n, rem);
        let e = ptx!(k, "add.u32", body, i);
        let v = k.ld(x.at(e));
        k.st(y.at(e), v);
    });
}

/// Thread `i` handles elements `4i..4i+4`: `four` with the first index when all four are in
/// range (16-byte accesses), otherwise `one` for each remaining element.
fn by_fours(k: &mut Kernel, n: Reg<U32>, four: impl FnOnce(&mut Kernel, Reg<U32>), one: impl FnMut(&mut Kernel, Reg<U32>)) {
    let i = k.global_thread_index_x();
    let e = ptx!(k, "shl.b32", i, 2u32).bitcast::<U32>();
    let e3 = ptx!(k, "add.u32", e, 3u32);
    let full = ptx!(k, "setp.lt.u32", e3, n);
    k.if_else(full, |k| four(k, e), |k| k.for_range(e, n, 1, one));
}

/// `c = a + b` with 16-byte accesses; the thread that meets the end finishes the tail
/// element by element.
pub fn vector_add(m: &mut Module) -> Result<KernelRef<AddParams>, Error> {
    m.kernel("vector_add", |k, (a, b, c, n): AddParams| {
        by_fours(
            k,
            n,
            |k, e| {
                let x = ptx!(k, "ld.global.nc.v4.f32", a.at(e));
                let y = ptx!(k, "ld.global.nc.v4.f32", b.at(e));
                let s: [Reg<F32>; 4] = std::array::from_fn(|j| ptx!(k, "add.rn.f32", x[j], y[j]));
                ptx!(k, "st.global.v4.f32", c.at(e), s);
            },
            |k, j| {
                let x = k.ld(a.at(j));
                let y = k.ld(b.at(j));
                let s = ptx!(k, "add.rn.f32", x, y);
                k.st(c.at(j), s);
            },
        );
    })
}

/// `y = alpha * x + y` with 16-byte accesses, the tail as in [`vector_add`].
pub fn saxpy(m: &mut Module) -> Result<KernelRef<SaxpyParams>, Error> {
    m.kernel("saxpy", |k, (x, y, alpha, n): SaxpyParams| {
        by_fours(
            k,
            n,
            |k, e| {
                let xv = ptx!(k, "ld.global.nc.v4.f32", x.at(e));
                let yv = ptx!(k, "ld.global.v4.f32", y.at(e));
                let r: [Reg<F32>; 4] = std::array::from_fn(|j| ptx!(k, "fma.rn.f32", alpha, xv[j], yv[j]));
                ptx!(k, "st.global.v4.f32", y.at(e), r);
            },
            |k, j| {
                let xv = k.ld(x.at(j));
                let yv = k.ld(y.at(j));
                let r = ptx!(k, "fma.rn.f32", alpha, xv, yv);
                k.st(y.at(j), r);
            },
        );
    })
}

/// Blocks of [`BLOCK`] threads that cover `n` elements at four per thread.
pub fn blocks_for_v4(n: u32) -> u32 {
    n.div_ceil(4).div_ceil(BLOCK).max(1)
}

/// Blocks of [`BLOCK`] threads for [`copy_v4`] over `n` elements.
pub fn blocks_for_copy_v4(n: u32) -> u32 {
    CopyV4::DEFAULT.blocks(n, 0)
}
