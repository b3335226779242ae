import { describe, expect, it } from 'vitest';
import { SchemaState } from './schema.svelte';
import { ClassColors, PALETTE } from '../map/colors';
import { MemoryBackend } from '../../../test/memory-backend';

describe('schema legend', () => {
  it('orders classes as a tree with map colours and toggles the highlight', async () => {
    const b = new MemoryBackend();
    const cls = (nt: string, parents: number[], total: number) => ({ nt, label: nt, parents, depth: parents.length, direct: total, total });
    b.legends.set(1, {
      source: 'schema', note: '', relations: [],
      classes: [cls('<Person>', [], 10), cls('<Agent>', [], 12), cls('<Student>', [0], 4)],
    });
    const colors = new ClassColors();
    colors.setClasses(['<Person>', '<Student>']);
    const s = new SchemaState(b, colors);
    await s.load(1);
    const rows = s.rows();
    expect(rows.map((r) => [r.cls.nt, r.depth])).toEqual([['<Person>', 0], ['<Student>', 1], ['<Agent>', 0]]);
    expect(rows[1].color).toBe(PALETTE[1]);
    s.toggle('<Student>');
    expect(s.highlighted).toBe('<Student>');
    s.toggle('<Student>');
    expect(s.highlighted).toBeNull();
  });

  it('reports a failed legend', async () => {
    const s = new SchemaState(new MemoryBackend(), new ClassColors());
    await s.load(5);
    expect(s.error).toBe('no legend');
    expect(s.rows()).toEqual([]);
  });
});
