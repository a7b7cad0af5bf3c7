#!/usr/bin/env bash
# Compares the md5sum binary with coreutils md5sum on four workloads:
#   1. one 1 GiB file,
#   2. 100 files of 1 MiB,
#   3. 10,000 files of 4 KiB,
#   4. `-c` over a list of those 10,000 files,
# and then the S3 ETag of the 1 GiB file in 8 MiB parts (`md5sum
# --etag=8M`) against GNU md5sum (the single stream it would otherwise
# be), benches/etag_reference.py (part by part over Python's hashlib) and,
# cold, `cat FILE > /dev/null` (reading alone),
# each with the page cache warm and, as root, cold (the caches dropped with
# `sync; echo 3 > /proc/sys/vm/drop_caches` and 3 s of rest before every
# command, as benches/etag.rs does: a VM that hands freed memory back to
# its host settles, so that every run starts from the same state; not
# being root, it says so and skips the cold rows). md5sum runs with its default
# -j, and again with its spinning-disk path forced on for the files' own
# disk, through the MD5SUM_SYSFS seam (a sysfs tree that says the disk is
# a rotational ATA disk). The programs run interleaved, one run of each in
# turn, and the table gives medians. It prints the CPU and the disk
# (model, and whether sysfs says it is rotational).
#
# The files are generated under a temporary directory that is removed on
# exit; both programs write to /dev/null.
#
# Usage: benches/cli.sh
# Environment: GNU_MD5SUM (default /usr/bin/md5sum), RUNS (default 5),
#              OUT (markdown tables, default stdout only), ETAG_ONLY=1
#              (only the ETag rows), BASELINE (another build of md5sum,
#              say of the main branch, run interleaved with the others:
#              its columns and rows are added, to compare a change side
#              by side).
set -euo pipefail

cd "$(dirname "$0")/.."
GNU=${GNU_MD5SUM:-/usr/bin/md5sum}
RUNS=${RUNS:-5}

cargo build --release -p md5sum-rs
OURS=$PWD/target/release/md5sum
"$OURS" --version | head -2

