"""datafusion-python's md5() against md5x_datafusion's md5x(), one process,
the two queries interleaved round by round, each one's best round compared.

    python datafusion/benches/datafusion_python.py [rounds]

(Not in datafusion/python/: run from there, the md5x_datafusion sources
beside it, which lack the built module, would shadow the installed package.)
"""

import os
import platform
import random
import sys
import time

import pyarrow as pa
from datafusion import SessionConfig, SessionContext

import md5x_datafusion


def cpu():
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
    except OSError:
        return platform.processor()
    fields = dict(
        (k.strip(), v.strip()) for k, _, v in (line.partition(":") for line in info.splitlines()) if v
    )
    return (
        f"{fields.get('model name')} (family {fields.get('cpu family')}, "
        f"model {fields.get('model')}), {os.cpu_count()} threads"
    )


def context(column, partitions):
    rows = len(column)
    batches = [
        pa.record_batch({"s": column.slice(at, min(8192, rows - at))}) for at in range(0, rows, 8192)
    ]
    parts = [batches[k::partitions] for k in range(partitions)]
    ctx = SessionContext(SessionConfig().with_target_partitions(partitions))
    ctx.register_record_batches("t", parts)
    md5x_datafusion.register(ctx)
    return ctx


def best(rounds, runs):
    times = [float("inf")] * len(runs)
    for _ in range(rounds):
        for k, (ctx, sql) in enumerate(runs):
            start = time.perf_counter()
            ctx.sql(sql).collect()
            times[k] = min(times[k], time.perf_counter() - start)
    return times


def compare(what, rounds, ctx):
    md5, md5x = best(
        rounds, [(ctx, "SELECT max(md5(s)) FROM t"), (ctx, "SELECT max(md5x(s)) FROM t")]
    )
    print(
        f"{what:<44} md5 {md5 * 1e3:8.1f} ms   md5x {md5x * 1e3:7.1f} ms   {md5 / md5x:5.2f}x"
    )


def main():
    import datafusion

    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    print(f"CPU: {cpu()}")
    print(f"datafusion {datafusion.__version__}, Python {platform.python_version()}")
    print(f"best of {rounds} rounds, md5 and md5x interleaved\n")
    rng = random.Random(1)
    letters = "abcdefghijklmnopqrstuvwxyz"
    strings = pa.array(
        ["".join(rng.choices(letters, k=rng.randint(8, 55))) for _ in range(1_000_000)]
    )
    blobs = pa.array([rng.randbytes(1024) for _ in range(100_000)], pa.binary())
    compare("1M x 8-55 B Utf8, target_partitions=1", rounds, context(strings, 1))
    cores = os.cpu_count()
    compare(f"1M x 8-55 B Utf8, target_partitions={cores}", rounds, context(strings, cores))
    compare("100k x 1 KiB Binary, target_partitions=1", rounds, context(blobs, 1))


if __name__ == "__main__":
    main()
