//! Every GEMM kernel variant (bf16 and e4m3 inputs, B K- or N-contiguous, bf16 and f32 C)
//! assembles with ptxas for sm_90a with no warning (no wgmma
//! serialised, C7510 and kin; no `setmaxnreg` ignored, C7508), no spill and no stack, and
//! its registers under the `.maxnreg` cap that `setmaxnreg` budgets from. The tcgen05
//! kernel's variants assemble the same way for sm_100a (and the other `tcgen05` targets),
//! and its PTX holds the tensor-memory life cycle in order. With `hopper::Config::timeline` the
//! Hopper kernels assemble as clean (the producer's 32 registers hold its stamps), and
//! without it they hold no stamp.

#[macro_use]
mod common;
use ptxkit::kernels::gemm::{blackwell, gemm, gemm_staged, gemm_tcgen05, hopper, E4m3, GemmConfig, Layout, TCGEN05_TILE_NS, TILE_NS};
use ptxkit::prelude::*;

fn variants() -> Vec<hopper::Config> {
    let base = hopper::Config::default();
    let mut out = vec![];
    for bn in TILE_NS {
        for consumers in [1, 2] {
            for cluster in [1, 2] {
                for overlap in [false, true] {
                    // As many stages as fit: the ones `hopper::Config::for_shape` picks for smaller tiles.
                    let stages = hopper::Config { bn, consumers, ..base }.with_most_stages().stages;
                    // The deferred store with every other choice; the plain one with overlap.
                    for defer_store in [true, false] {
                        if defer_store || overlap {
                            out.push(hopper::Config { bn, consumers, cluster, overlap, stages, defer_store, stream_k: false, ..base });
                            // Stream-K (single CTAs only) beside each single-CTA shape.
                            if cluster == 1 {
                                out.push(hopper::Config { bn, consumers, overlap, stages, defer_store, stream_k: true, ..base });
                            }
                        }
                    }
                }
            }
        }
    }
    // What `hopper::Config::for_problem` picks for few tiles with long K.
    out.push(hopper::Config { consumers: 2, bn: 128, stream_k: true, split: 8, ..base }.with_most_stages());
    out
}

fn every_gemm_variant_assembles_clean() {
    let px = common::ptxas("every_gemm_variant_assembles_clean");
    let mut failures = vec![];
    let mut kernels = 0;
    for cfg in variants() {
        let mut m = Module::new(Target::SM_90A);
        gemm::<Bf16, Bf16>(&mut m, "direct_bf16", &cfg).unwrap();
        gemm::<F32, Bf16>(&mut m, "direct_f32", &cfg).unwrap();
        gemm_staged::<Bf16>(&mut m, "staged", &cfg).unwrap();
        gemm::<Bf16, E4m3>(&mut m, "direct_bf16_e4m3", &cfg).unwrap();
        gemm::<F32, E4m3>(&mut m, "direct_f32_e4m3", &cfg).unwrap();
        gemm_staged::<E4m3>(&mut m, "staged_e4m3", &cfg).unwrap();
        kernels += 6;
        // NN (bf16 only), where B's share per CTA is whole boxes.
        let nn = hopper::Config { layout: Layout::NN, ..cfg };
        let with_nn = nn.check().is_ok();
        if with_nn {
            gemm::<Bf16, Bf16>(&mut m, "nn_bf16", &nn).unwrap();
            gemm::<F32, Bf16>(&mut m, "nn_f32", &nn).unwrap();
            gemm_staged::<Bf16>(&mut m, "nn_staged", &nn).unwrap();
            kernels += 3;
        }
        let text = m.to_ptx().unwrap();
        let report = match ptxkit::ptxas::report(&px, &text, Target::SM_90A) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{cfg:?}: ptxas refused it:\n{e}"));
                continue;
            }
        };
        let (cap, _, _) = cfg.registers();
        if let Err(e) = report.check_clean(Some(cap)) {
            failures.push(format!("{cfg:?}: {e}"));
        }
        assert_eq!(report.kernels.len(), if with_nn { 9 } else { 6 }, "{cfg:?}: a report per kernel: {report:?}");
    }
    println!("{kernels} GEMM kernels assembled for sm_90a");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The stamped GEMM: every tile width, one and two consumers, a cluster, stream-K, the plain
