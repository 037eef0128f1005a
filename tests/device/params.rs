//! Parameters passed by value: a 128-byte, 64-byte-aligned block of bytes (a
//! [`HostBytes`], or a tensor map's bytes) followed by a pointer and a scalar, which proves
//! the parameters after the block land where the kernel reads them.

use super::*;
use ptxkit::builder::ParamBytes;
use ptxkit::runtime::cudarc::driver::sys::CUtensorMap;
use ptxkit::runtime::HostBytes;
use rand::Rng;

type P = (ParamBytes<128>, GlobalPtr<U32>, Reg<U32>);

/// The 33 words the kernel should write: the 128 bytes as little-endian words, then `tail`.
fn words(bytes: &[u8], tail: u32) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).chain([tail]).collect()
}

/// Thread t copies word t of the parameter with a register-indexed `ld.param.u32`; thread 0
/// also writes the scalar after the 32 words.
fn copy_words(target: Target) -> (Module, KernelRef<P>) {
    let mut m = Module::new(target);
    let kr = m
        .kernel("param_bytes", |k, (bytes, out, tail): P| {
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let w = ptx!(k, "ld.param.u32", bytes.ptr::<U32>().at(t));
            ptx!(k, "st.global.u32", out.at(t), w);
            let first = ptx!(k, "setp.eq.u32", t, 0u32);
            k.if_(first, |k| ptx!(k, "st.global.u32", out.offset(32), tail));
        })
        .unwrap();
    (m, kr)
}

/// Without a GPU: the declaration, its round trip through `KernelRef::from_ptx`, and ptxas.
fn param_bytes_declaration_round_trips_and_assembles() {
    let (m, _) = copy_words(Target::SM_90);
    let ptx = m.to_ptx().unwrap();
    assert!(ptx.contains(".param .align 64 .b8 param_bytes_param_0[128],"), "{ptx}");
    assert!(KernelRef::<P>::from_ptx(&ptx, "param_bytes").is_ok());
    let other_size = KernelRef::<(ParamBytes<64>, GlobalPtr<U32>, Reg<U32>)>::from_ptx(&ptx, "param_bytes");
    assert!(matches!(other_size, Err(Error::InvalidArgument { .. })), "{other_size:?}");
    let scalar_first = KernelRef::<(Reg<U32>, GlobalPtr<U32>, ParamBytes<128>)>::from_ptx(&ptx, "param_bytes");
    assert!(scalar_first.is_err());
    {
        let px = ptxas("param_bytes_declaration_round_trips_and_assembles");
        ptxkit::ptxas::check_clean(&px, &ptx, Target::SM_90, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
    }
}

fn param_bytes_then_scalar(gpu: Gpu) {
    let mut g = rng("param_bytes_then_scalar");
    let (m, kr) = copy_words(target(&gpu));
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let cfg = Launch::new(1, 32);

    let mut host = HostBytes([0u8; 128]);
    g.fill(&mut host.0[..]);
    let tail: u32 = g.gen();
    let mut out = poisoned::<u32>(&gpu, 33).unwrap();
    kern.launch(&cfg, (&host, &mut out, tail)).unwrap();
    let want = words(&host.0, tail);
    check("ParamBytes<128> from HostBytes", |i| i, &gpu.download(&out).unwrap(), &want);

    // A tensor map travels the same way; the kernel sees its 128 bytes as they are.
    let map = CUtensorMap { opaque: std::array::from_fn(|_| g.gen()) };
    let tail: u32 = g.gen();
    let mut out = poisoned::<u32>(&gpu, 33).unwrap();
    kern.launch(&cfg, (&map, &mut out, tail)).unwrap();
    let bytes: Vec<u8> = map.opaque.iter().flat_map(|w| w.to_le_bytes()).collect();
    check("ParamBytes<128> from CUtensorMap", |i| i, &gpu.download(&out).unwrap(), &words(&bytes, tail));
}

pub const TESTS: &[Test] = &[host!(param_bytes_declaration_round_trips_and_assembles), gpu!(param_bytes_then_scalar)];
