//! The problem a GEMM computes ([`GemmShape`]): its dimensions, how B is stored, the row
//! strides (leading dimensions) of A, B and C, and a strided batch. Every runner
//! (`ptxkit::runtime::GemmRunner`) takes one; what a runner cannot do with it is its own
//! error, what no runner can do (a stride shorter than a row, C matrices that overlap) is
//! [`GemmShape::check`]'s.

use super::Layout;

/// `C = α·A·Bᵀ` (TN: B stored `n × k`) or `C = α·A·B` (NN: B stored `k × n`), A `m × k` and
/// C `m × n`, all row-major, each row `ld` elements after the one before; `batch` such
/// products, the `i`-th on matrices starting `i · stride` elements into each buffer.
/// Strides count elements (of the buffer's element type), not bytes. A stride of 0 for A or
/// B gives every product of the batch the same matrix.
///
/// ```
/// use ptxkit::kernels::gemm::{GemmShape, Layout};
///
/// // A 100 × 60 block of a 100 × 64 A, B 50 × 60 dense, C written into columns 0..50 of a
/// // wider 100 × 56 matrix.
/// let s = GemmShape::new(100, 50, 60).lda(64).ldc(56);
/// assert_eq!((s.ldb, s.layout, s.batch), (60, Layout::TN, 1));
/// assert_eq!(s.spans(), [99 * 64 + 60, 50 * 60, 99 * 56 + 50]);
/// s.check()?;
/// // Four products, B shared by all of them.
/// let b = GemmShape::nn(32, 48, 16).batch(4, 32 * 16, 0, 32 * 48);
/// assert_eq!(b.lens(), [4 * 32 * 16, 16 * 48, 4 * 32 * 48]);
/// assert!(GemmShape::new(8, 8, 8).ldc(4).check().unwrap_err().contains("make ldc at least 8"));
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmShape {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of C (rows of TN's B, columns of NN's).
    pub n: u32,
    /// The inner dimension: columns of A (columns of TN's B, rows of NN's).
    pub k: u32,
    /// How B is stored.
    pub layout: Layout,
    /// Elements from one row of A to the next: at least K.
    pub lda: u32,
    /// Elements from one row of B to the next: at least K (TN) or N (NN).
    pub ldb: u32,
    /// Elements from one row of C to the next: at least N.
    pub ldc: u32,
    /// Products in the batch: at least 1.
    pub batch: u32,
    /// Elements from the first element of one product's A to the next one's (likewise B, C).
    pub stride_a: u64,
    pub stride_b: u64,
    pub stride_c: u64,
}

impl GemmShape {
    /// One TN product, `C = A·Bᵀ` with B `n × k`, every matrix densely packed.
    pub fn new(m: u32, n: u32, k: u32) -> Self {
        GemmShape { m, n, k, layout: Layout::TN, lda: k, ldb: k, ldc: n, batch: 1, stride_a: 0, stride_b: 0, stride_c: 0 }
    }
    /// One NN product, `C = A·B` with B `k × n`, every matrix densely packed.
    pub fn nn(m: u32, n: u32, k: u32) -> Self {
        GemmShape { layout: Layout::NN, ldb: n, ..Self::new(m, n, k) }
    }
    /// With B stored as `layout`, densely packed (`ldb` is reset to its row's length).
    pub fn with_layout(self, layout: Layout) -> Self {
        let ldb = if layout == Layout::TN { self.k } else { self.n };
        GemmShape { layout, ldb, ..self }
    }
    /// With rows of A `lda` elements apart.
    pub fn lda(self, lda: u32) -> Self {
        GemmShape { lda, ..self }
    }
    /// With rows of B `ldb` elements apart.
    pub fn ldb(self, ldb: u32) -> Self {
        GemmShape { ldb, ..self }
    }
    /// With rows of C `ldc` elements apart.
    pub fn ldc(self, ldc: u32) -> Self {
        GemmShape { ldc, ..self }
    }
    /// With `count` products, the `i`-th on A, B and C starting `i · stride_a`, `i · stride_b`
    /// and `i · stride_c` elements into their buffers.
    pub fn batch(self, count: u32, stride_a: u64, stride_b: u64, stride_c: u64) -> Self {
        GemmShape { batch: count, stride_a, stride_b, stride_c, ..self }
    }
    /// The shape of one product of the batch (a batch of 1, at the start of each buffer).
    pub fn one(&self) -> Self {
        GemmShape { batch: 1, stride_a: 0, stride_b: 0, stride_c: 0, ..*self }
    }

