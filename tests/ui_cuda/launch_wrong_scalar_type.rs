use ptxkit::prelude::*;
use ptxkit::runtime::{Gpu, Launch};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = Module::new(Target::SM_80);
    let k = m.kernel("scale", |_, (_x, _a): (GlobalPtr<F32>, Reg<F32>)| {})?;
    let gpu = Gpu::new()?;
    let module = gpu.load(&m.to_ptx()?)?;
    let mut xs = gpu.zeros::<f32>(16)?;
    module.kernel(&k)?.launch(&Launch::new(1, 16), (&mut xs, 2u32))?;
    Ok(())
}
