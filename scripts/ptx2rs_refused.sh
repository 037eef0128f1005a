#!/usr/bin/env bash
# The corpus files ptx2rs refuses, each with its reason, and the count per reason:
#   scripts/ptx2rs_refused.sh CORPUS_DIR
# Runs the ptx2rs example over every file of CORPUS_DIR/MANIFEST.tsv (made by
# scripts/ptx_corpus.sh) without building the generated code: the quick look at what is
# left before a run of tests/ptx2rs.rs.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 CORPUS_DIR" >&2
    exit 2
fi
dir=$1
cargo build --quiet --example ptx2rs
bin=$(cargo metadata --format-version 1 --no-deps | sed 's/.*"target_directory":"\([^"]*\)".*/\1/')/debug/examples/ptx2rs
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
total=0
refused=()
while IFS=$'\t' read -r file _; do
    total=$((total + 1))
    if ! msg=$("$bin" "$dir/$file" "$out/x.rs" 2>&1 >/dev/null); then
        refused+=("${msg#"$dir/"}")
    fi
done < <(tail -n +2 "$dir/MANIFEST.tsv")
echo "$((total - ${#refused[@]})) of $total files translate"
[ ${#refused[@]} -eq 0 ] && exit 0
printf '%s\n' "${refused[@]}"
echo "refused, by reason (names of registers left out):"
printf '%s\n' "${refused[@]}" | sed -n 's/^[^:]*: line [0-9]*, column [0-9]*: //p' | sed 's/`%[^`]*`/`%r`/g' | sort | uniq -c | sort -rn
