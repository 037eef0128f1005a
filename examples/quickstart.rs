//! Builds a kernel with the typed builder, writes its PTX, and has ptxas assemble it when
//! ptxas is installed.
//!
//!     cargo run --example quickstart [-- OUT.ptx]

use ptxkit::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = Module::new(Target::SM_90);

    // y[i] = a * x[i] + y[i], and a per-thread dot product over a strided loop.
    m.kernel("saxpy", |k, (x, y, a, n): (GlobalPtr<F32>, GlobalPtr<F32>, Reg<F32>, Reg<U32>)| {
        let i = k.global_thread_index_x();
        let inb = ptx!(k, "setp.lt.u32", i, n);
        k.if_(inb, |k| {
            let xi = ptx!(k, "ld.global.f32", x.at(i));
            let yi = ptx!(k, "ld.global.f32", y.at(i));
            let r = ptx!(k, "fma.rn.f32", a, xi, yi);
            ptx!(k, "st.global.f32", y.at(i), r);
        });
    })?;

    m.kernel("strided_dot", |k, (x, y, out, n): (GlobalPtr<F32>, GlobalPtr<F32>, GlobalPtr<F32>, Reg<U32>)| {
        let i = k.global_thread_index_x();
        let ntid = ptx!(k, "mov.u32", sreg::NTID_X);
        let nctaid = ptx!(k, "mov.u32", sreg::NCTAID_X);
        let stride = ptx!(k, "mul.lo.u32", ntid, nctaid);
        let acc = ptx!(k, "mov.f32", 0.0f32);
        let j = ptx!(k, "mov.u32", i);
        k.while_(
            |k| ptx!(k, "setp.lt.u32", j, n),
            |k| {
                let xv = ptx!(k, "ld.global.f32", x.at(j));
                let yv = ptx!(k, "ld.global.f32", y.at(j));
                ptx!(k, "fma.rn.f32" => acc, xv, yv, acc);
                ptx!(k, "add.u32" => j, j, stride);
            },
        );
        ptx!(k, "st.global.f32", out.at(i), acc);
    })?;

    let text = m.to_ptx()?;
    let path = std::env::args().nth(1).unwrap_or_else(|| "quickstart.ptx".into());
    std::fs::write(&path, &text)?;
    println!("wrote {path} ({} lines, target {})", text.lines().count(), m.target());

    match ptxkit::ptxas::find() {
        Some(px) => match ptxkit::ptxas::check_clean(&px, &text, m.target(), ptxkit::ptxas::Mode::Assemble) {
            Ok(()) => println!("ptxas ({}) assembled it for {}", px.display(), m.target()),
            Err(log) => {
                eprintln!("ptxas rejected the module:\n{log}");
                std::process::exit(1);
            }
        },
        None => println!("ptxas not found (set PTXAS, or pip install nvidia-cuda-nvcc==13.0.88); skipped assembling"),
    }
    Ok(())
}