WORK=$(mktemp -d "${TMPDIR:-/tmp}/md5sum-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
DEV=$(stat -c '%Hd:%Ld' "$WORK")
NODE=/sys/dev/block/$DEV
[ -e "$NODE/queue" ] || NODE=$NODE/..
ROT=$(cat "$NODE/queue/rotational" 2>/dev/null || echo unknown)
MODEL=$(cat "$NODE/device/model" 2>/dev/null | sed 's/ *$//' || true)
DRIVER=$(basename "$(readlink "$NODE/device/driver" 2>/dev/null)" 2>/dev/null || true)
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
	"family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')" \
	"model $(grep -m1 '^model' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), $(nproc) CPUs"
echo "disk: device $DEV ($(basename "$(readlink -f "$NODE")")${MODEL:+, model $MODEL}${DRIVER:+, driver $DRIVER}), rotational: $ROT"

COLD=1
if [ "$(id -u)" != 0 ] || ! [ -w /proc/sys/vm/drop_caches ]; then
	echo "not root: cannot drop the page cache, so no cold rows"
	COLD=0
fi

# A sysfs tree in which the files' disk is a rotational ATA disk: md5sum
# then reads what is not cached in order, one claim at a time.
SPIN=$WORK/sysfs
mkdir -p "$SPIN/devices/ata1/block/sdz/queue" "$SPIN/devices/ata1/block/sdz/device" "$SPIN/dev/block"
echo 1 >"$SPIN/devices/ata1/block/sdz/queue/rotational"
echo ATA >"$SPIN/devices/ata1/block/sdz/device/vendor"
echo "bench spinning disk" >"$SPIN/devices/ata1/block/sdz/device/model"
ln -s ../../devices/ata1/block/sdz "$SPIN/dev/block/$DEV"

echo "making the files..."
head -c 1G /dev/urandom >"$WORK/big"
if [ "${ETAG_ONLY:-0}" != 1 ]; then
	mkdir "$WORK/small" "$WORK/medium"
	head -c $((10000 * 4096)) /dev/urandom | (cd "$WORK/small" && split -b 4096 -a 4 -d - f)
	head -c $((100 * 1048576)) /dev/urandom | (cd "$WORK/medium" && split -b 1048576 -a 2 -d - f)
	(cd "$WORK/small" && "$GNU" f* >"$WORK/SUMS")
fi
sync

# Milliseconds that "$@" takes, run in directory $1.
elapsed() {
	local dir=$1 start end
	shift
	start=$(date +%s%N)
	(cd "$dir" && "$@" >/dev/null)
	end=$(date +%s%N)
	echo $(((end - start) / 1000000))
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 3
}

WORKLOADS=("one 1 GiB file" "100 files of 1 MiB" "10,000 files of 4 KiB" "\`-c\` over the 10,000 files")
# The arguments of each workload, and the directory it runs in.
args_of() {
	case $1 in
	0) echo "$WORK" big ;;
	1) echo "$WORK/medium" "$(cd "$WORK/medium" && echo f*)" ;;
	2) echo "$WORK/small" "$(cd "$WORK/small" && echo f*)" ;;
	3) echo "$WORK/small" -c "$WORK/SUMS" ;;
	esac
}
PROGRAMS=(gnu ours spinning)
[ -z "${BASELINE:-}" ] || PROGRAMS+=(base)
run_program() {
	local prog=$1 dir=$2
	shift 2
	case $prog in
	gnu) elapsed "$dir" "$GNU" "$@" ;;
	ours) elapsed "$dir" "$OURS" "$@" ;;
	spinning) elapsed "$dir" env MD5SUM_SYSFS="$SPIN" "$OURS" "$@" ;;
	base) elapsed "$dir" "$BASELINE" "$@" ;;
	esac
}

declare -A TIMES
MD5_WORKLOADS=(0 1 2 3)
[ "${ETAG_ONLY:-0}" != 1 ] || MD5_WORKLOADS=()
for w in "${MD5_WORKLOADS[@]}"; do
	read -r dir words < <(args_of "$w")
	read -ra argv <<<"$words"
	echo "${WORKLOADS[$w]}..."
	# One run of each, warm, not counted.
	for p in "${PROGRAMS[@]}"; do run_program "$p" "$dir" "${argv[@]}" >/dev/null; done
	for _ in $(seq "$RUNS"); do
		for cache in cold warm; do
			[ "$cache" = warm ] || [ "$COLD" = 1 ] || continue
			for p in "${PROGRAMS[@]}"; do
				[ "$cache" = warm ] || drop_caches
				TIMES[$w,$p,$cache]+="$(run_program "$p" "$dir" "${argv[@]}") "
			done
		done
	done
done

