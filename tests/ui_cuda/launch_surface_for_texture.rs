use ptxkit::prelude::*;
use ptxkit::runtime::{ArrayDesc, Gpu, Launch, SurfObject};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = Module::new(Target::SM_80);
    let k = m.kernel("read", |_, (_tex,): (Texture,)| {})?;
    let gpu = Gpu::new()?;
    let kern = gpu.load(&m.to_ptx()?)?.kernel(&k)?;
    let mut array = gpu.array::<f32>(&ArrayDesc::d2(16, 16).surface())?;
    let surf = SurfObject::new(&mut array)?;
    // A surface object where the kernel takes a texture.
    kern.launch(&Launch::new(1, 32), (&surf,))?;
    Ok(())
}
