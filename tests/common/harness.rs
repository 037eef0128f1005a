//! The runner of the test binaries that need ptxas or a GPU (`harness = false` in
//! Cargo.toml, on libtest-mimic). A test that cannot run here (no GPU, no ptxas and
//! `PTXKIT_SKIP_PTXAS=1`, a GPU without the feature it tests) is reported as `ignored`
//! with its reason, in the runner's own summary line, never as passed; with
//! `PTXKIT_REQUIRE_GPU=1` a missing GPU fails the GPU tests instead.
//!
//! A test binary lists its tests, each file its own:
//!
//! ```ignore
//! pub const TESTS: &[Test] = &[gpu!(integer_arithmetic_32), host!(forms_assemble)];
//! fn integer_arithmetic_32(gpu: Gpu) { ... }   // runs only with a GPU
//! fn forms_assemble() { ... }                  // runs everywhere
//! ```
//!
//! and its `main` calls [`main`] with the lists. Inside a test, [`skip`] ends it as
//! ignored (`common::ptxas` calls it when ptxas is missing and skipping is allowed).

pub use libtest_mimic::{Completion, Failed, Trial};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The payload of the unwind that [`skip`] starts; the runner reports the test as ignored.
pub struct Skip(pub String);

/// Ends the running test as ignored, with `reason` in the runner's output.
pub fn skip(reason: impl Into<String>) -> ! {
    std::panic::panic_any(Skip(reason.into()))
}

/// What a test needs to run.
#[derive(Clone, Copy)]
pub enum Body {
    /// Runs everywhere (it may still [`skip`], e.g. through `common::ptxas`).
    Host(fn()),
    /// Runs with a GPU: receives a fresh [`ptxkit::runtime::Gpu`] (device 0).
    #[cfg(feature = "cuda")]
    Gpu(fn(ptxkit::runtime::Gpu)),
}

/// One test: its name, the module it lives in (for the `module::name` the runner shows)
/// and its body.
#[derive(Clone, Copy)]
pub struct Test {
    pub name: &'static str,
    pub module: &'static str,
    pub body: Body,
}

/// `host!(f)`: the test `fn f()`, run everywhere.
#[macro_export]
macro_rules! host {
    ($f:ident) => {
        $crate::common::harness::Test { name: stringify!($f), module: module_path!(), body: $crate::common::harness::Body::Host($f) }
    };
}

/// `gpu!(f)`: the test `fn f(gpu: Gpu)`, run where there is a GPU and reported as ignored
/// (or, with `PTXKIT_REQUIRE_GPU=1`, failed) where there is none.
#[cfg(feature = "cuda")]
#[macro_export]
macro_rules! gpu {
    ($f:ident) => {
        $crate::common::harness::Test { name: stringify!($f), module: module_path!(), body: $crate::common::harness::Body::Gpu($f) }
    };
}

/// Whether a run must not skip GPU tests (`PTXKIT_REQUIRE_GPU=1`).
pub fn gpu_required() -> bool {
    std::env::var("PTXKIT_REQUIRE_GPU").as_deref() == Ok("1")
}

/// Runs `f`, turning a [`skip`] into an ignored outcome and any other panic into a failure
/// carrying its message.
fn outcome(f: impl FnOnce()) -> Result<Completion, Failed> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(()) => Ok(Completion::Completed),
        Err(p) => {
            if let Some(Skip(reason)) = p.downcast_ref::<Skip>() {
                Ok(Completion::ignored_with(reason))
            } else if let Some(s) = p.downcast_ref::<String>() {
                Err(s.as_str().into())
            } else if let Some(s) = p.downcast_ref::<&str>() {
                Err((*s).into())
            } else {
                Err("panicked with a non-string payload".into())
            }
        }
    }
}

/// Runs `f` and, when it took [`SLOW`] or longer, says so on stderr: the runner's output
/// has no durations, and a suite that slows down should show where.
fn timed(name: &str, f: impl FnOnce() -> Result<Completion, Failed>) -> Result<Completion, Failed> {
    let start = std::time::Instant::now();
    let r = f();
    let took = start.elapsed();
    if took >= SLOW {
        eprintln!("{name}: took {:.1} s", took.as_secs_f64());
    }
    r
}

/// The duration from which [`timed`] reports a test.
const SLOW: std::time::Duration = std::time::Duration::from_secs(5);

fn trial(t: Test) -> Trial {
    // `device::arith` -> `arith::name`; a test at a binary's root keeps its bare name.
    let name = match t.module.split_once("::") {
        Some((_, rest)) => format!("{rest}::{}", t.name),
        None => t.name.to_string(),
    };
    let shown = name.clone();
    match t.body {
        Body::Host(f) => Trial::ignorable_test(name, move || timed(&shown, || outcome(f))),
        #[cfg(feature = "cuda")]
        Body::Gpu(f) => Trial::ignorable_test(name, move || {
            timed(&shown, || match ptxkit::runtime::Gpu::new() {
                Ok(gpu) => outcome(move || f(gpu)),
                Err(e) if gpu_required() => Err(format!("PTXKIT_REQUIRE_GPU=1 but no CUDA GPU ({e})").into()),
                Err(e) => Ok(Completion::ignored_with(format!("no CUDA GPU: {e}"))),
            })
        }),
    }
}

/// Runs the tests of `lists` under the usual test-runner arguments (filters, `--list`,
/// `--ignored`, `--test-threads`, `--exact`) and exits with the runner's status.
pub fn main(lists: &[&[Test]]) {
    // A skip is an outcome, not a crash: keep the panic message for real panics only.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<Skip>() {
            previous(info)
        }
    }));
    let args = libtest_mimic::Arguments::from_args();
    let trials = lists.iter().flat_map(|l| l.iter().copied()).map(trial).collect();
    libtest_mimic::run(&args, trials).exit();
}
