//! A list stored in segments, for a body's statements and its operand arena: growing it never
//! copies what it already holds. (A `Vec` of a million statements copies itself about twenty
//! times as it doubles, and touches twice the memory it ends with: at 10^6 instructions that
//! was a third of the builder's time, most of it page faults.)

/// Items in a full segment; a segment index packs the segment number above these bits.
const SHIFT: u32 = 16;
const SEG: usize = 1 << SHIFT;

/// A list of `T` in segments of `SEG` items (the first grows to that size as a `Vec` does,
/// so a small body costs no more than a `Vec`). Items are addressed by a `u32` index: the
/// segment number above the low `SHIFT` bits, the offset in it below. A run pushed in one
/// call lies in one segment, so it reads back as one slice.
#[derive(Clone, Debug)]
pub(crate) struct Segments<T> {
    segs: Vec<Vec<T>>,
    len: usize,
}

impl<T: Copy> Segments<T> {
    pub(crate) fn with_capacity(n: usize) -> Self {
        Segments { segs: vec![Vec::with_capacity(n.min(SEG))], len: 0 }
    }

    /// Items stored.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The segment a run of `n` items goes into, and the run's index: the last segment if
    /// it is empty or the run fits in what is left of its `SEG` items, else a new one (of `n`
    /// items where the run is longer than a segment). A run's offset is so always below `SEG`.
    #[inline]
    fn room(&mut self, n: usize) -> (&mut Vec<T>, u32) {
        let l = self.segs[self.segs.len() - 1].len();
        if l > 0 && l + n.max(1) > SEG {
            self.segs.push(Vec::with_capacity(SEG.max(n)));
        }
        let no = self.segs.len() - 1;
        let seg = &mut self.segs[no];
        let index = (no as u32) << SHIFT | seg.len() as u32;
        (seg, index)
    }

    #[inline]
    pub(crate) fn push(&mut self, x: T) {
        let (seg, _) = self.room(1);
        seg.push(x);
        self.len += 1;
    }

    /// Appends a run; returns its index.
    #[inline]
    pub(crate) fn push_run(&mut self, xs: &[T]) -> u32 {
        let (seg, index) = self.room(xs.len());
        seg.extend_from_slice(xs);
        self.len += xs.len();
        index
    }

    /// Appends a run, draining `xs`; returns its index.
    #[inline]
    pub(crate) fn append(&mut self, xs: &mut Vec<T>) -> u32 {
        let n = xs.len();
        let (seg, index) = self.room(n);
        if (1..=4).contains(&n) {
            // An instruction's operands: copied as two overlapping pairs, not by a `memcpy`
            // call, whose overhead was a tenth of the builder's time.
            seg.reserve(4);
            // SAFETY: `reserve` left room for 4 items past the length; the pairs read lie
            // inside `xs` (items 0..2 and n-2..n, or item 0 alone) and are written to the
            // same offsets past the length; the length then grows by the `n` items written.
            unsafe {
                let (src, dst) = (xs.as_ptr(), seg.as_mut_ptr().add(seg.len()));
                if n == 1 {
                    dst.write(src.read());
                } else {
                    (dst as *mut [T; 2]).write_unaligned((src as *const [T; 2]).read_unaligned());
                    (dst.add(n - 2) as *mut [T; 2]).write_unaligned((src.add(n - 2) as *const [T; 2]).read_unaligned());
                }
                seg.set_len(seg.len() + n);
            }
            xs.clear();
        } else {
            seg.append(xs);
        }
        self.len += n;
        index
    }

    /// The run of `n` items at `index`.
    #[inline]
    pub(crate) fn run(&self, index: u32, n: usize) -> &[T] {
        let off = (index & (SEG as u32 - 1)) as usize;
        &self.segs[(index >> SHIFT) as usize][off..off + n]
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.segs.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::{Segments, SEG};

    /// Runs read back as pushed, across segment boundaries, with runs longer than a segment
    /// and empty runs; the items iterate in push order.
    #[test]
    fn runs_read_back_across_segments() {
        let mut s = Segments::with_capacity(4);
        let mut flat = Vec::new();
        let mut runs = Vec::new();
        let mut next = 0u64;
        for n in [0, 1, 3, SEG - 5, 7, 0, SEG, 2 * SEG + 3, 1, 1, SEG - 1, 2] {
            let xs: Vec<u64> = (next..next + n as u64).collect();
            next += n as u64;
            let at = if n % 2 == 0 { s.push_run(&xs) } else { s.append(&mut xs.clone()) };
            runs.push((at, xs.clone()));
            flat.extend(xs);
            s.push(u64::MAX);
            flat.push(u64::MAX);
        }
        assert_eq!(s.len(), flat.len());
        for (at, xs) in runs {
            assert_eq!(s.run(at, xs.len()), &xs[..]);
        }
        assert!(s.iter().copied().eq(flat.into_iter()));
    }
}
