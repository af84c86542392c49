# Each run's TLB-friendly curves (THP) from 16 to 512 MiB: min ns per load of each size on each
# curve, and the fastest over them with how many times the size was measured (attempts, summed).
import json, sys
for f in sys.argv[1:]:
    r = json.load(open(f))
    cs = [c for c in r["ladder"]["curves"] if c["huge_pages"] == "thp"]
    sizes = sorted({p["bytes"] for c in cs for p in c["points"] if 16 << 20 <= p["bytes"] <= 512 << 20})
    best = []
    for b in sizes:
        pts = [p for c in cs for p in c["points"] if p["bytes"] == b]
        best.append(f"{b >> 20}:{min(p['ns_per_load']['min'] for p in pts):.0f}x{sum(p['attempts'] for p in pts)}")
    print(f, "fastest (MiB:ns x attempts):", " ".join(best))
    for c in cs:
        row = " ".join(f"{p['bytes'] >> 20}:{p['ns_per_load']['min']:.0f}" for p in c["points"] if 16 << 20 <= p["bytes"] <= 512 << 20)
        print(f"    {c['pattern']}: {row}")
