use ptxkit::prelude::*;
use ptxkit::runtime::{ArrayDesc, Gpu, Launch, TexObject, TextureDesc};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = Module::new(Target::SM_80);
    let k = m.kernel("read", |_, (_tex,): (Texture,)| {})?;
    let gpu = Gpu::new()?;
    let kern = gpu.load(&m.to_ptx()?)?.kernel(&k)?;
    let mut array = gpu.array::<f32>(&ArrayDesc::d2(16, 16))?;
    let tex = TexObject::array(&array, &TextureDesc::default())?;
    // The texture borrows the array: writing it, or dropping it, while the texture is used
    // does not compile.
    array.upload(&[0.0; 256])?;
    drop(array);
    kern.launch(&Launch::new(1, 32), (&tex,))?;
    Ok(())
}
