//! Tuning: [`AutoGemm::tuned`](super::AutoGemm::tuned) measures, on the first product of each class of shapes, the
//! kernels that could run it ([`AutoGemm::candidates`](super::AutoGemm::candidates): the
//! heuristic's pick, the skinny kernel, each tile of
//! [`SHAPE_TILES`](crate::kernels::gemm::SHAPE_TILES) whole and with K split 4 and 8 ways) and keeps the
//! fastest for the class: in memory, and, given a file, in that file too, read back by the
//! next [`AutoGemm`](super::AutoGemm) of the same GPU and types so that it measures nothing again.
//!
//! A class ([`ShapeClass`]) is the layout and M, N and K each rounded up to a power of two:
//! the products of one class share their best kernel closely enough, and a model's few
//! shapes are measured a few times only. Measuring builds and loads each candidate not
//! built yet (a fraction of a second each) and times it on the product's own operands with
//! CUDA events: a first run, then two rounds that alternate the candidates, each giving a
//! candidate about 2 ms of runs (5 to 200); the lowest median wins, and the product is then
//! computed by the kernel kept.
//! Without tuning, `AutoGemm` runs the heuristic's pick ([`AutoGemm::pick`](super::AutoGemm::pick)).
//!
//! The file is text, one pick per line, tab-separated: the GPU's name, the input and output
//! types, the layout, M, N and K of the class, and the pick (`skinny`, or `tiled` with the
//! configuration's fields that tuning varies). Lines of another GPU or other types are kept
//! and ignored.
//!
//! ```no_run
//! use ptxkit::kernels::gemm::{hopper, GemmShape};
//! use ptxkit::runtime::{AutoGemm, GemmRunner, Gpu};
//! use half::bf16;
//!
//! let gpu = Gpu::new()?;
//! let gemm = AutoGemm::<ptxkit::types::Bf16>::new(&gpu, hopper::Config::default())?
//!     .tuned(&gpu, Some(std::path::Path::new("gemm-tuning.tsv")))?;
//! let (m, n, k) = (64, 4096, 4096);
//! let a = gpu.upload(&vec![bf16::ONE; m * k])?;
//! let b = gpu.upload(&vec![bf16::ONE; n * k])?;
//! let mut c = gpu.zeros::<bf16>(m * n)?;
//! let shape = GemmShape::new(m as u32, n as u32, k as u32);
//! // The first product of the class measures the candidates, then runs the fastest.
//! gemm.run(&gpu, &a, &b, &mut c, &shape)?;
//! println!("kept {}", gemm.tuned_pick(&shape).unwrap());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::gemm_pick::Pick;
use super::RuntimeError;
use crate::kernels::gemm::{hopper, GemmConfig, GemmShape, Layout};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The fewest and most timed runs of a candidate in one round.
pub(super) const TUNING_RUNS: (usize, usize) = (5, 200);
/// Milliseconds of runs a candidate gets per round (within `TUNING_RUNS`).
pub(super) const TUNING_ROUND_MS: f32 = 2.0;
/// Rounds alternating the candidates; a candidate's time is its lowest median.
pub(super) const TUNING_ROUNDS: usize = 2;

/// A class of products that share a tuned kernel: the layout, and M, N and K each rounded
/// up to a power of two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShapeClass {
    pub layout: Layout,
    pub m: u32,
    pub n: u32,
    pub k: u32,
}

impl ShapeClass {
    /// The class of `s`.
    pub fn of(s: &GemmShape) -> ShapeClass {
        ShapeClass { layout: s.layout, m: s.m.next_power_of_two(), n: s.n.next_power_of_two(), k: s.k.next_power_of_two() }
    }
}

/// The picks kept so far, and the file they also go to.
pub(super) struct Tuner {
    /// The GPU's name and the types, the first fields of the file's lines.
    who: String,
    file: Option<PathBuf>,
    pub(super) picks: Mutex<HashMap<ShapeClass, Pick>>,
}

