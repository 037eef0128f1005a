use ptxkit::prelude::*;
use ptxkit::runtime::{Gpu, Launch};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = Module::new(Target::SM_80);
    let k = m.kernel("scale", |_, (_x, _a): (GlobalPtr<F32>, Reg<F32>)| {})?;
    let gpu = Gpu::new()?;
    let module = gpu.load(&m.to_ptx()?)?;
    let mut ints = gpu.zeros::<u32>(16)?;
    module.kernel(&k)?.launch(&Launch::new(1, 16), (&mut ints, 2.0f32))?;
    Ok(())
}
