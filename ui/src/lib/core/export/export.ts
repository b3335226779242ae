// Exporting the current view: SVG drawn from the graph and the camera (vector, labels as text),
// PNG composed from sigma's canvas layers.
import type Graph from 'graphology';
import type { EdgeAttrs, NodeAttrs } from '../map/map.svelte';
import type { Projection } from '../map/zoom';

export interface Style {
  node(key: string, a: NodeAttrs): { color: string; hidden?: boolean; label?: string | null };
  edge(key: string, a: EdgeAttrs): { color: string; hidden?: boolean };
  /** Graph units to pixels at the current zoom. */
  scale: number;
  background: string;
  /** The labels' colour (the theme's). */
  labelColor?: string;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The visible part of the map as an SVG document of `p.width` × `p.height` pixels. */
export function toSvg(graph: Graph<NodeAttrs, EdgeAttrs>, p: Projection, style: Style): string {
  const { width: w, height: h } = p;
  const inView = (x: number, y: number, r: number) => x + r >= 0 && x - r <= w && y + r >= 0 && y - r <= h;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">`);
  out.push(`<rect width="100%" height="100%" fill="${style.background}"/>`);
  out.push('<g class="edges" stroke-linecap="round">');
  graph.forEachEdge((key, a, s, t, sa, ta) => {
    const st = style.edge(key, a);
    if (st.hidden || style.node(s, sa).hidden || style.node(t, ta).hidden) return;
    const ps = p.toScreen(sa.x, sa.y);
    const pt = p.toScreen(ta.x, ta.y);
    const width = Math.max(0.5, a.size * style.scale);
    out.push(`<line x1="${ps.x.toFixed(1)}" y1="${ps.y.toFixed(1)}" x2="${pt.x.toFixed(1)}" y2="${pt.y.toFixed(1)}" stroke="${st.color}" stroke-width="${width.toFixed(2)}"/>`);
  });
  out.push('</g><g class="nodes">');
  const labels: string[] = [];
  graph.forEachNode((key, a) => {
    const st = style.node(key, a);
    if (st.hidden) return;
    const c = p.toScreen(a.x, a.y);
    const r = Math.max(0.5, a.size * style.scale);
    if (!inView(c.x, c.y, r)) return;
    out.push(`<circle cx="${c.x.toFixed(1)}" cy="${c.y.toFixed(1)}" r="${r.toFixed(2)}" fill="${st.color}"><title>${esc(a.label)}</title></circle>`);
    const label = st.label === undefined ? a.label : st.label;
    if (label && r >= 6) labels.push(`<text x="${(c.x + r + 3).toFixed(1)}" y="${(c.y + 4).toFixed(1)}">${esc(label)}</text>`);
  });
  out.push('</g>');
  out.push(`<g class="labels" font-family="sans-serif" font-size="13" fill="${style.labelColor ?? '#1f2430'}">${labels.join('')}</g>`);
  out.push('</svg>');
  return out.join('\n');
}

/** One PNG (data URL) from sigma's layers, drawn in order over a background. */
export function composePng(layers: HTMLCanvasElement[], width: number, height: number, background: string): string {
  const ratio = layers[0] ? layers[0].width / Math.max(width, 1) : 1;
  const c = document.createElement('canvas');
  c.width = Math.round(width * ratio);
  c.height = Math.round(height * ratio);
  const ctx = c.getContext('2d');
  if (!ctx) throw new Error('cannot create a 2D canvas for the PNG export');
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, c.width, c.height);
  for (const layer of layers) ctx.drawImage(layer, 0, 0, c.width, c.height);
  return c.toDataURL('image/png');
}
