//! Targets and PTX ISA versions.

use std::fmt;

/// A PTX ISA version, e.g. 8.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u8,
    pub minor: u8,
}

impl Version {
    pub const fn new(major: u8, minor: u8) -> Self {
        Version { major, minor }
    }
    /// The newest ISA a CUDA 13.0 driver (r580) and ptxas 13.0 accept: what a module whose
    /// version is not inferred (an unchecked one) says. Inference goes past it only for an
    /// instruction or target that needs a newer ISA ([`Version::NEWEST`]).
    pub const MAX: Version = Version::new(9, 0);
    /// The newest ISA the tables know (PTX ISA 9.5, CUDA 13.5).
    pub const NEWEST: Version = Version::new(9, 5);
    /// Every version from the oldest any target accepts (6.3, for sm_75) to
    /// [`Version::NEWEST`], ascending: what the ISA sweep tries.
    pub const ALL: &'static [Version] = &[
        Version::new(6, 3),
        Version::new(6, 4),
        Version::new(6, 5),
        Version::new(7, 0),
        Version::new(7, 1),
        Version::new(7, 2),
        Version::new(7, 3),
        Version::new(7, 4),
        Version::new(7, 5),
        Version::new(7, 6),
        Version::new(7, 7),
        Version::new(7, 8),
        Version::new(8, 0),
        Version::new(8, 1),
        Version::new(8, 2),
        Version::new(8, 3),
        Version::new(8, 4),
        Version::new(8, 5),
        Version::new(8, 6),
        Version::new(8, 7),
        Version::new(8, 8),
        Version::new(9, 0),
        Version::new(9, 1),
        Version::new(9, 2),
        Version::new(9, 3),
        Version::new(9, 4),
        Version::new(9, 5),
    ];
    /// The CUDA release that introduced this ISA version (`(13, 2)` for 9.2), for 9.0 and
    /// newer: a ptxas or a driver older than it refuses the `.version`.
    pub const fn cuda_release(self) -> Option<(u8, u8)> {
        match (self.major, self.minor) {
            (9, m) if m <= 5 => Some((13, m)),
            _ => None,
        }
    }
    pub fn parse(s: &str) -> Option<Version> {
        let (a, b) = s.split_once('.')?;
        Some(Version::new(a.parse().ok()?, b.parse().ok()?))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Architecture-specific suffix of a target: `sm_90a` runs only on that chip, `sm_100f`
/// on its family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suffix {
    None,
    A,
    F,
}

/// A `.target`: one of the constants (every target the supported ptxas release knows), or
/// [`Target::parse`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    sm: u16,
    suffix: Suffix,
}

macro_rules! targets {
    ($($c:ident $sm:literal $suf:ident;)*) => {
        impl Target {
            $(pub const $c: Target = Target { sm: $sm, suffix: Suffix::$suf };)*
            /// Every target the supported ptxas release knows, in ascending order.
            pub const ALL: &'static [Target] = &[$(Target::$c),*];
        }
    };
}

// Target sets are 64-bit masks over `ALL`.
const _: () = assert!(Target::ALL.len() <= 64);

targets! {
    SM_75 75 None; SM_80 80 None; SM_86 86 None; SM_87 87 None; SM_88 88 None; SM_89 89 None;
    SM_90 90 None; SM_90A 90 A;
    SM_100 100 None; SM_100A 100 A; SM_100F 100 F;
    SM_103 103 None; SM_103A 103 A; SM_103F 103 F;
    SM_107 107 None; SM_107A 107 A; SM_107F 107 F;
    SM_110 110 None; SM_110A 110 A; SM_110F 110 F;
    SM_120 120 None; SM_120A 120 A; SM_120F 120 F;
    SM_121 121 None; SM_121A 121 A; SM_121F 121 F;
}

impl Target {
    /// The architecture number (`90` for `sm_90a`).
    pub const fn sm(self) -> u16 {
        self.sm
    }
    pub const fn suffix(self) -> Suffix {
        self.suffix
    }
    pub fn parse(s: &str) -> Option<Target> {
        Target::ALL.iter().copied().find(|t| t.to_string() == s)
    }
    /// What one SM of this architecture holds at once, as ptxas 13.0 judges `.minnctapersm`:
    /// CTAs, and threads. Measured with ptxas (`tests/errors.rs` checks both bounds of every
    /// target); past either, ptxas warns and ignores the directive.
    pub const fn per_sm(self) -> (u32, u32) {
        match self.sm {
            75 | 107 => (16, 1024),
            80 | 90 | 100 | 103 => (32, 2048),
            86..=88 => (16, 1536),
            _ => (24, 1536), // 89, 110, 120, 121
        }
    }
    /// Position in [`Target::ALL`] (a bit index for target sets). Every `Target` is one of
    /// `ALL` (the fields are private), so the fallback is never taken.
    pub fn index(self) -> usize {
        Target::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let s = match self.suffix {
            Suffix::None => "",
            Suffix::A => "a",
            Suffix::F => "f",
        };
        write!(f, "sm_{}{}", self.sm, s)
    }
}