/// and the deferred store, bf16 and e4m3 inputs, TN and NN.
fn gemm_with_a_timeline_assembles_clean() {
    let px = common::ptxas("gemm_with_a_timeline_assembles_clean");
    let base = hopper::Config { timeline: Some(4096), ..hopper::Config::default() };
    let mut cfgs = vec![];
    for bn in TILE_NS {
        for consumers in [1, 2] {
            cfgs.push(hopper::Config { bn, consumers, ..base }.with_most_stages());
        }
    }
    cfgs.push(hopper::Config { cluster: 2, ..base });
    cfgs.push(hopper::Config { stream_k: true, defer_store: false, ..base });
    cfgs.push(hopper::Config { stream_k: true, consumers: 1, bn: 128, ..base }.with_most_stages());
    cfgs.push(hopper::Config { overlap: false, defer_store: false, ..base });
    let mut failures = vec![];
    for cfg in cfgs {
        let mut m = Module::new(Target::SM_90A);
        let kr = gemm_staged::<Bf16>(&mut m, "staged", &cfg).unwrap();
        let mut events = kr.probes().events().to_vec();
        events.sort();
        let mut want = vec!["consumer wait", "epilogue", "producer load", "producer wait", "wgmma"];
        if cfg.defer_store {
            want.insert(2, "epilogue store");
        }
        assert_eq!(events, want, "{cfg:?}");
        gemm::<F32, Bf16>(&mut m, "direct_f32", &cfg).unwrap();
        gemm_staged::<E4m3>(&mut m, "staged_e4m3", &cfg).unwrap();
        let nn = hopper::Config { layout: Layout::NN, ..cfg };
        if nn.check().is_ok() {
            gemm_staged::<Bf16>(&mut m, "nn_staged", &nn).unwrap();
        }
        let text = m.to_ptx().unwrap();
        assert!(text.contains(".const .align 8 .u64 staged_timeline[1] = {0};"));
        let report = match ptxkit::ptxas::report(&px, &text, Target::SM_90A) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{cfg:?}: ptxas refused it:\n{e}"));
                continue;
            }
        };
        let (cap, producer, _) = cfg.registers();
        assert_eq!(producer, ptxkit::kernels::gemm::TIMELINE_PRODUCER_REGS);
        if let Err(e) = report.check_clean(Some(cap)) {
            failures.push(format!("{cfg:?}: {e}"));
        }
    }
    // Without the option: no stamp, no variable, the balanced budget.
    let mut m = Module::new(Target::SM_90A);
    let kr = gemm_staged::<Bf16>(&mut m, "staged", &hopper::Config::default()).unwrap();
    let text = m.to_ptx().unwrap();
    assert!(kr.probes().events().is_empty() && !text.contains("%globaltimer") && !text.contains("_timeline"));
    assert_eq!(hopper::Config::default().registers().1, 24);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The tcgen05 kernel for every tile width, the fewest and the most stages that fit, and
