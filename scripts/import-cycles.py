#!/usr/bin/env python3
"""Import circles between the files of each Rust crate (issue 46's "no import circle").

Reads crates/*/src and src-tauri/src as text: a file's module refers to another when its code
(comments and `#[cfg(test)] mod tests` left out) names `crate::a::b` or `super::…` and that path
starts with the other's module. Prints each strongly connected group of two or more modules and
exits 1 if there is one. A reading, not a compiler: `use` through re-exports is not followed.
Usage: scripts/import-cycles.py
"""
import os, re, sys, glob
from collections import defaultdict

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
def modpath(crate_src, f):
    rel = os.path.relpath(f, crate_src)[:-3].split(os.sep)
    if rel[-1] in ('lib','main','mod'): rel = rel[:-1]
    return tuple(rel)
res=[]
for src in sorted(glob.glob('crates/*/src')) + ['src-tauri/src']:
    files = [f for f in glob.glob(src+'/**/*.rs', recursive=True)]
    mods = {modpath(src,f): f for f in files}
    g = defaultdict(set)
    for m,f in mods.items():
        text = open(f).read()
        text = re.split(r'#\[cfg\(test\)\]\s*mod tests', text)[0]
        text = '\n'.join(l for l in text.split('\n') if not l.strip().startswith('//'))
        refs = set()
        for mm in re.finditer(r'crate::((?:[a-z_][a-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*)', text):
            refs.add(('crate', tuple(mm.group(1).split('::'))))
        for mm in re.finditer(r'\b((?:super::)+)((?:[a-z_][a-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*)', text):
            n = mm.group(1).count('super::')
            base = m[:len(m)-n] if len(m) >= n else ()
            refs.add(('abs', tuple(list(base) + mm.group(2).split('::'))))
        # use crate::{a, b::c}
        for mm in re.finditer(r'use crate::\{([^}]*)\}', text, re.S):
            for part in mm.group(1).split(','):
                part = part.strip().split('::')
                if part and part[0]: refs.add(('crate', tuple(part)))
        for kind, parts in refs:
            # longest prefix that is a module
            for i in range(len(parts), 0, -1):
                t = tuple(parts[:i])
                if t in mods and t != m:
                    # ignore parent->child mod declarations? keep; ignore child referencing ancestor only if ancestor is lib root
                    if t == (): break
                    g[m].add(t); break
    # SCC (Tarjan)
    idx={}; low={}; st=[]; on=set(); out=[]; c=[0]
    sys.setrecursionlimit(10000)
    def sc(v):
        idx[v]=low[v]=c[0]; c[0]+=1; st.append(v); on.add(v)
        for w in g[v]:
            if w not in idx: sc(w); low[v]=min(low[v],low[w])
            elif w in on: low[v]=min(low[v],idx[w])
        if low[v]==idx[v]:
            comp=[]
            while True:
                w=st.pop(); on.discard(w); comp.append(w)
                if w==v: break
            if len(comp)>1: out.append(comp)
    for v in list(mods):
        if v not in idx: sc(v)
    for comp in out:
        res.append((src, sorted('::'.join(x) or 'lib' for x in comp)))
for src, comp in res: print(src, comp)
print(len(res), "import circles")
sys.exit(1 if res else 0)