median() {
	tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
cell() {
	local w=$1 p=$2 cache=$3 g o
	if [ -z "${TIMES[$w,$p,$cache]:-}" ]; then
		echo "skipped"
		return
	fi
	g=$(median <<<"${TIMES[$w,gnu,$cache]}")
	o=$(median <<<"${TIMES[$w,$p,$cache]}")
	awk -v g="$g" -v o="$o" 'BEGIN { printf "%d / %d ms = %.2f×", g, o, g / o }'
}
if [ ${#MD5_WORKLOADS[@]} -gt 0 ]; then
	{
		echo
		echo "Medians of $RUNS runs, default -j; GNU md5sum / md5sum:"
		echo
		if [ -n "${BASELINE:-}" ]; then
			echo "| workload | cold | warm | spinning path forced, cold | spinning path forced, warm | BASELINE, cold | BASELINE, warm |"
			echo "|---|--:|--:|--:|--:|--:|--:|"
		else
			echo "| workload | cold | warm | spinning path forced, cold | spinning path forced, warm |"
			echo "|---|--:|--:|--:|--:|"
		fi
		for w in "${MD5_WORKLOADS[@]}"; do
			row="| ${WORKLOADS[$w]} | $(cell "$w" ours cold) | $(cell "$w" ours warm) | $(cell "$w" spinning cold) | $(cell "$w" spinning warm) |"
			[ -z "${BASELINE:-}" ] || row+=" $(cell "$w" base cold) | $(cell "$w" base warm) |"
			echo "$row"
		done
	} | tee "${OUT:-/dev/null}"
fi

# The ETag of the 1 GiB file in 8 MiB parts (128 parts).
ETAG_PROGRAMS=(etag gnu hashlib cat)
COLD_ETAG_PROGRAMS=(etag cat)
if [ -n "${BASELINE:-}" ]; then
	ETAG_PROGRAMS+=(base)
	COLD_ETAG_PROGRAMS+=(base)
fi
run_etag() {
	case $1 in
	etag) elapsed "$WORK" "$OURS" --etag=8M big ;;
	base) elapsed "$WORK" "$BASELINE" --etag=8M big ;;
	gnu) elapsed "$WORK" "$GNU" big ;;
	hashlib) elapsed "$WORK" python3 "$PWD/benches/etag_reference.py" 8388608 big ;;
	cat) elapsed "$WORK" cat big ;;
	esac
}
declare -A ETAG_TIMES
if command -v python3 >/dev/null; then
	echo "the ETag of the 1 GiB file in 8 MiB parts..."
	[ "$("$OURS" --etag=8M "$WORK/big" | cut -d' ' -f1)" = \
		"$(python3 benches/etag_reference.py 8388608 "$WORK/big" | cut -d' ' -f1)" ] || {
		echo "md5sum --etag=8M and the hashlib reference disagree" >&2
		exit 1
	}
	for p in "${ETAG_PROGRAMS[@]}"; do run_etag "$p" >/dev/null; done
	for _ in $(seq "$RUNS"); do
		for p in "${ETAG_PROGRAMS[@]}"; do
			ETAG_TIMES[$p,warm]+="$(run_etag "$p") "
		done
		[ "$COLD" = 1 ] || continue
		# Cold: md5sum --etag against reading alone.
		for p in "${COLD_ETAG_PROGRAMS[@]}"; do
			drop_caches
			ETAG_TIMES[$p,cold]+="$(run_etag "$p") "
		done
	done
	ratio() {
		local a b
		a=$(median <<<"${ETAG_TIMES[$1]}")
		b=$(median <<<"${ETAG_TIMES[$2]}")
		awk -v a="$a" -v b="$b" 'BEGIN { printf "%d / %d ms = %.3f", a, b, a / b }'
	}
	{
		echo
		echo "S3 ETag of one 1 GiB file, 8 MiB parts, medians of $RUNS interleaved runs:"
		echo
		echo "| md5sum --etag=8M against | time ratio | bar |"
		echo "|---|--:|---|"
		echo "| GNU md5sum, warm | $(ratio etag,warm gnu,warm) | ≤ 0.2 |"
		echo "| benches/etag_reference.py, warm | $(ratio etag,warm hashlib,warm) | ≤ 0.25 |"
		if [ "$COLD" = 1 ]; then
			echo "| \`cat FILE > /dev/null\`, cold | $(ratio etag,cold cat,cold) | ≤ 1.10 |"
		fi
		if [ -n "${BASELINE:-}" ]; then
			echo "| BASELINE md5sum --etag=8M, warm | $(ratio etag,warm base,warm) | |"
			[ "$COLD" = 0 ] || echo "| BASELINE md5sum --etag=8M, cold | $(ratio etag,cold base,cold) | |"
		fi
	} | tee -a "${OUT:-/dev/null}"
else
	echo "python3 not found: no ETag rows"
fi
