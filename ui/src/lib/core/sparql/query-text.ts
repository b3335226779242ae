// Pure helpers over query text: the file's prefixes added when a query uses them without declaring
// them (on the query's first line, so error positions only shift on that line), compact names,
// the editor's completion list, and the query history.
import type { QueryError, SparqlContext } from '../types';

export type Prefixes = [string, string][];

/** Prefixes declared by the query itself. */
export function declaredPrefixes(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\bPREFIX\s+([A-Za-z][\w.-]*)?:\s*</gi)) out.add(m[1] ?? '');
  return out;
}

/** The query without IRIs, strings and comments (so `http:` inside `<…>` is not a prefix). */
function code(text: string): string {
  return text
    .replace(/<[^<>\s]*>/g, ' ')
    .replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, ' ')
    .replace(/#[^\n]*/g, ' ');
}

/** Known prefixes the query uses. */
export function usedPrefixes(text: string, prefixes: Prefixes): string[] {
  const body = code(text);
  return prefixes
    .map(([p]) => p)
    .filter((p) => new RegExp(`(^|[\\s(){}\\[\\],;/^|!=<>+*])${p.replace(/[.-]/g, '\\$&')}:(?=[\\w%]|\\s|$)`, 'm').test(body));
}

/** The query to send: declarations of used-but-undeclared prefixes put before the first line. */
export function withPrefixes(text: string, prefixes: Prefixes): { query: string; shift: number } {
  const declared = declaredPrefixes(text);
  const ns = new Map(prefixes);
  const missing = usedPrefixes(text, prefixes).filter((p) => !declared.has(p));
  if (!missing.length) return { query: text, shift: 0 };
  const head = missing.map((p) => `PREFIX ${p}: <${ns.get(p)}>`).join(' ') + ' ';
  return { query: head + text, shift: head.length };
}

/** An engine error position mapped back onto the text the user typed. */
export function userPosition(e: QueryError, shift: number): QueryError {
  if (e.line === 1 && shift > 0) return { ...e, column: Math.max(1, e.column - shift) };
  return e;
}

/** Offset in `text` of a 1-based line/column (clamped to the text). */
export function offsetOf(text: string, line: number, column: number): number {
  const lines = text.split('\n');
  const l = Math.min(Math.max(line, 1), lines.length);
  let off = 0;
  for (let i = 0; i < l - 1; i++) off += lines[i].length + 1;
  return Math.min(off + Math.max(column, 1) - 1, off + lines[l - 1].length);
}

/** `prefix:local` when a prefix fits and the local part is a valid name, else `<iri>`. */
export function compact(iri: string, prefixes: Prefixes): string {
  let best: [string, string] | null = null;
  for (const [p, ns] of prefixes) {
    if (iri.startsWith(ns) && (!best || ns.length > best[1].length)) best = [p, ns];
  }
  if (best) {
    const local = iri.slice(best[1].length);
    if (/^[A-Za-z_][\w-]*$/.test(local) || /^\d[\w-]*$/.test(local)) return `${best[0]}:${local}`;
  }
  return `<${iri}>`;
}

export interface CompletionItem { label: string; detail: string; type: 'class' | 'property' | 'keyword' | 'namespace'; boost: number }

export const KEYWORDS = [
  'SELECT', 'DISTINCT', 'WHERE', 'OPTIONAL', 'FILTER', 'UNION', 'MINUS', 'GRAPH', 'BIND', 'VALUES', 'GROUP BY', 'ORDER BY',
  'HAVING', 'LIMIT', 'OFFSET', 'CONSTRUCT', 'DESCRIBE', 'ASK', 'PREFIX', 'COUNT', 'DESC', 'ASC', 'EXISTS', 'NOT EXISTS',
  'SAMPLE', 'GROUP_CONCAT', 'STR', 'LANG', 'REGEX', 'CONTAINS', 'isIRI', 'isLiteral', 'BOUND',
];

/** Classes, predicates, prefixes and keywords for the editor, most used first. */
export function completionItems(ctx: SparqlContext): CompletionItem[] {
  const fmt = (n: number) => n.toLocaleString('en');
  const maxLog = (xs: { count: number }[]) => Math.log10(Math.max(10, ...xs.map((x) => x.count)));
  const boost = (n: number, max: number) => Math.round((Math.log10(Math.max(1, n)) / max) * 40);
  const cm = maxLog(ctx.classes);
  const pm = maxLog(ctx.predicates);
  return [
    ...ctx.classes.map((c) => ({ label: compact(c.iri, ctx.prefixes), detail: `class · ${fmt(c.count)} instances`, type: 'class' as const, boost: boost(c.count, cm) })),
    ...ctx.predicates.map((p) => ({ label: compact(p.iri, ctx.prefixes), detail: `predicate · ${fmt(p.count)} triples`, type: 'property' as const, boost: boost(p.count, pm) })),
    ...ctx.prefixes.map(([p, ns]) => ({ label: `${p}:`, detail: ns, type: 'namespace' as const, boost: -10 })),
    ...KEYWORDS.map((k) => ({ label: k, detail: 'keyword', type: 'keyword' as const, boost: -20 })),
  ];
}

/** Recent queries, most recent first, without duplicates; kept in `storage` under `key`. */
export class History {
  items: string[];
  constructor(private storage: Pick<Storage, 'getItem' | 'setItem'> | null, private key = 'rete.sparql.history', readonly max = 50) {
    let items: unknown = [];
    try { items = JSON.parse(storage?.getItem(key) ?? '[]'); } catch { items = []; }
    this.items = Array.isArray(items) ? items.filter((x): x is string => typeof x === 'string').slice(0, max) : [];
  }

  push(query: string): string[] {
    const q = query.trim();
    if (!q) return this.items;
    this.items = [q, ...this.items.filter((x) => x !== q)].slice(0, this.max);
    try { this.storage?.setItem(this.key, JSON.stringify(this.items)); } catch { /* storage full or denied: keep in memory */ }
    return this.items;
  }
}