    /// Rows and columns of B as stored: `n × k` (TN) or `k × n` (NN).
    pub fn b_dims(&self) -> (u32, u32) {
        match self.layout {
            Layout::TN => (self.n, self.k),
            Layout::NN => (self.k, self.n),
        }
    }
    /// Rows, columns and row stride of A, B and C as stored.
    pub fn matrices(&self) -> [(u32, u32, u32); 3] {
        let (br, bc) = self.b_dims();
        [(self.m, self.k, self.lda), (br, bc, self.ldb), (self.m, self.n, self.ldc)]
    }
    /// Whether every row stride is its row's length (no gap between rows).
    pub fn is_dense(&self) -> bool {
        self.matrices().iter().all(|&(_, cols, ld)| ld == cols)
    }
    /// Elements one product's A, B and C span, from the first to the last (inclusive).
    pub fn spans(&self) -> [u64; 3] {
        self.matrices().map(|(rows, cols, ld)| if rows == 0 || cols == 0 { 0 } else { (rows as u64 - 1) * ld as u64 + cols as u64 })
    }
    /// Elements the whole batch spans in the buffers of A, B and C: how long each must be.
    pub fn lens(&self) -> [u64; 3] {
        let strides = [self.stride_a, self.stride_b, self.stride_c];
        let last = self.batch.saturating_sub(1) as u64;
        let spans = self.spans();
        std::array::from_fn(|i| last.saturating_mul(strides[i]).saturating_add(spans[i]))
    }
    /// Where product `i` of the batch starts in the buffers of A, B and C, in elements.
    pub fn offsets(&self, i: u32) -> [u64; 3] {
        [self.stride_a, self.stride_b, self.stride_c].map(|s| s * i as u64)
    }

    /// Whether any GEMM can compute this problem; the error says what to change. M, N and K
    /// are 1 to 2³¹ − 1, each row stride at least its row's length and at most 2³¹ − 1, the
    /// batch at least one product, and no two products' C share an element: C matrices
    /// stacked (`stride_c` at least one C's span) or side by side in a wider one (`stride_c`
    /// at least N, and all of them within `ldc`).
    pub fn check(&self) -> Result<(), String> {
        for (name, v) in [("M", self.m), ("N", self.n), ("K", self.k)] {
            if v == 0 || v > i32::MAX as u32 {
                return Err(format!("{name} = {v} is outside 1..=2^31-1"));
            }
        }
        let what = match self.layout {
            Layout::TN => ["A (M×K)", "B (N×K, TN)", "C (M×N)"],
            Layout::NN => ["A (M×K)", "B (K×N, NN)", "C (M×N)"],
        };
        for (((_, cols, ld), name), ld_name) in self.matrices().into_iter().zip(what).zip(["lda", "ldb", "ldc"]) {
            if ld < cols {
                return Err(format!("{ld_name} = {ld} is shorter than a row of {name}, {cols} elements: make {ld_name} at least {cols}"));
            }
            if ld > i32::MAX as u32 {
                return Err(format!("{ld_name} = {ld} exceeds 2^31-1"));
            }
        }
        if self.batch == 0 {
            return Err("a batch of 0 products: make the count at least 1".into());
        }
        let [.., span_c] = self.spans();
        let (n, last) = (self.n as u64, self.batch as u64 - 1);
        let stacked = self.stride_c >= span_c;
        let side_by_side = self.stride_c >= n && last * self.stride_c + n <= self.ldc as u64;
        if self.batch > 1 && !stacked && !side_by_side {
            return Err(format!(
                "stride_c = {} makes the batch's C matrices overlap: make it at least one C's span, {span_c} elements \
                 (or, for C matrices side by side in rows of ldc = {}, at least N = {n} with {} · stride_c + N ≤ ldc)",
                self.stride_c, self.ldc, last
            ));
        }
        Ok(())
    }

