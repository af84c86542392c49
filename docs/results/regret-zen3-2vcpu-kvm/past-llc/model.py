caches=[(32<<10,1.2),(512<<10,3.7),(12<<20,13.1),(24<<20,42.4)]; dram=91.3; ghz=3.24; knee=26.7; bw=17.1
def lat(b):
    ns=0;held=0
    for size,l in caches:
        share=min(size/b,1); ns+=(share-held)*l; held=share
    return ns+(1-held)*dram
def cap(groups):
    n=int((groups+groups/8)*2); c=1
    while c<n: c*=2
    return c
P=dict(work=2.2,exp=0.878,g=93.8); T=dict(work=17.7,exp=0.0,g=14.3)
def kept(rows_left, to_come, starts, table, per_core=512<<10, dist=24, row=8):
    near=lat(min(per_core,table)); allb=lat(table)
    new=min(to_come,starts); fl=max(1,min(knee,dist*starts/rows_left))
    far=near+(allb-near)/fl
    rnd=(new*far+(starts-new)*allb+(rows_left-starts)*lat(64))/rows_left
    return (P['work']+P['g']*to_come/rows_left)/ghz+P['exp']*rnd+row/bw
def tuned(groups_total, all_rows, per_core=512<<10, row=8):
    return (T['work']+T['g']*groups_total/all_rows)/ghz + 3*row/bw
for name,rows,keys,run in [("uni1m-sorted",10e6,1e6,10),("uni2m-sorted",10e6,2e6,5),("uni1m-sorted20",20e6,1e6,20),("uni4m-sorted",20e6,4e6,5),("uni300k-sorted",20e6,3e5,67)]:
    taken=keys/64  # early look
    rl=rows-taken*run
    tc=keys-taken
    k=kept(rl,tc,tc,cap(keys)*16); t=tuned(keys,rows)
    print(f"{name}: kept {k:.2f} tuned {t:.2f} -> {'keep' if k*rl<=t*rows else 'give up'}")

# Sessions past the last level (780,000 Zipf 0.9 keys in runs of 1-8 rows, 4.5 on average, over
# 10M rows: 0.222 starts a row, 0.078 new groups a row at an early look), returns priced two ways.
def kept_returns_overlapped(rows_left, to_come, starts, table, per_core=512<<10, dist=24, row=8):
    near=lat(min(per_core,table)); allb=lat(table)
    fl=max(1,min(knee,dist*starts/rows_left)); far=near+(allb-near)/fl
    rnd=(starts*far+(rows_left-starts)*lat(64))/rows_left
    return (P['work']+P['g']*to_come/rows_left)/ghz+P['exp']*rnd+row/bw
rl=10e6; tc=0.078*rl; st=0.222*rl; tb=cap(780000)*16
print(f"zipf780k-sessions: returns un-overlapped {kept(rl,tc,st,tb):.2f}, returns overlapped {kept_returns_overlapped(rl,tc,st,tb):.2f}, tuned {tuned(780000,rl):.2f}")
