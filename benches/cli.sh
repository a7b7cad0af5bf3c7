#!/usr/bin/env bash
# Compares the md5sum binary with coreutils md5sum using hyperfine
# (Debian: apt-get install hyperfine), on three workloads:
#   1. one 1 GiB file in the page cache,
#   2. 10,000 files of 4 KiB,
#   3. 100 files of 1 MiB.
# The files are generated under a temporary directory that is removed on
# exit. Both programs write to /dev/null (hyperfine's default). md5sum runs
# with its default -j, and with -j set to the CPU count: where the directory
# is on a disk that reports itself rotational (many VMs' virtual disks do),
# the default reads files one at a time, which the page cache does not need.
#
# Usage: benches/cli.sh [extra hyperfine options]
# Environment: GNU_MD5SUM (default /usr/bin/md5sum), RUNS (default 10),
#              WARMUP (default 3), OUT (markdown table, default stdout only).
set -euo pipefail

cd "$(dirname "$0")/.."
GNU=${GNU_MD5SUM:-/usr/bin/md5sum}
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-3}

if ! command -v hyperfine >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get install -y -q hyperfine >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null && apt-get install -y -q hyperfine >/dev/null; }
	fi
	command -v hyperfine >/dev/null || {
		echo "hyperfine is needed: apt-get install hyperfine" >&2
		exit 1
	}
fi
cargo build --release -p md5sum
OURS=$PWD/target/release/md5sum
"$OURS" --version | head -2

WORK=$(mktemp -d "${TMPDIR:-/tmp}/md5sum-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
JOBS=$(nproc)
DEV=$(stat -c '%Hd:%Ld' "$WORK")
ROT=$(cat "/sys/dev/block/$DEV/queue/rotational" "/sys/dev/block/$DEV/../queue/rotational" 2>/dev/null | head -1 || true)
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $JOBS CPUs"
echo "files on device $DEV, rotational: ${ROT:-unknown}"

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
		-n "md5sum ($name)" "$OURS $args" \
		-n "md5sum -j $JOBS ($name)" "$OURS -j $JOBS $args")
	results+=("$md")
}

bench "1 GiB" "$WORK" "big" "$@"
bench "10000 x 4 KiB" "$WORK/small" "$(cd "$WORK/small" && echo f*)" "$@"
bench "100 x 1 MiB" "$WORK/medium" "$(cd "$WORK/medium" && echo f*)" "$@"

{
	echo
	echo "| workload | coreutils md5sum | md5sum | speed-up | md5sum -j $JOBS | speed-up |"
	echo "|---|---|---|---|---|---|"
	for md in "${results[@]}"; do
		# hyperfine's markdown: | command | mean ± σ | min | max | relative |
		awk -F'|' '
			NR > 2 { gsub(/`/, "", $2); name[NR] = $2; mean[NR] = $3 }
			END {
				w = name[3]; sub(/^ *coreutils \(/, "", w); sub(/\) *$/, "", w)
				split(mean[3], g, " "); split(mean[4], o, " "); split(mean[5], j, " ")
				printf "| %s | %s ms | %s ms | %.2fx | %s ms | %.2fx |\n", w, g[1], o[1], g[1] / o[1], j[1], g[1] / j[1]
			}' "$md"
	done
} | tee "${OUT:-/dev/null}"
