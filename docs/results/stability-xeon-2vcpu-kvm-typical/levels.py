import json,sys
def mib(b): return f"{b/2**20:g}MiB" if b>=2**20 else f"{b/1024:g}KiB"
for f in sys.argv[1:]:
    r=json.load(open(f))
    lad=r.get("ladder") or {}
    lv=lad.get("levels",[])
    s=" | ".join(f"{l['name']} {mib(l['size_bytes'])} {l['ns_per_load']:.1f}ns" for l in lv)
    print(f, s)
