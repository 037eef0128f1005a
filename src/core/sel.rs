//! Part selectors of the video instructions' register operands: the `.b1` of `%r1.b1`, the
//! `.h10` of `%r2.h10`, the `.b7654` of `%r3.b7654`, and the sets of them each operand
//! position takes.

/// A part selector: `.b` (bytes) or `.h` (half-words) and 1 to 4 lane digits, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sel {
    half: bool,
    len: u8,
    lanes: [u8; 4],
}

impl Sel {
    /// No selector (the whole register).
    pub const NONE: Sel = Sel { half: false, len: 0, lanes: [0; 4] };

    const fn of(half: bool, lanes: &[u8]) -> Option<Sel> {
        if lanes.is_empty() || lanes.len() > 4 {
            return None;
        }
        let mut l = [0u8; 4];
        let mut i = 0;
        while i < lanes.len() {
            if lanes[i] > 7 {
                return None;
            }
            l[i] = lanes[i];
            i += 1;
        }
        Some(Sel { half, len: lanes.len() as u8, lanes: l })
    }
    /// `.b` followed by `lanes`, most significant lane first as PTX writes them (`.b3210`);
    /// `None` unless there are 1 to 4 lanes of 0 to 7. Whether an operand takes it is
    /// [`SelSet::admits`].
    pub const fn bytes(lanes: &[u8]) -> Option<Sel> {
        Sel::of(false, lanes)
    }
    /// `.h` followed by `lanes` (`.h10`), as [`Sel::bytes`].
    pub const fn halves(lanes: &[u8]) -> Option<Sel> {
        Sel::of(true, lanes)
    }
    pub fn is_none(self) -> bool {
        self.len == 0
    }
    /// Whether the lanes are half-words (`.h..`) rather than bytes.
    pub fn is_half(self) -> bool {
        self.half
    }
    /// The lane digits as written, most significant lane first.
    pub fn lanes(&self) -> &[u8] {
        &self.lanes[..self.len as usize]
    }
    /// Appends `.b1`, `.h10`, ... (nothing for [`Sel::NONE`]).
    pub fn write(self, out: &mut String) {
        if self.len == 0 {
            return;
        }
        out.push_str(if self.half { ".h" } else { ".b" });
        for d in self.lanes() {
            out.push((b'0' + d) as char);
        }
    }
}

impl core::fmt::Display for Sel {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        let mut s = String::new();
        self.write(&mut s);
        f.write_str(&s)
    }
}

/// The selectors an operand position takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SelSet {
    /// The scalar video instructions' sources and merge destination: `.b0`..`.b3`, `.h0`,
    /// `.h1` (`<sel>` in a table).
    Scalar,
    /// A 2-lane SIMD source: `.hxy`, each of x, y one of the four half-words of `{b, a}`
    /// (`<hsel>`).
    Half2,
    /// A 4-lane SIMD source: `.bxyzw`, each one of the eight bytes of `{b, a}` (`<bsel>`),
    /// but `.b1024`, which ptxas's lexer takes for a keyword.
    Byte4,
    /// A 2-lane SIMD destination mask: `.h0`, `.h1`, `.h10` (`<hmask>`).
    Mask2,
    /// A 4-lane SIMD destination mask: the lanes written, in descending order, from `.b0` to
    /// `.b3210` (`<bmask>`).
    Mask4,
}

impl SelSet {
    pub const ALL: [SelSet; 5] = [SelSet::Scalar, SelSet::Half2, SelSet::Byte4, SelSet::Mask2, SelSet::Mask4];

    /// Whether `s` is one of the set (never [`Sel::NONE`]).
    pub fn admits(self, s: Sel) -> bool {
        let l = s.lanes();
        let below = |n: u8| l.iter().all(|&d| d < n);
        let descending = l.windows(2).all(|w| w[0] > w[1]);
        match self {
            SelSet::Scalar => l.len() == 1 && below(if s.half { 2 } else { 4 }),
            SelSet::Half2 => s.half && l.len() == 2 && below(4),
            SelSet::Byte4 => !s.half && l.len() == 4 && below(8) && l != [1, 0, 2, 4],
            SelSet::Mask2 => s.half && !l.is_empty() && below(2) && descending,
            SelSet::Mask4 => !s.half && !l.is_empty() && below(4) && descending,
        }
    }

    /// Every member, in a fixed order (4,095 for [`SelSet::Byte4`]).
    pub fn members(self) -> Vec<Sel> {
        let mut out = vec![];
        for half in [false, true] {
            for len in 1..=4u32 {
                let digits = if half { 4u32 } else { 8 };
                for n in 0..digits.pow(len) {
                    let lanes: Vec<u8> = (0..len).rev().map(|i| (n / digits.pow(i) % digits) as u8).collect();
                    if let Some(s) = Sel::of(half, &lanes).filter(|s| self.admits(*s)) {
                        out.push(s);
                    }
                }
            }
        }
        out
    }

    /// A member other than the position's default, for the samples ptxas assembles.
    pub fn sample(self) -> Sel {
        let (half, lanes): (bool, &[u8]) = match self {
            SelSet::Scalar => (false, &[1]),
            SelSet::Half2 => (true, &[2, 1]),
            SelSet::Byte4 => (false, &[7, 2, 5, 0]),
            SelSet::Mask2 => (true, &[1]),
            SelSet::Mask4 => (false, &[3, 1]),
        };
        Sel::of(half, lanes).unwrap_or(Sel::NONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_have_the_isa_sizes_and_print_as_ptx() {
        let n: Vec<usize> = SelSet::ALL.iter().map(|s| s.members().len()).collect();
        assert_eq!(n, [6, 16, 4095, 3, 15]);
        let p = |s: Sel| s.to_string();
        assert_eq!(SelSet::Scalar.members().into_iter().map(p).collect::<Vec<_>>(), [".b0", ".b1", ".b2", ".b3", ".h0", ".h1"]);
        assert_eq!(SelSet::Mask2.members().into_iter().map(p).collect::<Vec<_>>(), [".h0", ".h1", ".h10"]);
        let m4: Vec<String> = SelSet::Mask4.members().into_iter().map(p).collect();
        assert_eq!(m4.first().map(String::as_str), Some(".b0"));
        assert_eq!(m4.last().map(String::as_str), Some(".b3210"));
        assert!(m4.contains(&".b31".to_string()) && !m4.contains(&".b13".to_string()));
        assert_eq!(p(Sel::NONE), "");
        for s in SelSet::ALL {
            assert!(s.admits(s.sample()), "{s:?}");
            assert!(!s.admits(Sel::NONE));
        }
    }
}
