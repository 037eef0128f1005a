//! Debugging a kernel, end to end: a module built with line info, ptxas's resource report per
//! kernel, the SASS with the Rust line of each instruction, an out-of-bounds store that
//! compute-sanitizer pins to its Rust line, and a pipeline that would hang ending with a
//! message naming the barrier, its stage and the wait's Rust line.
//!
//!     cargo run --example debugging --features cuda
//!     compute-sanitizer target/debug/examples/debugging      # names the store's Rust line
//!
//! Without ptxas, nvdisasm or a GPU, the steps that need them say so and are left out.

use ptxkit::intrinsics::mbarrier::{Deadline, Publish, Ring};
use ptxkit::prelude::*;
use ptxkit::runtime::{testing::gpu_or_skip, Launch, WaitLog};

/// Elements `fill` is asked to write.
const N: u32 = 1000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = Module::new(Target::SM_90A);
    m.set_line_info(true);

    // A bug: `le` where `lt` was meant, so thread N stores one element past the end.
    let fill = m.kernel("fill", |k, (out, n): (GlobalPtr<F32>, Reg<U32>)| {
        let i = k.global_thread_index_x();
        let inb = ptx!(k, "setp.le.u32", i, n);
        k.if_(inb, |k| {
            let v = ptx!(k, "cvt.rn.f32.u32", i);
            k.st(out.at(i), v);
        });
    })?;

    // Another: the producer arms the stage's full barrier for 255 bytes and its bulk copy
    // brings 256, so the barrier's transaction count never returns to zero. The consumers'
    // waits are bounded and record what they waited for.
    let stuck = m.kernel("stuck", |k, (input, log): (GlobalPtr<U32>, GlobalPtr<U32>)| {
        let ring = Ring::new(k, "stage", 2);
        let buf = k.shared_array::<U32>("tiles", 2 * 64, 128);
        ring.init(k, 1, 32, Publish::CtaAsync);
        let d = Deadline::new(k, 1 << 12).with_hint_ns(1000).recording(log);
        let tid = ptx!(k, "mov.u32", sreg::TID_X);
        let producer = ptx!(k, "setp.eq.u32", tid, 0u32);
        let consumer = ptx!(k, "setp.ge.u32", tid, 32u32);
        k.if_(producer, |k| {
            let s = ring.slot(k, tid);
            s.acquire(k, &d);
            let _ = s.full.arrive_expect_tx(k, 255u32);
            ptx!(k, "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes", buf.at(0u32), input.at(0u32), 256u32, s.full.ptr());
        });
        k.if_(consumer, |k| {
            let zero = ptx!(k, "mov.u32", 0u32);
            let s = ring.slot(k, zero);
            let full = s.wait(k, &d);
            k.if_(full, |k| s.release(k));
        });
    })?;
    let text = m.to_ptx()?;

    println!("== ptxas's report, per kernel");
    match ptxkit::ptxas::find() {
        None => println!("(ptxas not found: python3 -m pip install nvidia-cuda-nvcc==13.0.88)"),
        Some(px) => {
            let report = ptxkit::ptxas::report(&px, &text, m.target())?;
            for k in &report.kernels {
                println!(
                    "{}: {} registers, {} bytes of shared memory, {} bytes of stack, {} spill stores",
                    k.name, k.registers, k.shared, k.stack_frame, k.spill_stores
                );
            }
            report.check_clean(Some(255))?;
            println!("\n== the SASS of `fill`, with the Rust line of each instruction");
            match ptxkit::ptxas::find_nvdisasm() {
                None => println!("(nvdisasm not found: python3 -m pip install nvidia-cuda-nvdisasm)"),
                Some(nvdisasm) => {
                    let sass = ptxkit::ptxas::sass(&px, &nvdisasm, &text, m.target())?;
                    print!("{}", sass.kernel("fill").ok_or("no SASS for `fill`")?);
                }
            }
        }
    }

    let Some(gpu) = gpu_or_skip("debugging") else { return Ok(()) };
    if gpu.compute_capability() != (9, 0) {
        println!("the GPU is {:?}; this example is built for sm_90a", gpu.compute_capability());
        return Ok(());
    }
    let module = gpu.load(&text)?;

    println!("\n== `fill` stores one element past its buffer (run under compute-sanitizer to see where)");
    let fill = module.kernel(&fill)?;
    let mut out = gpu.zeros::<f32>(N as usize)?;
    fill.launch(&Launch::cover(N + 1, 128), (&mut out, N))?;
    match gpu.synchronize() {
        Ok(()) => println!("`fill` ended; without the sanitizer the stray store went unnoticed"),
        Err(e) => println!("`fill` failed: {e}"),
    }

    println!("\n== `stuck`: a stage armed one byte short");
    let stuck = module.kernel(&stuck)?;
    let input = gpu.zeros::<u32>(64)?;
    let mut log = WaitLog::new(&gpu, 8)?;
    let start = std::time::Instant::now();
    stuck.launch(&Launch::new(2, 64), (&input, &mut log))?;
    gpu.synchronize()?;
    println!("the kernel ended after {:.1?}", start.elapsed());
    match log.check(&gpu, &stuck) {
        Ok(()) => println!("every wait completed"),
        Err(e) => println!("{e}"),
    }
    Ok(())
}
