//! Typed forms per family, printed (`cargo test --test forms_count -- --nocapture`), with the
//! `mma` family split into dense and sparse forms and pinned.
//!
//! Against PTX.jl's `mma.sync` wrappers (158 dense + 88 sparse methods, one per form): the
//! sparse sets are the same 88 forms (f16 and bf16 at m16n8k16/k32, tf32 at m16n8k8/k16, fp8
//! at m16n8k64 with every e4m3/e5m2 pairing, u8/s8 and u4/s4 with and without `.satfinite`,
//! each as `.sp` and `.sp::ordered_metadata`); PTX.jl types the selector per value, this crate
//! as one legal-value immediate. The dense counts differ: 94 here = 158 - 100 + 36.
//! - PTX.jl has the 100 `.kind::f8f6f4` forms (sm_120a, Blackwell: out of this table's sm_80
//!   to sm_90a scope);
//! - this table has, and PTX.jl lacks, the 12 f16 m8n8k4 forms (every A/B layout; f16 or f32
//!   D with f16 C, f32 D with f32 C), the 8 e4m3 x e5m2 and e5m2 x e4m3 fp8 forms (PTX.jl
//!   pairs equal types only), and the 16 m8n8k16 u8/s8 and m8n8k32 u4/s4 integer forms.
//!
//! Against PTX.jl's 34 ldmatrix, 15 stmatrix and 384 wgmma methods: PTX.jl registers a method
//! per shape and type signature, this crate a form per chain and operand layout. The wgmma
//! table has every `m64nNk*` shape of every type (1,092 dense forms, SS and RS) and the sparse
//! `.sp` forms (1,056), where PTX.jl's 384 cover a subset of the N grid; ldmatrix and
//! stmatrix here count each `.x1/.x2/.x4`, `.trans`, state-space spelling and Blackwell shape
//! as its own form.

use ptxkit::ops;

#[test]
fn forms_per_family() {
    let mut total = 0;
    for (name, forms) in ops::families() {
        if *name == "mma" {
            let sparse = forms.iter().filter(|f| f.chain.starts_with("mma.sp")).count();
            println!("{:>10} {:>6} dense", "mma", forms.len() - sparse);
            println!("{:>10} {:>6} sparse", "mma", sparse);
            assert_eq!((forms.len() - sparse, sparse), (94, 88));
        } else if *name == "wgmma" {
            let mma = |sp: bool| forms.iter().filter(|f| f.chain.starts_with("wgmma.mma_async") && f.chain.contains(".sp.") == sp).count();
            println!(
                "{:>10} {:>6} dense, {} sparse, {} fence/commit/wait",
                "wgmma",
                mma(false),
                mma(true),
                forms.len() - mma(false) - mma(true)
            );
            assert_eq!((mma(false), mma(true)), (1092, 1056));
        } else if *name == "matrix" {
            for op in ["ldmatrix", "stmatrix", "movmatrix"] {
                println!("{:>10} {:>6}", op, forms.iter().filter(|f| f.opcode() == op).count());
            }
        } else {
            println!("{name:>10} {:>6}", forms.len());
        }
        total += forms.len();
    }
    println!("{:>10} {total:>6}", "all");
    assert_eq!(total, ops::all_forms().count());
}
