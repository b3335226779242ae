// The map's canvas painters in the theme's colours: node labels (sigma's label hook), the hovered
// node (its hover hook), the focus layer (selected and hovered nodes with their links) and the
// paths between two entities. Pure drawing: what to draw comes from core/map/focus, core/map/labels
// and core/paths/scene.
import type { FocusScene } from './focus';
import { CENTRED_FROM, type LabelPlacer } from './labels';
import type { Segment } from '../paths/scene';
import type { MapPalette } from '../theme/theme.svelte';

/** What sigma hands a label or hover painter about a node. */
export interface LabelData { key?: string; x: number; y: number; size: number; label: string | null }
/** The sigma settings the painters read. */
export interface LabelSettings { labelSize: number; labelFont: string; labelWeight: string }

/** A node's label: inside a large group circle, centred; beside a small node. Returns the text
 * drawn (shortened maybe), `null` when there was no room. */
export function paintLabel(ctx: CanvasRenderingContext2D, d: LabelData, settings: LabelSettings, pal: MapPalette, placer: LabelPlacer): string | null {
  if (!d.label) return null;
  const size = settings.labelSize;
  const measure = (t: string) => ctx.measureText(t).width;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  if (d.size > CENTRED_FROM) {
    ctx.font = `600 ${size + 1}px ${settings.labelFont}`;
    // The largest groups' labels were placed at the frame's start (core/map/labels).
    const first = d.key === undefined ? undefined : placer.reserved(d.key);
    const p = first !== undefined ? first : placer.centred(d.label, d.x, d.y, d.size, size + 3, measure);
    if (p) {
      ctx.fillStyle = pal.inner;
      ctx.fillText(p.text, p.x, p.y + p.rect.h / 2);
    }
    ctx.textBaseline = 'alphabetic';
    return p?.text ?? null;
  }
  ctx.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
  const p = placer.beside(d.label, d.x, d.y, d.size, size + 3, measure);
  if (p) {
    ctx.fillStyle = pal.label;
    ctx.fillText(p.text, p.x, p.y + p.rect.h / 2);
  }
  ctx.textBaseline = 'alphabetic';
  return p?.text ?? null;
}

/**
 * The hovered node: a ring and its label on a plate (sigma's own hover box is white, which hides
 * light text in the dark theme).
 */
export function paintHover(ctx: CanvasRenderingContext2D, d: LabelData, settings: LabelSettings, pal: MapPalette): void {
  const r = Math.max(d.size, 3);
  ctx.beginPath();
  ctx.arc(d.x, d.y, r + 2, 0, 2 * Math.PI);
  ctx.lineWidth = 2;
  ctx.strokeStyle = pal.ring;
  ctx.stroke();
  if (!d.label) return;
  const size = settings.labelSize;
  ctx.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  const x = d.x + r + 6;
  const w = ctx.measureText(d.label).width;
  ctx.fillStyle = pal.plate;
  ctx.fillRect(x - 3, d.y - size / 2 - 4, w + 6, size + 8);
  ctx.fillStyle = pal.label;
  ctx.fillText(d.label, x, d.y);
  ctx.textBaseline = 'alphabetic';
}

/** The focus layer: the focused nodes' links with their predicates, and rings (`selected`'s labelled). */
export function paintFocus(ctx: CanvasRenderingContext2D, scene: FocusScene, selected: string | null, pal: MapPalette): void {
  ctx.strokeStyle = pal.focus;
  ctx.lineCap = 'round';
  for (const l of scene.lines) {
    ctx.lineWidth = l.width;
    ctx.beginPath();
    ctx.moveTo(l.x1, l.y1);
    ctx.lineTo(l.x2, l.y2);
    ctx.stroke();
  }
  // Predicates at the links' middles, the first ones only: a hub's would cover the view.
  ctx.font = '11px Inter, system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillStyle = pal.focusText;
  for (const l of scene.lines.slice(0, 40)) {
    if (l.label && Math.hypot(l.x2 - l.x1, l.y2 - l.y1) > 60) ctx.fillText(l.label, (l.x1 + l.x2) / 2, (l.y1 + l.y2) / 2);
  }
  for (const r of scene.rings) {
    ctx.beginPath();
    ctx.arc(r.x, r.y, Math.max(r.size, 3) + 2, 0, 2 * Math.PI);
    ctx.lineWidth = 2;
    ctx.strokeStyle = pal.ring;
    ctx.stroke();
    // The hovered node's label is the hover painter's; the selected one's is drawn here.
    if (r.key !== selected || !r.label) continue;
    ctx.font = `600 13px Inter, system-ui, sans-serif`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    const x = r.x + Math.max(r.size, 3) + 6;
    const w = ctx.measureText(r.label).width;
    ctx.fillStyle = pal.plate;
    ctx.fillRect(x - 3, r.y - 9, w + 6, 18);
    ctx.fillStyle = pal.label;
    ctx.fillText(r.label, x, r.y);
  }
}

/** The paths' steps: a line each between the nodes showing its ends (`at`: viewport position), with its predicate. */
export function paintPaths(ctx: CanvasRenderingContext2D, segments: Segment[], at: (key: string) => { x: number; y: number } | null, pal: MapPalette): void {
  ctx.strokeStyle = pal.path;
  ctx.lineWidth = 3;
  ctx.lineCap = 'round';
  ctx.font = '600 11px Inter, system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (const seg of segments) {
    const a = at(seg.from);
    const b = at(seg.to);
    if (!a || !b) continue;
    ctx.beginPath();
    ctx.moveTo(a.x, a.y);
    ctx.lineTo(b.x, b.y);
    ctx.stroke();
    if (seg.label && Math.hypot(b.x - a.x, b.y - a.y) > 50) {
      const text = seg.forward ? `${seg.label} →` : `← ${seg.label}`;
      const w = ctx.measureText(text).width;
      const mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
      ctx.fillStyle = pal.plate;
      ctx.fillRect(mx - w / 2 - 3, my - 8, w + 6, 16);
      ctx.fillStyle = pal.path;
      ctx.fillText(text, mx, my);
    }
  }
}
