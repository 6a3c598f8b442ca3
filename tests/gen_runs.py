#!/usr/bin/python3
"""tests/gen_runs.py: write a synthetic results directory (runs.jsonl as
docs/FORMAT.md describes it, plus logs) with exactly known counts, for the
report, compare, merge and benchmark tests.

  gen_runs.py OUT --runs N [--sig ID:KIND:COUNT]... [--cells A=1,A=2 ...]
              [--cell-fails CELL:COUNT]... [--series HEX] [--no-logs]
              [--log-bytes N] [--stacks] [--argv ARG...] [--arm ARM:COUNT]...
              [--shard K/N] [--settings JSON]
              [--test NAME:FAILS]...

Failures of each --sig are spread evenly over the run indices. With
--cells, run i is in cell i % len(cells); --cell-fails puts COUNT failures
(signature 'c311f a11') in that cell's runs, evenly. --log-bytes pads
each failing run's log to N bytes (and --stacks writes stacks/RUN.txt as
long); --argv sets the command; --arm gives the first COUNT runs not yet
given an arm the config {"arm": ARM}, in order; --settings merges JSON
members into the series' settings; --test gives every run per-test
results ("tests", as --tests records them) where test NAME fails in FAILS
runs, spread evenly. With --shard K/N the
directory is shard K of N of the series of master seed 1 (issue 17): its
runs are the indices K, K+N, ... with the seeds jostle derives for them.
"""
import argparse, json, os

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--runs", type=int, required=True)
ap.add_argument("--sig", action="append", default=[])
ap.add_argument("--cells", nargs="*", default=[])
ap.add_argument("--cell-fails", action="append", default=[])
ap.add_argument("--series", default="00000000000000a1")
ap.add_argument("--no-logs", action="store_true")
ap.add_argument("--log-bytes", type=int, default=0)
ap.add_argument("--stacks", action="store_true")
ap.add_argument("--argv", nargs="+", default=["./t", "--mode", "gen"])
ap.add_argument("--arm", action="append", default=[])
ap.add_argument("--shard", default=None)
ap.add_argument("--settings", default="{}")
ap.add_argument("--test", action="append", default=[])
a = ap.parse_args()
M64 = (1 << 64) - 1


def run_seed(master, index):
    """util/rng.h: rng_run_seed (splitmix64 of master ^ index * constant)."""
    z = ((master ^ (index * 0xd1b54a32d192ed03)) + 0x9e3779b97f4a7c15) & M64
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return z ^ (z >> 31)


shard_k, shard_n = (int(x) for x in a.shard.split("/")) if a.shard else (0, 0)
settings = {"runs": a.runs, "jobs": 2, "timeout_s": 10}
settings.update(json.loads(a.settings))
test_fails = {}  # name -> set of failing runs
for spec in a.test:
    name, count = spec.rsplit(":", 1)
    count = int(count)
    test_fails[name] = {int((j + 0.5) * a.runs / count) for j in range(count)}

n = a.runs
fail = {}  # run -> (sig, kind)
for spec in a.sig:
    sid, kind, count = spec.split(":")
    count = int(count)
    free = [i for i in range(n) if i not in fail]
    for j in range(count):
        fail[free[int((j + 0.5) * len(free) / count)]] = (sid, kind)
cells = a.cells
for spec in a.cell_fails:
    cell, count = spec.rsplit(":", 1)
    count = int(count)
    ci = cells.index(cell)
    runs = [i for i in range(n) if i % len(cells) == ci and i not in fail]
    for j in range(count):
        fail[runs[int((j + 0.5) * len(runs) / count)]] = ("c311fa11", "fail")

arms = []
for spec in a.arm:
    arm, count = spec.rsplit(":", 1)
    arms += [arm] * int(count)

def padded(text):
    text = text.encode()
    while len(text) < a.log_bytes:
        text += b"log line %d of a long failing run, with some words to make it wide\n" % len(text)
    return text[:max(a.log_bytes, len(text))]

os.makedirs(os.path.join(a.out, "logs"), exist_ok=True)
if a.stacks:
    os.makedirs(os.path.join(a.out, "stacks"), exist_ok=True)
with open(os.path.join(a.out, "runs.jsonl"), "w") as f:
    f.write(json.dumps({"type": "series", "v": 1, "series": a.series, "jostle": "0.1.0",
                        "argv": a.argv, "cwd": "/tmp", "start": "2026-11-29T12:00:00.000Z",
                        "seed": "0x0000000000000001",
                        **({"shard": {"index": shard_k, "count": shard_n}} if shard_n else {}),
                        "settings": settings,
                        "machine": {"hostname": "gen", "kernel": "6.1.0", "cpus": 2, "loadavg": 0.5, "mem_mb": 4096}},
                       separators=(",", ":")) + "\n")
    for i in range(n):
        sid, kind = fail.get(i, (None, None))
        outcome = "pass" if sid is None else ("hang" if kind in ("hang", "deadlock", "livelock")
                                              else "crash" if kind in ("crash", "asan") else "fail")
        log = None
        if sid and not a.no_logs:
            log = "logs/%d.log" % i
            with open(os.path.join(a.out, log), "wb") as lf:
                lf.write(padded("run %d failed with %s\n" % (i, sid)))
        idx = shard_k + i * shard_n if shard_n else i
        if sid and not a.no_logs and a.stacks:
            with open(os.path.join(a.out, "stacks/%d.txt" % idx), "wb") as sf:
                sf.write(padded("stacks of run %d\n" % idx))
        rec = {"type": "run", "series": a.series, "run": idx,
               "seed": "0x%016x" % (run_seed(1, idx) if shard_n else i * 2654435761),
               "cell": cells[i % len(cells)] if cells else "", "config": {"arm": arms[i]} if i < len(arms) else {},
               "outcome": outcome, "exit": 1 if outcome == "fail" else (0 if outcome == "pass" else None),
               "signal": "SIGSEGV" if outcome == "crash" else None, "core": False,
               "start": "2026-11-29T12:00:00.000Z", "t": i * 0.05, "wall_s": 10.0 if outcome == "hang" else 0.04 + (i % 10) * 0.01,
               "user_s": 0.03, "sys_s": 0.01, "maxrss_kb": 4000, "out_bytes": 100, "out_dropped": 0,
               "sig_id": sid, "sig_kind": kind, "sig_key": None if sid is None else "failure %s" % sid,
               "key_line": None if sid is None else "failure %s at N" % sid, "frames": [] if sid is None else ["f1", "f2"],
               "log": log}
        if test_fails:
            rec["tests_from"] = "junit"
            rec["tests"] = [{"name": t, "outcome": "fail" if i in runs else "pass", "time": 0.01}
                            for t, runs in test_fails.items()]
        f.write(json.dumps(rec, separators=(",", ":")) + "\n")
    if shard_n:   # a shard that ended
        f.write(json.dumps({"type": "end", "series": a.series, "stop": "all runs done",
                            "interrupted": False, "elapsed_s": n * 0.05},
                           separators=(",", ":")) + "\n")
