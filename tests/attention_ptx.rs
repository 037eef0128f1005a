//! The attention kernel is built only from the crate's public API: its files are compiled
//! here again, as a module of this test crate, where a private item of `ptxkit` does not
//! resolve. Every variant (each head dimension and block of keys; causal, or not and with tiles
//! streamed or one by one) assembles for sm_90a
//! with no warning (no wgmma serialised, no `setmaxnreg` ignored), no spill, no stack, and
//! its registers under the `.maxnreg` the roles start from; both builds print the same PTX.

#[macro_use]
mod common;
use ptxkit::prelude::*;

/// `src/kernels/attention/`, compiled against the public API.
#[allow(dead_code)]
#[path = "../src/kernels/attention/mod.rs"]
mod attention;

fn every_attention_variant_assembles_clean() {
    let px = common::ptxas("every_attention_variant_assembles_clean");
    let mut failures = vec![];
    for (d, bn, consumers) in ptxkit::kernels::attention::AttentionConfig::SHAPES {
        for (causal, stream) in [(false, true), (false, false), (true, false)] {
            let cfg = ptxkit::kernels::attention::AttentionConfig { stream, ..ptxkit::kernels::attention::AttentionConfig::new(d, causal) }
                .with_bn(bn)
                .with_consumers(consumers);
            let mut m = Module::new(Target::SM_90A);
            ptxkit::kernels::attention::attention(&mut m, "attn", &cfg).unwrap();
            let text = m.to_ptx().unwrap();
            if let Ok(dir) = std::env::var("PTXKIT_ATTN_DUMP") {
                std::fs::write(format!("{dir}/attn_d{d}_bn{bn}_c{consumers}_causal{causal}_stream{stream}.ptx"), &text).unwrap();
            }
            // The same files, compiled here from public paths only, build the same kernel.
            let mut again = Module::new(Target::SM_90A);
            let cfg_again = attention::AttentionConfig { stream, ..attention::AttentionConfig::new(d, causal) };
            attention::attention(&mut again, "attn", &cfg_again.with_bn(bn).with_consumers(consumers)).unwrap();
            assert_eq!(again.to_ptx().unwrap(), text, "d = {d}, causal = {causal}: the public build differs");
            let report = match ptxkit::ptxas::report(&px, &text, Target::SM_90A) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("d = {d}, causal = {causal}: ptxas refused it:\n{e}"));
                    continue;
                }
            };
            let attn = report.kernel("attn");
            println!("d = {d}, bn = {bn}, {consumers} consumers, causal = {causal}, stream = {stream}, {} stages: {attn:?}", cfg.stages);
            if let Err(e) = report.check_clean(Some(cfg.roles().at_entry())) {
                failures.push(format!("d = {d}, bn = {bn}, {consumers} consumers, causal = {causal}, stream = {stream}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn main() {
    common::harness::main(&[&[host!(every_attention_variant_assembles_clean)]]);
}