impl Tuner {
    /// A tuner for `gpu_name` and the types `in_name` → `out_name`, with the picks `file`
    /// holds for them (none if it does not exist yet).
    pub(super) fn new(
        gpu_name: &str,
        (in_name, out_name): (&str, &str),
        file: Option<&Path>,
        base: &hopper::Config,
    ) -> Result<Tuner, RuntimeError> {
        let who = format!("{gpu_name}\t{in_name}\t{out_name}");
        let mut picks = HashMap::new();
        if let Some(path) = file {
            match std::fs::read_to_string(path) {
                Ok(text) => {
                    for (i, line) in text.lines().enumerate() {
                        let bad = |what: &str| RuntimeError::Invalid(format!("{}:{}: {what}: `{line}`", path.display(), i + 1));
                        if line.starts_with('#') || line.trim().is_empty() {
                            continue;
                        }
                        let f: Vec<&str> = line.split('\t').collect();
                        let [gpu, i_t, o_t, layout, m, n, k, pick] = f[..] else { return Err(bad("not 8 tab-separated fields")) };
                        if format!("{gpu}\t{i_t}\t{o_t}") != who {
                            continue;
                        }
                        let layout = match layout {
                            "TN" => Layout::TN,
                            "NN" => Layout::NN,
                            _ => return Err(bad("a layout other than TN and NN")),
                        };
                        let num = |s: &str| s.parse::<u32>().map_err(|_| bad("a size that is no number"));
                        let class = ShapeClass { layout, m: num(m)?, n: num(n)?, k: num(k)? };
                        picks.insert(class, parse_pick(pick, base).map_err(|e| bad(&e))?);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(RuntimeError::Invalid(format!("{}: {e}", path.display()))),
            }
        }
        Ok(Tuner { who, file: file.map(Path::to_path_buf), picks: Mutex::new(picks) })
    }

    /// The pick kept for `class`, if any.
    pub(super) fn get(&self, class: &ShapeClass) -> Result<Option<Pick>, RuntimeError> {
        Ok(self.lock()?.get(class).copied())
    }

    /// Keeps `pick` for `class`, and appends it to the file.
    pub(super) fn keep(&self, class: ShapeClass, pick: Pick) -> Result<(), RuntimeError> {
        self.lock()?.insert(class, pick);
        let Some(path) = &self.file else { return Ok(()) };
        let io = |e: std::io::Error| RuntimeError::Invalid(format!("{}: {e}", path.display()));
        let new = !path.exists();
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
        if new {
            writeln!(f, "# ptxkit AutoGemm tuning: GPU, input and output types, layout, M, N, K (powers of two), the kernel kept")
                .map_err(io)?;
        }
        let layout = if class.layout == Layout::NN { "NN" } else { "TN" };
        writeln!(f, "{}\t{layout}\t{}\t{}\t{}\t{}", self.who, class.m, class.n, class.k, write_pick(&pick)).map_err(io)
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, HashMap<ShapeClass, Pick>>, RuntimeError> {
        self.picks.lock().map_err(|_| RuntimeError::Invalid("a tuning of this GEMM panicked".into()))
    }
}

/// `skinny`, or `tiled consumers=2 bn=256 stages=4 stream_k=0 split=2 cluster=1`.
fn write_pick(p: &Pick) -> String {
    match p {
        Pick::Skinny(_) => "skinny".into(),
        Pick::Tiled(c) => format!(
            "tiled consumers={} bn={} stages={} stream_k={} split={} cluster={}",
            c.consumers, c.bn, c.stages, c.stream_k as u32, c.split, c.cluster
        ),
    }
}

/// The pick `write_pick` wrote, as a change of `base` (its other fields kept).
fn parse_pick(s: &str, base: &hopper::Config) -> Result<Pick, String> {
    let mut words = s.split(' ');
    match words.next() {
        Some("skinny") => Ok(Pick::Skinny(crate::kernels::gemm::skinny::Config::for_rows(1))),
        Some("tiled") => {
            let mut c = *base;
            for w in words {
                let (key, v) = w.split_once('=').ok_or_else(|| format!("`{w}` is no field=value"))?;
                let v: u32 = v.parse().map_err(|_| format!("`{w}`: the value is no number"))?;
                match key {
                    "consumers" => c.consumers = v,
                    "bn" => c.bn = v,
                    "stages" => c.stages = v,
                    "stream_k" => c.stream_k = v != 0,
                    "split" => c.split = v,
                    "cluster" => c.cluster = v,
                    _ => return Err(format!("no field `{key}`")),
                }
            }
            c.check().map_err(|e| format!("an invalid configuration: {e}"))?;
            Ok(Pick::Tiled(c))
        }
        _ => Err("a pick other than `skinny` and `tiled ...`".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_round_each_size_up_to_a_power_of_two() {
        let c = ShapeClass::of(&GemmShape::new(13, 1000, 4096));
        assert_eq!((c.layout, c.m, c.n, c.k), (Layout::TN, 16, 1024, 4096));
        assert_eq!(ShapeClass::of(&GemmShape::new(1, 1, 1)).m, 1);
        assert_eq!(ShapeClass::of(&GemmShape::nn(17, 8, 8)).layout, Layout::NN);
    }

    #[test]
    fn the_file_keeps_picks_per_gpu_and_types_and_says_what_is_wrong() {
        let dir = std::env::temp_dir().join(format!("ptxkit-tune-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("t.tsv");
        let _ = std::fs::remove_file(&file);
        let base = hopper::Config::default();
        let split = hopper::Config { consumers: 2, bn: 128, stream_k: true, split: 8, ..base }.with_most_stages();
        let class = |m| ShapeClass { layout: Layout::TN, m, n: 4096, k: 4096 };
        let t = Tuner::new("GPU A", ("bf16", "bf16"), Some(&file), &base).unwrap();
        t.keep(class(64), Pick::Tiled(split)).unwrap();
        t.keep(class(16), Pick::Skinny(crate::kernels::gemm::skinny::Config::for_rows(16))).unwrap();
        // Read back for the same GPU and types; not for others.
        let again = Tuner::new("GPU A", ("bf16", "bf16"), Some(&file), &base).unwrap();
        assert_eq!(again.get(&class(64)).unwrap(), Some(Pick::Tiled(split)));
        assert!(matches!(again.get(&class(16)).unwrap(), Some(Pick::Skinny(_))));
        assert_eq!(Tuner::new("GPU B", ("bf16", "bf16"), Some(&file), &base).unwrap().get(&class(64)).unwrap(), None);
        assert_eq!(Tuner::new("GPU A", ("e4m3", "bf16"), Some(&file), &base).unwrap().get(&class(64)).unwrap(), None);
        // A line that does not parse is an error naming the file, the line and the fault.
        let text = std::fs::read_to_string(&file).unwrap();
        for (bad, says) in [
            ("GPU A\tbf16\tbf16\tTN\t64\t4096", "not 8 tab-separated fields"),
            ("GPU A\tbf16\tbf16\tTT\t64\t4096\t4096\tskinny", "a layout other than TN and NN"),
            ("GPU A\tbf16\tbf16\tTN\tx\t4096\t4096\tskinny", "a size that is no number"),
            ("GPU A\tbf16\tbf16\tTN\t64\t4096\t4096\ttiled bn=100", "an invalid configuration"),
            ("GPU A\tbf16\tbf16\tTN\t64\t4096\t4096\ttiled tiles=3", "no field `tiles`"),
            ("GPU A\tbf16\tbf16\tTN\t64\t4096\t4096\twide", "a pick other than"),
        ] {
            std::fs::write(&file, format!("{text}{bad}\n")).unwrap();
            let e = Tuner::new("GPU A", ("bf16", "bf16"), Some(&file), &base).err().expect(bad).to_string();
            assert!(e.contains(says) && e.contains("t.tsv:4:"), "{bad}: {e}");
        }
        // No file yet: nothing kept, no error.
        let _ = std::fs::remove_file(&file);
        assert_eq!(Tuner::new("GPU A", ("bf16", "bf16"), Some(&file), &base).unwrap().get(&class(64)).unwrap(), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
