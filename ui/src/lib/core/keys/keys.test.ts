import { describe, expect, it } from 'vitest';
import { isTyping, mapAction, pageAction, SHORTCUTS } from './keys';

describe('shortcuts', () => {
  it('reads page keys unless the user is typing', () => {
    expect(pageAction({ key: '?' }, false)).toBe('help');
    expect(pageAction({ key: 'Q' }, false)).toBe('query');
    expect(pageAction({ key: 'q' }, true)).toBeNull();
    expect(pageAction({ key: 'f', ctrlKey: true }, false)).toBe('search');
    expect(pageAction({ key: 'f', ctrlKey: true }, true)).toBe('search');
    expect(pageAction({ key: 'q', ctrlKey: true }, false)).toBeNull();
    expect(pageAction({ key: 'S', ctrlKey: true, shiftKey: true }, true)).toBe('save-view');
    expect(pageAction({ key: 'O', ctrlKey: true, shiftKey: true }, false)).toBe('open-view');
    expect(pageAction({ key: 'x' }, false)).toBeNull();
  });
  it('reads map keys', () => {
    expect(mapAction({ key: 'ArrowLeft' })).toBe('left');
    expect(mapAction({ key: 'Enter' })).toBe('open');
    expect(mapAction({ key: 'Escape' })).toBe('up-level');
    expect(mapAction({ key: 'Backspace' })).toBe('up-level');
    expect(mapAction({ key: '+' })).toBe('zoom-in');
    expect(mapAction({ key: '-' })).toBe('zoom-out');
    expect(mapAction({ key: 'ArrowLeft', altKey: true })).toBeNull();
  });
  it('knows a text field', () => {
    const input = document.createElement('input');
    const editor = document.createElement('div');
    editor.className = 'cm-editor';
    const line = document.createElement('div');
    editor.append(line);
    expect(isTyping(input)).toBe(true);
    expect(isTyping(line)).toBe(true);
    expect(isTyping(document.createElement('button'))).toBe(false);
    expect(isTyping(null)).toBe(false);
  });
  it('lists every page action it handles', () => {
    const listed = new Set(SHORTCUTS.flatMap((g) => g.items.map((i) => i.action)).filter(Boolean));
    for (const k of ['?', '/', 'm', 'q', 'c', 'l', 't', 'v', 'b']) expect(listed.has(pageAction({ key: k }, false)!)).toBe(true);
  });
});
