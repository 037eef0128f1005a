//! The forms of every family at run time, from the tables (`ptxkit-tables`): what the ptxas
//! checks, the ISA sweep, the coverage report and the forms reference enumerate. Building a
//! kernel does not need them: a `ptx!` call's descriptor comes from its form's type.

use crate::core::{DType, DstKind, FormDesc, Handles, Kind, SelSet, Space};
use ptxkit_tables::{notation::Coord, Dst, Src};
use std::sync::OnceLock;

/// Every family table, in order: `(name, forms)`, expanded on first use (tens of
/// milliseconds; the descriptors then live as long as the program).
pub fn families() -> &'static [(&'static str, &'static [FormDesc])] {
    static F: OnceLock<Vec<(&'static str, &'static [FormDesc])>> = OnceLock::new();
    F.get_or_init(|| {
        // The same tables expanded without error when the macros built this crate.
        let t = ptxkit_tables::tables().expect("the tables were checked when ptxkit was built");
        t.families
            .iter()
            .map(|fam| {
                let forms: Vec<FormDesc> = fam.forms.iter().map(|&i| desc(&t.forms[i])).collect();
                (fam.name, &*Vec::leak(forms))
            })
            .collect()
    })
}

/// Every form of every family.
pub fn all_forms() -> impl Iterator<Item = &'static FormDesc> {
    families().iter().flat_map(|(_, f)| f.iter())
}

fn desc(f: &'static ptxkit_tables::Form) -> FormDesc {
    FormDesc { chain: &f.chain, variant: &f.variant, dst: dst(&f.dst), src: Vec::leak(f.srcs.iter().map(src).collect()) }
}

fn dtype(name: &str) -> DType {
    DType::from_name(name).unwrap_or_else(|| panic!("`{name}` is a data type of the tables"))
}

fn len(n: u32) -> u16 {
    n as u16
}

/// A selector set by its name in the tables (`vocab::SELECTORS`).
fn sel_set(name: &str) -> SelSet {
    match name {
        "sel" => SelSet::Scalar,
        "hsel" => SelSet::Half2,
        "bsel" => SelSet::Byte4,
        "hmask" => SelSet::Mask2,
        "bmask" => SelSet::Mask4,
        _ => panic!("selector set `{name}` is not in vocab::SELECTORS"),
    }
}

fn dst(d: &Dst) -> DstKind {
    match d {
        Dst::None => DstKind::None,
        Dst::Sink => DstKind::Sink,
        Dst::Val(t) => DstKind::Val(dtype(t)),
        Dst::Pair(a, b) => DstKind::Pair(dtype(a), dtype(b)),
        Dst::Vec(t, n) => DstKind::Vec(dtype(t), len(*n)),
        Dst::Tied(t, n) => DstKind::Tied(dtype(t), len(*n)),
        Dst::VecPred(t, n) => DstKind::VecPred(dtype(t), len(*n)),
        Dst::Multi(ds) => DstKind::Multi(Vec::leak(ds.iter().map(dst).collect())),
        Dst::Part(t, set) => DstKind::Part(dtype(t), sel_set(set)),
        Dst::SinkPair(t) => DstKind::SinkPair(dtype(t)),
    }
}

fn space(s: Option<&str>) -> Space {
    match s {
        None => Space::Generic,
        Some(s) => *Space::ALL.iter().find(|x| x.name() == s).unwrap_or_else(|| panic!("state space `{s}`")),
    }
}

/// The element types of a coordinate list and the number of ignored elements after them.
fn coords(cs: &[Coord]) -> (&'static [DType], u8) {
    let types: Vec<DType> = cs.iter().filter(|(_, pad)| !pad).map(|(t, _)| dtype(t)).collect();
    (Vec::leak(types), cs.iter().filter(|(_, pad)| *pad).count() as u8)
}

fn src(s: &Src) -> Kind {
    match s {
        Src::Val(t) => Kind::Val(dtype(t)),
        Src::Addr(sp, elem) => Kind::Addr(space(sp.as_deref()), elem.as_deref().map(dtype)),
        Src::Vec(t, n) => Kind::Vec(dtype(t), len(*n)),
        Src::Imm(t) => Kind::Imm(dtype(t)),
        Src::ImmIn(t, vals, _) => Kind::ImmIn(dtype(t), Vec::leak(vals.clone())),
        Src::Label => Kind::Label,
        Src::Targets => Kind::Targets,
        Src::Part(t, set, neg) => Kind::Part { ty: dtype(t), sel: set.as_deref().map(sel_set), neg: *neg },
        Src::HandleAddr(hs, cs) => {
            let names: Vec<&str> = hs.iter().map(String::as_str).collect();
            let h = match names[..] {
                ["tmap"] => Handles::TensorMap,
                ["tex"] => Handles::Texture,
                ["tex", "smp"] => Handles::TextureSampler,
                ["smp"] => Handles::Sampler,
                _ => Handles::Surface,
            };
            let (types, pads) = coords(cs);
            Kind::HandleAddr(h, types, pads)
        }
        Src::Coords(cs) => {
            let (types, pads) = coords(cs);
            Kind::Coords(types, pads)
        }
    }
}
