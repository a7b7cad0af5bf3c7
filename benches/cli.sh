#!/usr/bin/env bash
# Compares the md5sum binary with coreutils md5sum using hyperfine
# (Debian: apt-get install hyperfine), on three workloads:
#   1. one 1 GiB file in the page cache,
#   2. 10,000 files of 4 KiB,
#   3. 100 files of 1 MiB.
# The files are generated under a temporary directory that is removed on
# exit. Both programs write to /dev/null (hyperfine's default).
#
# Usage: benches/cli.sh [extra hyperfine options]
# Environment: GNU_MD5SUM (default /usr/bin/md5sum), RUNS (default 10),
#              WARMUP (default 3), OUT (markdown table, default stdout only).
set -euo pipefail

cd "$(dirname "$0")/.."
GNU=${GNU_MD5SUM:-/usr/bin/md5sum}
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-3}

command -v hyperfine >/dev/null || {
	echo "hyperfine is needed: apt-get install hyperfine" >&2
	exit 1
}
cargo build --release -p md5sum
OURS=$PWD/target/release/md5sum
"$OURS" --version | head -2

WORK=$(mktemp -d "${TMPDIR:-/tmp}/md5sum-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

head -c 1G /dev/urandom >"$WORK/big"
mkdir "$WORK/small" "$WORK/medium"
head -c $((10000 * 4096)) /dev/urandom | (cd "$WORK/small" && split -b 4096 -a 4 -d - f)
head -c $((100 * 1048576)) /dev/urandom | (cd "$WORK/medium" && split -b 1048576 -a 2 -d - f)
# Warm the page cache.
cat "$WORK/big" "$WORK"/small/* "$WORK"/medium/* >/dev/null

results=()
bench() {
	local name=$1 dir=$2 args=$3
	local md="$WORK/$name.md"
	# No shell between hyperfine and the programs (-N): with 10,000 names a
	# shell glob would cost as much as part of the work being measured.
	(cd "$dir" && hyperfine -N --warmup "$WARMUP" --runs "$RUNS" \
		--time-unit millisecond --export-markdown "$md" "${@:4}" \
		-n "coreutils ($name)" "$GNU $args" \
		-n "md5sum ($name)" "$OURS $args")
	results+=("$md")
}

bench "1 GiB" "$WORK" "big" "$@"
bench "10000 x 4 KiB" "$WORK/small" "$(cd "$WORK/small" && echo f*)" "$@"
bench "100 x 1 MiB" "$WORK/medium" "$(cd "$WORK/medium" && echo f*)" "$@"

{
	echo
	echo "| workload | coreutils md5sum | md5sum | speed-up |"
	echo "|---|---|---|---|"
	for md in "${results[@]}"; do
		# hyperfine's markdown: | command | mean ± σ | min | max | relative |
		awk -F'|' '
			NR > 2 { gsub(/`/, "", $2); name[NR] = $2; mean[NR] = $3 }
			END {
				w = name[3]; sub(/^ *coreutils \(/, "", w); sub(/\) *$/, "", w)
				g = mean[3]; o = mean[4]
				split(g, gs, " "); split(o, os, " ")
				printf "| %s | %s ms | %s ms | %.2fx |\n", w, gs[1], os[1], gs[1] / os[1]
			}' "$md"
	done
} | tee "${OUT:-/dev/null}"
