#!/usr/bin/python3
"""tests/series_facts.py: what must be equal between one series and the merge
of its shards (issue 17), as text that tests and bench/shards.sh compare.

  series_facts.py summary DIR   the statistics of DIR/summary.json: counts,
                                rate, interval, upper bound, the bound of a
                                clean series, and per signature its count,
                                rate, interval and first/last run index
  series_facts.py runs DIR      the set of runs of DIR/runs.jsonl, one line
                                each, sorted: index, seed, outcome, signature
  series_facts.py count DIR     how many run lines DIR/runs.jsonl holds

Timing (start, t, wall_s, elapsed) and which run is each signature's example
differ between machines and are left out.
"""
import json, os, sys

mode, d = sys.argv[1], sys.argv[2]
if mode == "summary":
    s = json.load(open(os.path.join(d, "summary.json")))
    keys = ["runs", "failures", "pass", "fail", "crash", "hang", "ignored",
            "rate", "rate_lo", "rate_hi", "upper95", "bound", "clean", "proof"]
    for k in keys:
        print("%s %s" % (k, json.dumps(s.get(k))))
    for g in sorted(s["signatures"], key=lambda g: g["id"]):
        print("signature %s %s %s count=%d rate=%r [%r, %r] runs #%d..#%d" % (
            g["id"], g["kind"], json.dumps(g["key"]), g["count"], g["rate"],
            g["rate_lo"], g["rate_hi"], g["first"], g["last"]))
    for c in s.get("cells") or []:
        print("cell %s runs=%d failures=%d" % (c["cell"], c["runs"], c["failures"]))
elif mode in ("runs", "count"):
    rows = []
    for line in open(os.path.join(d, "runs.jsonl")):
        if not line.strip():
            continue
        o = json.loads(line)
        if o.get("type") == "run":
            rows.append((o["run"], o["seed"], o["outcome"], o.get("sig_id")))
    if mode == "count":
        print(len(rows))
    else:
        for r in sorted(rows):
            print("%d %s %s %s" % r)
else:
    sys.exit("series_facts.py: mode is summary, runs or count")
