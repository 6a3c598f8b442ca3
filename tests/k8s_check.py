#!/usr/bin/python3
"""tests/k8s_check.py MANIFEST N PARALLELISM: the structure `jostle k8s`
must write, checked offline (kubectl's client-side dry run needs an API
server for its schema): an Indexed Job of N completions whose pods mount the
results claim and get JOB_COMPLETION_INDEX from the completion-index
annotation, then a suspended merge Job on the same claim. Field names and
types follow batch/v1 Job, core/v1 PodSpec. Exit 0, or 1 with what is wrong.
"""
import sys
import yaml

path, n, par = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
docs = [d for d in yaml.safe_load_all(open(path)) if d is not None]
problems = []


def need(cond, what):
    if not cond:
        problems.append(what)


def pod_ok(job, name):
    spec = job["spec"]["template"]["spec"]
    need(spec.get("restartPolicy") in ("Never", "OnFailure"), name + ": restartPolicy Never or OnFailure")
    cs = spec.get("containers")
    need(isinstance(cs, list) and len(cs) == 1, name + ": one container")
    c = cs[0]
    need(isinstance(c.get("name"), str) and isinstance(c.get("image"), str) and c["image"], name + ": name and image")
    need(isinstance(c.get("command"), list) and all(isinstance(x, str) for x in c["command"]), name + ": command is a list of strings")
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    for m in c.get("volumeMounts", []):
        need(m["name"] in vols and m["mountPath"].startswith("/"), name + ": mount %s of a volume" % m["name"])
    need(any("persistentVolumeClaim" in v and v["persistentVolumeClaim"].get("claimName") for v in vols.values()),
         name + ": a results volume claim")
    return c


need(len(docs) == 2, "two documents")
for d in docs:
    need(d.get("apiVersion") == "batch/v1" and d.get("kind") == "Job", "batch/v1 Job")
    need(isinstance(d["metadata"].get("name"), str) and len(d["metadata"]["name"]) <= 63, "a name")
job, merge = docs[0], docs[1]
s = job["spec"]
need(s.get("completionMode") == "Indexed", "completionMode: Indexed")
need(s.get("completions") == n, "completions: %d" % n)
need(s.get("parallelism") == par, "parallelism: %d" % par)
need(isinstance(s.get("backoffLimit"), int), "backoffLimit")
c = pod_ok(job, "shard Job")
env = {e["name"]: e for e in c.get("env", [])}
need(env.get("JOB_COMPLETION_INDEX", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
     == "metadata.annotations['batch.kubernetes.io/job-completion-index']", "JOB_COMPLETION_INDEX from the annotation")
need("--shard auto/%d" % n in c["command"][-1], "the shard command")
need(merge["spec"].get("suspend") is True, "the merge Job is suspended")
mc = pod_ok(merge, "merge Job")
need(" merge " in mc["command"][-1], "the merge command")
need(job["spec"]["template"]["spec"]["volumes"] == merge["spec"]["template"]["spec"]["volumes"], "the same claim")
for p in problems:
    print("k8s_check: " + p)
sys.exit(1 if problems else 0)
