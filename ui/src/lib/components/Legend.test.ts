import { describe, expect, it } from 'vitest';
import { render, screen, fireEvent } from '@testing-library/svelte';
import Legend from './Legend.svelte';
import { Session } from '../core/session.svelte';
import { MemoryBackend } from '../../test/memory-backend';

describe('Legend component', () => {
  it('lists classes with counts and highlights the clicked one', async () => {
    const b = new MemoryBackend();
    b.legends.set(1, {
      source: 'card', note: 'sampled',
      classes: [{ nt: '<P>', label: 'Person', parents: [], depth: 0, direct: 1200, total: 1200 }],
      relations: [{ domain: '<P>', predicate: { nt: '', label: 'knows', count: 33 }, range: '<P>' }],
    });
    const session = new Session(b);
    session.colors.setClasses(['<P>']);
    await session.schema.load(1);
    render(Legend, { session });
    const row = screen.getByTestId('legend-class');
    expect(row.textContent).toContain('Person');
    expect(row.textContent).toContain('1,200');
    expect(screen.getByText('—knows→')).toBeTruthy();
    await fireEvent.click(row);
    expect(session.schema.highlighted).toBe('<P>');
    expect(row.classList.contains('active')).toBe(true);
  });
});
