#!/usr/bin/python3
"""survey_gen.py OUTDIR TOTAL_MB [FILES]: generate a corpus of realistic CI job
logs (GitHub Actions timestamp prefixes, build output, pytest/gtest/go test
progress, and one or two failures in most logs) for bench/survey_bench.sh.
Deterministic: the same arguments give the same bytes."""
import os, random, sys

out, total_mb = sys.argv[1], int(sys.argv[2])
files = int(sys.argv[3]) if len(sys.argv) > 3 else 40
rng = random.Random(7)
os.makedirs(out, exist_ok=True)

def ts(i):
    s = i % 60; m = (i // 60) % 60; h = 10 + (i // 3600) % 12
    return "2026-07-%02dT%02d:%02d:%02d.%07dZ " % (15 + (i // 50000) % 7, h, m, s, (i * 7919) % 10000000)

words = ["graph", "pool", "drain", "stream", "event", "kernel", "alloc", "error_handling",
         "context", "module", "launch", "memcpy", "exit_codes", "timeout_config", "registry"]
def body_lines(n):
    L = []
    for i in range(n):
        r = rng.random()
        w = rng.choice(words); k = rng.randrange(1000)
        if r < 0.40:
            L.append("tests/%s/test_%s.py::test_%s_%d PASSED [%3d%%]" % (w, w, rng.choice(words), k, k % 100))
        elif r < 0.55:
            L.append("[%3d%%] Building CXX object src/CMakeFiles/core.dir/%s/%s_%d.cpp.o" % (k % 100, w, w, k))
        elif r < 0.62:
            L.append("/usr/bin/c++ -DNDEBUG -I/src/include -O2 -g -Wall -Wextra -Werror=return-type -fPIC -c /src/%s/%s_%d.cpp -o %s_%d.o" % (w, w, k, w, k))
        elif r < 0.70:
            L.append("=== RUN   Test%s/case_%d" % (w.capitalize(), k))
        elif r < 0.76:
            L.append("--- PASS: Test%s/case_%d (0.%02ds)" % (w.capitalize(), k, k % 100))
        elif r < 0.82:
            L.append("[       OK ] %sTest.Handles%d (%d ms)" % (w.capitalize(), k, k % 50))
        elif r < 0.88:
            L.append("Requirement already satisfied: %s-lib==%d.%d.0 in /opt/hostedtoolcache/Python/3.14.0/x64/lib/python3.14t/site-packages" % (w, k % 5, k % 30))
        elif r < 0.93:
            L.append("  %s_%d.c:%d:%d: warning: unused variable 'err_%d' [-Wunused-variable]" % (w, k, k, k % 80, k))
        else:
            L.append("INFO  %s: processed %d items in %d ms (%s)" % (w, k * 13, k, "exit status 0" if k % 8 == 0 else "ok"))
    return L

failures = [
    ["=========================== short test summary info ============================",
     "FAILED tests/graph/test_graph_definition_lifetime.py::test_kernel_args_buffer_lifetime - AssertionError: condition not satisfied within 5.0s"],
    ["==12345==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010 at pc 0x55d1c bp 0x7ffd sp 0x7ffc",
     "READ of size 4 at 0x602000000010 thread T1",
     "    #0 0x55d1c0 in on_task_complete /src/orch.c:120:5",
     "    #1 0x55d1d0 in scheduler_loop /src/sched.c:40:3"],
    ["Fatal Python error: Segmentation fault", "", "Current thread 0x00007f1234567890 (most recent call first):",
     '  File "/opt/venv/lib/python3.10/site-packages/simpler/worker.py", line 2369 in run'],
    ["[pytest] TIMEOUT: session exceeded 600s (10min) limit"],
    ["panic: runtime error: invalid memory address or nil pointer dereference", "", "goroutine 7 [running]:",
     "example.com/pool.(*Pool).drain(0xc000010000)", "\t/src/pool.go:42 +0x1d"],
    [],
]

per_file = total_mb * 1000 * 1000 // files
chunk = "".join(ts(i) + l + "\n" for i, l in enumerate(body_lines(200000))).encode()
for f in range(files):
    path = os.path.join(out, "job-%03d.log" % f)
    with open(path, "wb") as fh:
        written = 0
        while written + len(chunk) <= per_file:
            fh.write(chunk); written += len(chunk)
        rest = per_file - written
        if rest > 0:
            cut = chunk.rfind(b"\n", 0, rest) + 1
            fh.write(chunk[:cut]); written += cut
        tail = failures[f % len(failures)] + ["##[error]Process completed with exit code 1."]
        fh.write("".join(ts(99999) + l + "\n" for l in tail).encode())