/// both C types, assembled with `ptxas -v` for sm_100a: no warning, no spill, no stack, and a
/// register count reported for every kernel (printed, for the record). The default
/// configuration also assembles for sm_103a and sm_110a, the other targets the runtime picks.
fn every_tcgen05_gemm_variant_assembles_clean() {
    let px = common::ptxas("every_tcgen05_gemm_variant_assembles_clean");
    let mut failures = vec![];
    let mut builds = vec![];
    for bn in TCGEN05_TILE_NS {
        let fits = |s: u32| blackwell::Config { bn, stages: s, ..blackwell::Config::default() }.check().is_ok();
        let most = (2..=8).rev().find(|&s| fits(s)).unwrap();
        for stages in [2, most] {
            builds.push((Target::SM_100A, blackwell::Config { bn, stages, ..blackwell::Config::default() }));
        }
    }
    builds.push((Target::SM_103A, blackwell::Config::default()));
    builds.push((Target::SM_110A, blackwell::Config::default()));
    for (target, cfg) in builds {
        let mut m = Module::new(target);
        gemm_tcgen05::<Bf16>(&mut m, "tcgen05_bf16", &cfg).unwrap();
        gemm_tcgen05::<F32>(&mut m, "tcgen05_f32", &cfg).unwrap();
        let text = m.to_ptx().unwrap();
        let report = match ptxkit::ptxas::report(&px, &text, target) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{target} {cfg:?}: ptxas refused it:\n{e}"));
                continue;
            }
        };
        if let Err(e) = report.check_clean(Some(255)) {
            failures.push(format!("{target} {cfg:?}: {e}"));
        }
        for name in ["tcgen05_bf16", "tcgen05_f32"] {
            match report.kernel(name) {
                Some(k) if k.registers > 0 => {
                    println!("{target} bn {} stages {} {name}: {} registers, {} bytes smem", cfg.bn, cfg.stages, k.registers, k.shared)
                }
                _ => failures.push(format!("{target} {cfg:?}: no register count for {name}: {report:?}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The kernel's PTX, read as text: warp 5 allocates 2·bn columns, relinquishes the permit
/// and fences before the barrier that publishes the address; the issuer's four multiplies a
/// k-tile (the first with enable-input-d from a predicate, the rest with 1) commit to the
/// stage's and then the accumulator's barrier; the epilogue loads 32 columns a lane, waits
/// for the load and fences before releasing the accumulator; warp 5 frees the same columns
/// after the final barrier.
fn tcgen05_gemm_ptx_holds_the_tensor_memory_life_cycle() {
    for bn in TCGEN05_TILE_NS {
        let cfg = blackwell::Config { bn, ..blackwell::Config::default() };
        let mut m = Module::new(Target::SM_100A);
        gemm_tcgen05::<Bf16>(&mut m, "g", &cfg).unwrap();
        let text = m.to_ptx().unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let find = |from: usize, what: &str| {
            lines[from..]
                .iter()
                .position(|l| l.contains(what))
                .map(|i| from + i)
                .unwrap_or_else(|| panic!("no `{what}` after line {from}:\n{text}"))
        };
        let count = |what: &str| lines.iter().filter(|l| l.contains(what)).count();
        let cols = 2 * bn;
        let alloc = find(0, &format!("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tmem_base], {cols};"));
        let relinquish = find(alloc, "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
        let before = find(relinquish, "tcgen05.fence::before_thread_sync;");
        let sync = find(before, "bar.sync 0;");
        let after = find(sync, "tcgen05.fence::after_thread_sync;");
        let address = find(after, "ld.shared.b32");
        assert!(lines[address].ends_with("[tmem_base];"), "{}", lines[address]);
        // The epilogue comes first in the text, then the producer, then the issuer.
        let ld = find(address, "tcgen05.ld.sync.aligned.32x32b.x32.b32");
        let wait = find(ld, "tcgen05.wait::ld.sync.aligned;");
        let release = find(wait, "tcgen05.fence::before_thread_sync;");
        let arrive = find(release, "mbarrier.arrive.shared.b64");
        let tma = find(arrive, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes");
        let mma = find(tma, "tcgen05.mma.cta_group::1.kind::f16 [");
        let commit_stage = find(mma, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [");
        let commit_acc = find(commit_stage + 1, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [");
        let end = find(commit_acc, "tcgen05.fence::before_thread_sync;");
        let final_sync = find(end, "bar.sync 0;");
        let dealloc = find(
            final_sync,
            &format!(
                "tcgen05.dealloc.cta_group::1.sync.aligned.b32 {}, {cols};",
                lines[address].split_whitespace().nth(1).unwrap().trim_end_matches(',')
            ),
        );
        assert!(lines[final_sync + 1..dealloc].iter().any(|l| l.contains("tcgen05.fence::after_thread_sync;")), "{text}");
        let mmas: Vec<&&str> = lines[mma..commit_stage].iter().filter(|l| l.contains("tcgen05.mma.")).collect();
        assert_eq!(mmas.len(), 4, "four K=16 multiplies per 64-element k-tile:\n{mmas:?}");
        assert!(mmas[0].ends_with("%p") || mmas[0].contains(", %p"), "the first takes enable-input-d from a predicate: {}", mmas[0]);
        assert!(mmas[1..].iter().all(|l| l.ends_with(", 1;")), "{mmas:?}");
        assert_eq!((count("tcgen05.alloc."), count("tcgen05.dealloc."), count("tcgen05.relinquish_alloc_permit")), (1, 1, 1));
        assert_eq!(count("tcgen05.mma."), 4);
        assert_eq!(count("tcgen05.commit."), 2);
        // The instruction descriptor: bf16 x bf16 -> f32, M = 128, N = bn, K-major.
        let idesc = 1 << 4 | 1 << 7 | 1 << 10 | (bn >> 3) << 17 | (128 >> 4) << 24;
        assert!(text.contains(&format!("mov.b32 %r4, {idesc};")), "{text}");
    }
}

fn main() {
    common::harness::main(&[&[
        host!(every_gemm_variant_assembles_clean),
        host!(gemm_with_a_timeline_assembles_clean),
        host!(every_tcgen05_gemm_variant_assembles_clean),
        host!(tcgen05_gemm_ptx_holds_the_tensor_memory_life_cycle),
    ]]);
}
