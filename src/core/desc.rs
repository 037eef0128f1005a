//! Run-time descriptions of forms: what the IR, the printer, the version inference and the
//! ptxas checks know of an instruction. The typed layer (`crate::ops`) generates one
//! [`FormDesc`] per form from the family tables.

use super::dtype::DType;
use super::isa::{self, Req};
use super::sel::SelSet;

/// Run-time description of a form.
#[derive(Debug, PartialEq)]
pub struct FormDesc {
    /// `fma.rn.f32`
    pub chain: &'static str,
    /// `plain` or a wrapper variant name.
    pub variant: &'static str,
    pub dst: DstKind,
    pub src: &'static [Kind],
}

impl FormDesc {
    /// The opcode (first part of the chain).
    pub fn opcode(&self) -> &'static str {
        self.chain.split('.').next().unwrap_or(self.chain)
    }
    /// The form's item in the ISA sweep: its chain, or `chain as variant` for a variant
    /// other than `plain` (a variant can need more than its chain: the count operand of
    /// `mbarrier.arrive` needs sm_90 where the chain alone runs on sm_80).
    pub fn isa_key(&self) -> std::borrow::Cow<'static, str> {
        if self.variant == "plain" {
            std::borrow::Cow::Borrowed(self.chain)
        } else {
            std::borrow::Cow::Owned(format!("{} as {}", self.chain, self.variant))
        }
    }
    /// The ISA requirement recorded for this form: the row of its variant where the table has
    /// one (where the variant needs something else than its chain), else its chain's.
    pub fn req(&self) -> Option<Req> {
        if self.variant == "plain" {
            return isa::form_req(self.chain);
        }
        isa::form_req(&self.isa_key()).or_else(|| isa::form_req(self.chain))
    }
    /// What one ptxas release measured for the form ([`isa::form_req_of`]): its own oldest
    /// version and targets, `None` where it refuses the form everywhere (ISA 9.2 forms under
    /// ptxas 13.0). A variant without a row of its own has its chain's.
    pub fn req_of(&self, release: &str) -> Option<Req> {
        if self.variant != "plain" && isa::form_req(&self.isa_key()).is_some() {
            return isa::form_req_of(&self.isa_key(), release);
        }
        isa::form_req_of(self.chain, release)
    }
    /// The texturing mode the form needs, where it needs one (see [`Handles::tex_mode`]).
    pub fn tex_mode(&self) -> Option<TexMode> {
        self.src.iter().find_map(|k| match k {
            Kind::HandleAddr(h, c, _) => h.tex_mode(!c.is_empty()),
            _ => None,
        })
    }
}

/// State spaces of address operands; `Tmem` is tensor memory (32-bit addresses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Generic,
    Global,
    Shared,
    SharedCta,
    SharedCluster,
    Local,
    Const,
    Param,
    Tmem,
}

impl Space {
    pub const ALL: [Space; 9] = [
        Space::Generic,
        Space::Global,
        Space::Shared,
        Space::SharedCta,
        Space::SharedCluster,
        Space::Local,
        Space::Const,
        Space::Param,
        Space::Tmem,
    ];
    /// The space's name in a chain (`shared::cta`); `generic` for generic addresses.
    pub fn name(self) -> &'static str {
        match self {
            Space::Generic => "generic",
            Space::Global => "global",
            Space::Shared => "shared",
            Space::SharedCta => "shared::cta",
            Space::SharedCluster => "shared::cluster",
            Space::Local => "local",
            Space::Const => "const",
            Space::Param => "param",
            Space::Tmem => "tmem",
        }
    }
    /// Width of an address in this space: shared-window and tensor-memory addresses are
    /// 32-bit.
    pub fn addr_bits(self) -> u32 {
        match self {
            Space::Shared | Space::SharedCta | Space::SharedCluster | Space::Tmem => 32,
            _ => 64,
        }
    }
}

/// Operand kinds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Val(DType),
    /// An address in a space, of an element type (`None`: any).
    Addr(Space, Option<DType>),
    /// A braced vector.
    Vec(DType, u16),
    /// An immediate only.
    Imm(DType),
    /// An immediate from a set of legal values.
    ImmIn(DType, &'static [i64]),
    Label,
    /// The label of a `.branchtargets` list.
    Targets,
    /// A register of a video instruction: with a part selector from `sel` or none (`sel:
    /// None` takes none), printed with a leading `-` where `neg`. A [`SelSet::Scalar`]
    /// operand that is not negated also takes an immediate.
    Part {
        ty: DType,
        sel: Option<SelSet>,
        neg: bool,
    },
    /// `[h0, .., {c0, ..}]`: opaque handles (a tensor map; a texture, its sampler; a surface),
    /// the types of their coordinates (none for `[h]`), and how many ignored elements follow
    /// them (each a zero of the last coordinate's type: a 3-D lookup reads `{x, y, z, _}`).
    HandleAddr(Handles, &'static [DType], u8),
    /// A braced list of coordinates of mixed types or with ignored elements after them
    /// (`{u32, f32, f32, _}`): their types and the number of ignored ones; a plain vector is
    /// [`Kind::Vec`].
    Coords(&'static [DType], u8),
}

/// The handles of a [`Kind::HandleAddr`] operand, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Handles {
    /// A TMA tensor map's address (`tmap`).
    TensorMap,
    /// A texture (`tex`): a `.texref` or a 64-bit texture object. Sampled this way (with its
    /// own sampler state) it is a unified-mode operand.
    Texture,
    /// A texture and a separate sampler (`tex, smp`): the independent texturing mode.
    TextureSampler,
    /// A sampler (`smp`): a `.samplerref`, or in the unified mode a texture's own sampler.
    Sampler,
    /// A surface (`surf`): a `.surfref` or a 64-bit surface object.
    Surface,
}

impl Handles {
    /// How many handles the operand names.
    pub fn count(self) -> usize {
        if self == Handles::TextureSampler {
            2
        } else {
            1
        }
    }
    /// The texturing mode a module must be in for this operand, where it matters: a
    /// texture sampled with its own sampler needs the unified mode, one with a separate
    /// sampler the independent mode.
    pub fn tex_mode(self, has_coords: bool) -> Option<TexMode> {
        match self {
            Handles::Texture if has_coords => Some(TexMode::Unified),
            Handles::TextureSampler => Some(TexMode::Independent),
            _ => None,
        }
    }
}

/// How a module's texture instructions find their sampler state (`.target ...,
/// texmode_independent`): in the unified mode (the default, and how CUDA texture objects
/// work) a texture handle carries it; in the independent mode a lookup names a separate
/// sampler (`.samplerref`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TexMode {
    #[default]
    Unified,
    Independent,
}

impl TexMode {
    /// `unified` or `independent`.
    pub fn name(self) -> &'static str {
        match self {
            TexMode::Unified => "unified",
            TexMode::Independent => "independent",
        }
    }
}

/// Destination kinds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DstKind {
    None,
    /// `_`: the result is dropped.
    Sink,
    Val(DType),
    /// `d|p`
    Pair(DType, DType),
    /// `{d0, d1, ..}`
    Vec(DType, u16),
    /// A braced vector the instruction reads and writes in place (an accumulator).
    Tied(DType, u16),
    /// `{d0, d1, ..}|p`: a braced vector and a predicate (a texture lookup's residency).
    VecPred(DType, u16),
    /// Several destinations in a row.
    Multi(&'static [DstKind]),
    /// A register with a part selector from the set: the lanes written (`d.h1`, `d.b31`).
    Part(DType, SelSet),
    /// `_|p`: the first of a pair dropped.
    SinkPair(DType),
}
