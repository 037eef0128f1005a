#!/usr/bin/env bash
# What a user pays to build with ptxkit, measured as a new user meets it: a fresh binary
# crate with one kernel (saxpy, written with ptx!), depending on this checkout by path, built
# cold in a fresh target directory, release and debug, with and without the `cuda` feature;
# then an incremental rebuild after touching main.rs; then `cargo doc` of ptxkit alone.
#
#     scripts/build_cost.sh [out.md]
#
# Each build runs under /usr/bin/time -v: wall time and the peak resident memory of the
# largest process (a rustc). Run it on a quiet machine (check `uptime`): builds in parallel
# with it double the times. Crates are fetched first, so the network is not timed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-/dev/stdout}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/trial/src"
cat > "$work/trial/src/main.rs" <<'EOF'
use ptxkit::prelude::*;

fn main() -> Result<(), ptxkit::Error> {
    let mut m = Module::new(Target::SM_90);
    m.kernel("saxpy", |k, (x, y, a, n): (GlobalPtr<F32>, GlobalPtr<F32>, Reg<F32>, Reg<U32>)| {
        let i = k.global_thread_index_x();
        let inb = ptx!(k, "setp.lt.u32", i, n);
        k.if_(inb, |k| {
            let xi = ptx!(k, "ld.global.f32", x.at(i));
            let yi = ptx!(k, "ld.global.f32", y.at(i));
            let r = ptx!(k, "fma.rn.f32", a, xi, yi);
            ptx!(k, "st.global.f32", y.at(i), r);
        });
    })?;
    println!("{}", m.to_ptx()?);
    Ok(())
}
EOF

# `/usr/bin/time -v` output -> "wall s, peak MB".
measure() {
    local log="$work/time.log"
    /usr/bin/time -v "$@" > "$work/cmd.log" 2> "$log" || { cat "$work/cmd.log" "$log" >&2; exit 1; }
    local wall rss
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
    printf '%.1f s | %d MB' "$wall" "$((rss / 1024))"
}

{
    echo "Build cost of a one-kernel binary crate depending on ptxkit ($(cd "$root" && git rev-parse --short HEAD)), $(date -u +%Y-%m-%d), $(nproc) cores, $(rustc --version)."
    echo "Load before: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "| build | wall | peak RSS | ptxkit .rmeta |"
    echo "|---|---|---|---|"
    for features in '["cuda"]' '[]'; do
        printf '[package]\nname = "trial"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nptxkit = { path = "%s", features = %s }\n' "$root" "$features" > "$work/trial/Cargo.toml"
        (cd "$work/trial" && cargo fetch -q)
        for profile in release debug; do
            flag=""; [ "$profile" = release ] && flag="--release"
            rm -rf "$work/trial/target"
            cold=$(cd "$work/trial" && measure cargo build $flag)
            rmeta=$(find "$work/trial/target" -name 'libptxkit-*.rmeta' -printf '%s\n' | head -1)
            echo "| cold, $profile, features = $features | ${cold% |*} | ${cold#*| } | $((rmeta / 1024 / 1024)) MB |"
            touch "$work/trial/src/main.rs"
            incr=$(cd "$work/trial" && measure cargo build $flag)
            echo "| main.rs touched, $profile, features = $features | ${incr% |*} | ${incr#*| } | |"
        done
    done
    # A build script that writes PTX with ptxkit (as examples/buildrs): how many times ptxkit
    # is compiled, with the build-dependency's features the same as the dependency's or not.
    mkdir -p "$work/br/src"
    cp "$root/examples/buildrs/build.rs" "$work/br/build.rs"
    echo 'fn main() { print!("{}", include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx")).len()); }' > "$work/br/src/main.rs"
    for setup in same different; do
        build_features='features = ["cuda"]'; [ "$setup" = different ] && build_features='features = []'
        printf '[package]\nname = "br"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nptxkit = { path = "%s", features = ["cuda"] }\n\n[build-dependencies]\nptxkit = { path = "%s", %s }\n' "$root" "$root" "$build_features" > "$work/br/Cargo.toml"
        for profile in release debug; do
            flag=""; [ "$profile" = release ] && flag="--release"
            rm -rf "$work/br/target"
            t=$(cd "$work/br" && measure cargo build -v $flag)
            n=$(grep -c -- '--crate-name ptxkit ' "$work/cmd.log" "$work/time.log" | awk -F: '{ s += $2 } END { print s }')
            echo "| build.rs using ptxkit, $profile, build-dependency features $setup: ptxkit compiled $n× | ${t% |*} | ${t#*| } | |"
        done
    done
    rm -rf "$work/doc"
    doc=$(cd "$root" && CARGO_TARGET_DIR="$work/doc" measure cargo doc -p ptxkit --no-deps --features cuda)
    size=$(du -s --apparent-size -B1M "$work/doc/doc" | cut -f1)
    largest=$(find "$work/doc/doc" -type f -printf '%s %p\n' | sort -n | tail -1)
    echo "| cargo doc -p ptxkit --no-deps --features cuda | ${doc% |*} | ${doc#*| } | |"
    echo
    echo "Docs: ${size} MB in $(find "$work/doc/doc" -type f | wc -l) files; the largest page is $(( ${largest%% *} / 1024 )) KB (${largest#*doc/doc/})."
} > "$out"
