#!/usr/bin/env python3
# Usage: cpu-split.py "BASE_GLOB[,GLOB...]" "NEW_GLOB[,GLOB...]" over windows.csv files of quick maps (one core, cpu and wall kinds).
import csv,glob,statistics as st,sys
# CPU split on one core: light us/request from the cpu 16x2 cell (each heavy request is 2 ms of CPU there),
# then the computing side's share of the CPU in the wall 16x2 cell of the same maps
def load(globs):
    rows=[]
    for g in globs:
        for f in glob.glob(g): rows+=list(csv.DictReader(open(f)))
    return rows
for name,globs in [('base',sys.argv[1].split(',')),('new',sys.argv[2].split(','))]:
    rows=load(globs)
    for conn in ['nio','ours']:
        sel=lambda k,ms,c:[r for r in rows if r['cores']=='1' and r['heavy_kind']==k and r['heavy_ms']==ms and r['heavy_connections']==c and r['connector']==conn]
        L=[(float(r['tomcat_cpu_share'])-float(r['heavy_rps'])*0.002)/float(r['light_rps']) for r in sel('cpu','2','16')]
        l=st.median(L)
        W=sel('wall','2','16')
        lightshare=[float(r['light_rps'])*l for r in W]
        heavycpu=[(float(r['tomcat_cpu_share'])-float(r['light_rps'])*l)/float(r['heavy_rps'])*1e3 for r in W]
        f=lambda xs,m=1:"%.3g (%.3g-%.3g)"%(st.median(xs)*m,min(xs)*m,max(xs)*m)
        print(name,conn,'windows',len(L),len(W),'| light CPU us/req (cpu 16x2)',f(L,1e6),'| wall 16x2: light side CPU share',f(lightshare),'| CPU ms per computing request',f(heavycpu),'| light rps',f([float(r['light_rps']) for r in W]),'| heavy rps',f([float(r['heavy_rps']) for r in W]))
