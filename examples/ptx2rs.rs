//! ptx2rs: the builder code of a PTX file. Writes Rust source whose `module()` builds,
//! with ptxkit's typed API, a module that prints PTX ptxas assembles to the same code as
//! the input (see `ptxkit::import::to_rust` for what it writes and what it refuses).
//!
//!     cargo run --example ptx2rs -- kernel.ptx [kernel.rs]
//!
//! Without an output path the source goes to standard output. A construct outside what
//! the generated code expresses is reported with its line and column, and the exit status
//! is 1.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(input) = args.first() else {
        eprintln!("usage: ptx2rs FILE.ptx [OUT.rs]");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(input) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{input}: {e}");
            std::process::exit(2);
        }
    };
    let name = std::path::Path::new(input).file_name().map_or(input.clone(), |n| n.to_string_lossy().into_owned());
    match ptxkit::import::to_rust(&text, &name) {
        Ok(rust) => match args.get(1) {
            Some(out) => {
                if let Err(e) = std::fs::write(out, rust) {
                    eprintln!("{out}: {e}");
                    std::process::exit(2);
                }
            }
            None => print!("{rust}"),
        },
        Err(e) => {
            eprintln!("{input}: {e}");
            std::process::exit(1);
        }
    }
}
