# The fastest of the TLB-friendly curves (THP) at 1-24 MiB, per run: min ns per load and how
# many times each size was measured in all (attempts, summed over the curves).
import json, sys
for f in sys.argv[1:]:
    r = json.load(open(f))
    cs = [c for c in r["ladder"]["curves"] if c["huge_pages"] == "thp"]
    sizes = [p["bytes"] for p in cs[0]["points"] if 1 << 20 <= p["bytes"] <= 24 << 20]
    row = []
    for b in sizes:
        pts = [p for c in cs for p in c["points"] if p["bytes"] == b]
        row.append(f"{b / 2**20:g}MiB {min(p['ns_per_load']['min'] for p in pts):.0f}ns x{sum(p['attempts'] for p in pts)}")
    print(f, " | ".join(row))
