# Reads each run of this folder twice, by the same reader (`memwall explain`): as measured (each
# size of the last cache's edge keeps its typical moment) and as the fastest moment would have read
# (each revisited size's fastest sample replaced by the fastest of its moments, `visits_ns_per_load`),
# and prints the effective LLC as the budget takes it (the deepest L3+ cache level's end).
# Usage: python3 statistic.py MEMWALL run-1.json ...
import json, subprocess, sys, tempfile
def mib(b): return f"{b / 2**20:g} MiB"
def llc(report):
    lv = report["ladder"]["levels"]
    deep = [l for l in lv if l["cause"] == "cache" and l["name"].startswith("L") and l["name"][1:2].isdigit() and int(l["name"][1:2]) >= 3]
    return max((l["size_bytes"] for l in deep), default=None), " | ".join(f"{l['name']} {mib(l['size_bytes'])} {l['ns_per_load']:.1f}ns" for l in lv)
def read(memwall, report):
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(report, f); f.flush()
        out = subprocess.run([memwall, "explain", "--json", "-", f.name], capture_output=True, text=True, check=True).stdout
    return llc(json.loads(out))
memwall = sys.argv[1]
for path in sys.argv[2:]:
    report = json.load(open(path))
    typical = read(memwall, report)
    for c in report["ladder"]["curves"]:
        for p in c["points"]:
            if p.get("visits_ns_per_load"):
                p["ns_per_load"]["min"] = min(p["visits_ns_per_load"])
    fastest = read(memwall, report)
    print(f"{path}: typical {mib(typical[0]) if typical[0] else '-'}, fastest {mib(fastest[0]) if fastest[0] else '-'}")
    print(f"    typical: {typical[1]}\n    fastest: {fastest[1]}")