    /// Whether buffers of `lens` elements (A, B, C) hold the whole batch ([`lens`](Self::lens)).
    pub fn check_lengths(&self, lens: [usize; 3]) -> Result<(), String> {
        for ((name, len), want) in ["A", "B", "C"].into_iter().zip(lens).zip(self.lens()) {
            if (len as u64) < want {
                return Err(format!("{name} holds {len} elements; {self} needs {want}: pass a longer buffer or smaller strides"));
            }
        }
        Ok(())
    }
}

impl std::fmt::Display for GemmShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a {}×{}×{} {:?} product", self.m, self.n, self.k, self.layout)?;
        if !self.is_dense() {
            write!(f, " (lda {}, ldb {}, ldc {})", self.lda, self.ldb, self.ldc)?;
        }
        if self.batch > 1 {
            write!(f, " in a batch of {} (strides {}, {}, {})", self.batch, self.stride_a, self.stride_b, self.stride_c)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_shapes_have_the_rows_lengths_as_strides() {
        let tn = GemmShape::new(3, 5, 7);
        assert_eq!((tn.lda, tn.ldb, tn.ldc, tn.b_dims()), (7, 7, 5, (5, 7)));
        let nn = GemmShape::nn(3, 5, 7);
        assert_eq!((nn.lda, nn.ldb, nn.ldc, nn.b_dims()), (7, 5, 5, (7, 5)));
        assert_eq!(tn.with_layout(Layout::NN), nn);
        assert!(tn.is_dense() && nn.is_dense() && !tn.ldc(6).is_dense());
        assert_eq!(tn.lens(), [21, 35, 15]);
        assert_eq!(tn.to_string(), "a 3×5×7 TN product");
    }

    #[test]
    fn strides_and_batches_give_the_buffers_lengths() {
        let s = GemmShape::new(3, 5, 7).lda(9).ldb(8).ldc(6).batch(4, 30, 0, 20);
        assert_eq!(s.spans(), [2 * 9 + 7, 4 * 8 + 7, 2 * 6 + 5]);
        assert_eq!(s.lens(), [3 * 30 + 25, 39, 3 * 20 + 17]);
        assert_eq!(s.offsets(2), [60, 0, 40]);
        assert_eq!(s.one(), GemmShape::new(3, 5, 7).lda(9).ldb(8).ldc(6));
        s.check().unwrap();
        let e = s.check_lengths([115, 39, 76]).unwrap_err();
        assert!(e.contains("C holds 76 elements") && e.contains("needs 77") && e.contains("batch of 4"), "{e}");
        assert!(s.check_lengths([115, 39, 77]).is_ok());
    }

    #[test]
    fn every_refusal_says_what_to_change() {
        let s = GemmShape::new(16, 24, 32);
        let refused = |s: GemmShape, want: &str| {
            let e = s.check().unwrap_err();
            assert!(e.contains(want), "{s}: {e:?} does not say {want:?}");
        };
        refused(GemmShape::new(0, 24, 32), "M = 0 is outside");
        refused(GemmShape::new(16, 24, 1 << 31), "K = 2147483648 is outside");
        refused(s.lda(31), "make lda at least 32");
        refused(s.ldb(16), "make ldb at least 32");
        refused(GemmShape::nn(16, 24, 32).ldb(23), "make ldb at least 24");
        refused(s.ldc(20), "make ldc at least 24");
        refused(s.lda(1 << 31), "lda = 2147483648 exceeds");
        refused(s.batch(0, 0, 0, 0), "make the count at least 1");
        // C matrices that share elements: one C spans 15 · 24 + 24 = 384 elements.
        refused(s.batch(2, 0, 0, 383), "make it at least one C's span, 384 elements");
        refused(s.batch(3, 0, 0, 24).ldc(70), "2 · stride_c + N ≤ ldc");
        // Stacked, side by side, and A and B shared by every product are all fine.
        s.batch(2, 0, 0, 384).check().unwrap();
        s.batch(3, 0, 0, 24).ldc(72).check().unwrap();
        s.batch(5, 0, 0, 1000).check().unwrap();
        // A batch of one may have any stride.
        s.batch(1, 0, 0, 1).check().unwrap();
    }
}
