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
    let xs = gpu.zeros::<u32>(64 * 64)?;
    // A map of u32 elements for a kernel that takes f32 ones.
    let wrong_type = HostTensorMap::<U32, 2>::tiled(&xs, &TiledMap::new([64, 64], [16, 16]))?;
    kern.launch(&Launch::new(1, 32), (&wrong_type,))?;
    let ys = gpu.zeros::<f32>(64 * 64)?;
    // A rank-3 map for a rank-2 parameter.
    let wrong_rank = HostTensorMap::<F32, 3>::tiled(&ys, &TiledMap::new([64, 8, 8], [16, 8, 8]))?;
    kern.launch(&Launch::new(1, 32), (&wrong_rank,))?;
    Ok(())
}
