use ptxkit::builder::TensorMap;
use ptxkit::descriptors::TiledMap;
use ptxkit::prelude::*;
use ptxkit::runtime::{Gpu, HostTensorMap, Launch};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = Module::new(Target::SM_90);
    let k = m.kernel("copy", |_, (_map,): (TensorMap<F32, 2>,)| {})?;
    let gpu = Gpu::new()?;
    let module = gpu.load(&m.to_ptx()?)?;
    let kern = module.kernel(&k)?;
    let xs = gpu.zeros::<f32>(64 * 64)?;
    let map = HostTensorMap::<F32, 2>::tiled(&xs, &TiledMap::new([64, 64], [16, 16]))?;
    // The map borrows the buffer: freeing it while the map is still used does not compile.
    drop(xs);
    kern.launch(&Launch::new(1, 32), (&map,))?;
    Ok(())
}
