// An in-memory Backend for unit tests of the core modules: it answers from the small fixed views
// given to it and records the calls, so the state logic can be tested without the Tauri shell.
import type { Backend } from '../lib/core/backend';
import type { DocInfo, EntityDetails, GroupDetails, Legend, MapView } from '../lib/core/types';

export class MemoryBackend implements Backend {
  calls: string[] = [];
  docs = new Map<string, DocInfo>();
  views = new Map<string, MapView>();
  entities = new Map<number, EntityDetails>();
  groups = new Map<string, GroupDetails>();
  legends = new Map<number, Legend>();
  pending: string[] = [];
  recent: string[] = [];
  openHandlers: (() => void)[] = [];

  private log(s: string) { this.calls.push(s); }
  async openPath(path: string) { this.log(`openPath ${path}`); const d = this.docs.get(path); if (!d) throw `${path}: not a .rete file (bad magic bytes)`; this.recent.unshift(path); return d; }
  async openUrl(url: string) { this.log(`openUrl ${url}`); const d = this.docs.get(url); if (!d) throw `${url}: HTTP 404`; return d; }
  async openDialog() { this.log('openDialog'); return null; }
  async takePending() { const p = this.pending; this.pending = []; return p; }
  async recentFiles() { return [...this.recent]; }
  async closeDoc(doc: number) { this.log(`close ${doc}`); }
  async overview(doc: number) { this.log(`overview ${doc}`); return this.view(`overview:${doc}`); }
  async expand(doc: number, key: string) { this.log(`expand ${key}`); return this.view(`expand:${key}`); }
  async entity(doc: number, id: number) { const e = this.entities.get(id); if (!e) throw `term id ${id} is out of range`; return e; }
  async neighbourhood(doc: number, id: number) { return this.view(`nb:${id}`); }
  async group(doc: number, key: string) { const g = this.groups.get(key); if (!g) throw `map node ${key} is not a group`; return g; }
  async legend(doc: number) { const l = this.legends.get(doc); if (!l) throw 'no legend'; return l; }
  async exportView() { return null; }
  async onOpenRequested(cb: () => void) { this.openHandlers.push(cb); return () => {}; }
  async onMenu() { return () => {}; }
  private view(k: string): MapView { const v = this.views.get(k); if (!v) throw `no view ${k}`; return structuredClone(v); }
}

export function node(key: string, o: Partial<import('../lib/core/types').MapNode> = {}): import('../lib/core/types').MapNode {
  return { key, kind: 'class', label: key, size: 10, class: `<http://ex.org/${key}>`, x: 0, y: 0, r: 10, expandable: true, level: null, id: 1, classes: [], ...o };
}

export function doc(id: number, name: string, classes: string[] = []): DocInfo {
  return {
    doc: id, source: `/data/${name}`, name, bytes: 1000, quads: 10, terms: 5, subjects: 3, predicates: 2, objects: 4, graphs: 0,
    classes: classes.map((c, i) => ({ nt: c, label: c, count: 10 - i })), top_predicates: [],
    has_pyramid: false, has_schema: false, levels: 0, built_by: 'rete 0.1', materialized: false,
  };
}
