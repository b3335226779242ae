import { describe, expect, it } from 'vitest';
import { SourceState } from './source.svelte';
import { MemoryBackend, doc } from '../../../test/memory-backend';

describe('opening files', () => {
  it('opens a path, remembers it and closes the previous document', async () => {
    const b = new MemoryBackend();
    b.docs.set('/a.rete', doc(1, 'a.rete'));
    b.docs.set('/b.rete', doc(2, 'b.rete'));
    const opened: number[] = [];
    const s = new SourceState(b, (d) => { opened.push(d.doc); });
    expect(await s.openPath('/a.rete')).toBe(true);
    expect(await s.openPath('/b.rete')).toBe(true);
    expect(opened).toEqual([1, 2]);
    expect(s.doc?.name).toBe('b.rete');
    expect(b.calls).toContain('close 1');
    await s.refreshRecent();
    expect(s.recent).toEqual(['/b.rete', '/a.rete']);
  });

  it('shows the engine error for a bad file and keeps the open document', async () => {
    const b = new MemoryBackend();
    b.docs.set('/a.rete', doc(1, 'a.rete'));
    const s = new SourceState(b, () => {});
    await s.openPath('/a.rete');
    expect(await s.openPath('/broken.rete')).toBe(false);
    expect(s.error).toBe('/broken.rete: not a .rete file (bad magic bytes)');
    expect(s.doc?.doc).toBe(1);
    s.dismissError();
    expect(s.error).toBe('');
  });

  it('routes URLs to openUrl and drains the queue of handed-over files', async () => {
    const b = new MemoryBackend();
    b.docs.set('https://h/x.rete', doc(3, 'x.rete'));
    b.docs.set('/q.rete', doc(4, 'q.rete'));
    const s = new SourceState(b, () => {});
    b.pending = ['https://h/x.rete', '/q.rete'];
    expect(s.checked).toBe(false);
    const draining = s.drainPending();
    while (!s.checked) await Promise.resolve();
    // Once the queue is known, opening has begun at once: no moment with neither (the welcome page).
    expect(s.checked).toBe(true);
    expect(s.opening).toBe('https://h/x.rete');
    expect(s.expecting).toBe(true);
    await draining;
    expect(s.expecting).toBe(false);
    expect(b.calls).toEqual(['openUrl https://h/x.rete', 'openPath /q.rete', 'close 3']);
    expect(s.doc?.doc).toBe(4);
  });

  it('does not lay out a document while the open dialog is up', async () => {
    const b = new MemoryBackend();
    const s = new SourceState(b, () => {});
    const choosing = s.openDialog();
    expect(s.opening).toBe('…');
    expect(s.expecting).toBe(false);
    expect(await choosing).toBe(false);
    expect(s.opening).toBe('');
  });
});
