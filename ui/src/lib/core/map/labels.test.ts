import { describe, expect, it } from 'vitest';
import { ALWAYS_LABELLED, LabelPlacer, firstLabels, fit, type LabelNode } from './labels';

// 7 pixels per character, as a stand-in for the canvas.
const measure = (t: string) => t.length * 7;

describe('map label placement', () => {
  it('leaves out a label that would overlap one already placed', () => {
    const p = new LabelPlacer();
    p.reset(800, 600);
    expect(p.beside('Alice Smith', 100, 100, 5, 13, measure)).not.toBeNull();
    // Same row, 20 px to the right: its label would cross the first one.
    expect(p.beside('Bob Jones', 120, 102, 5, 13, measure)).toBeNull();
    // Far enough below, it is placed.
    expect(p.beside('Bob Jones', 120, 140, 5, 13, measure)).not.toBeNull();
  });

  it('keeps labels inside the view', () => {
    const p = new LabelPlacer();
    p.reset(400, 300);
    // Near the right edge the label goes to the left of its node.
    const l = p.beside('DBpedia ontology · 9,015 terms', 390, 150, 4, 13, measure)!;
    expect(l.rect.x).toBeGreaterThanOrEqual(0);
    expect(l.rect.x + l.rect.w).toBeLessThanOrEqual(400);
    expect(l.text).toBe('DBpedia ontology · 9,015 terms');
    // A big circle's label is slid inside and shortened to the circle.
    const c = p.centred('A very long community label that is wider than the circle', 20, 20, 60, 14, measure)!;
    expect(c.rect.x).toBeGreaterThanOrEqual(0);
    expect(c.rect.y).toBeGreaterThanOrEqual(0);
    expect(c.rect.w).toBeLessThanOrEqual(108);
    expect(c.text.endsWith('…')).toBe(true);
  });

  it("keeps a big circle's centred label over the part of the circle in view, or leaves it out", () => {
    const p = new LabelPlacer();
    p.reset(400, 300);
    const inside = (l: { rect: { x: number; y: number; w: number; h: number } }, cx: number, cy: number, r: number) => {
      for (const [x, y] of [[l.rect.x, l.rect.y], [l.rect.x + l.rect.w, l.rect.y], [l.rect.x, l.rect.y + l.rect.h], [l.rect.x + l.rect.w, l.rect.y + l.rect.h]]) {
        expect(Math.hypot(x - cx, y - cy)).toBeLessThanOrEqual(r + 1e-9);
      }
    };
    // Centre off the left edge, a third of the circle in view: the label sits in that third.
    const l = p.centred('Event · 120 Restriction', -60, 150, 100, 14, measure)!;
    expect(l).not.toBeNull();
    expect(l.rect.x).toBeGreaterThanOrEqual(4);
    inside(l, -60, 150, 100);
    // Centre above the view, only a sliver of the circle's bottom in it: no room, no label
    // (it was slid down onto the empty map beside the circle).
    expect(p.centred('American Football · 29 Sporting Activity Type Code', 200, -95, 100, 14, measure)).toBeNull();
  });

  it('labels the largest groups in view first, so a smaller neighbour drawn before cannot take their place', () => {
    const group = (key: string, x: number, y: number, r: number): LabelNode => ({ key, label: `group ${key}`, x, y, r, group: true });
    const nodes = [
      group('small', 300, 290, 45),
      group('largest', 320, 300, 200),
      group('entity-sized', 100, 100, 10),
      group('outside', 900, 300, 400),
      ...Array.from({ length: 10 }, (_, i) => group(`g${i}`, 50 + i * 50, 500, 50 + i)),
    ];
    const first = firstLabels(nodes, 800, 600);
    expect(first.length).toBe(ALWAYS_LABELLED);
    expect(first[0].key).toBe('largest');
    expect(first.map((d) => d.key)).not.toContain('outside');
    expect(first.map((d) => d.key)).not.toContain('entity-sized');
    const p = new LabelPlacer();
    p.reset(800, 600);
    p.reserve(first, 14, measure);
    // sigma draws the small neighbour first: it is left out, the largest keeps its label.
    expect(p.centred('group small', 300, 290, 45, 14, measure)).toBeNull();
    expect(p.reserved('largest')?.text).toBe('group largest');
    expect(p.reserved('small')).toBeUndefined();
    // A new frame starts without reservations.
    p.reset(800, 600);
    expect(p.reserved('largest')).toBeUndefined();
  });

  it('shortens with an ellipsis', () => {
    expect(fit('Marie Curie', 1000, measure)).toBe('Marie Curie');
    expect(fit('Marie Curie', 42, measure)).toBe('Marie…');
    expect(fit('Marie Curie', 3, measure)).toBe('');
  });
});
