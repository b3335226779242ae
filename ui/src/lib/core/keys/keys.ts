// The page's keyboard shortcuts, in one table: the global handler and the `?` overlay read it.
// The menu's accelerators (Ctrl+O, Ctrl+L, Ctrl+S, Ctrl+0) are the shell's and are listed too.

export type Action =
  | 'help' | 'search' | 'map' | 'query' | 'coherence' | 'legend' | 'theme' | 'link' | 'save-view' | 'open-view' | 'bookmarks'
  | 'left' | 'right' | 'up' | 'down' | 'open' | 'up-level' | 'zoom-in' | 'zoom-out';

export interface Shortcut {
  keys: string[];
  does: string;
  /** Handled by the page (the others are the shell's menu or an editor's). */
  action?: Action;
  /** Only while the map has the focus. */
  onMap?: boolean;
}

export const SHORTCUTS: { group: string; items: Shortcut[] }[] = [
  {
    group: 'Anywhere',
    items: [
      { keys: ['?'], does: 'Show or hide this list', action: 'help' },
      { keys: ['/', 'Ctrl+F'], does: 'Search entities, classes and predicates', action: 'search' },
      { keys: ['M'], does: 'Put the focus on the map', action: 'map' },
      { keys: ['Q'], does: 'Show or hide the query pane', action: 'query' },
      { keys: ['C'], does: 'Show or hide the coherence report', action: 'coherence' },
      { keys: ['L'], does: 'Show or hide the legend', action: 'legend' },
      { keys: ['T'], does: 'Colour theme: system, light, dark', action: 'theme' },
      { keys: ['V'], does: 'Copy a rete:// link to this view', action: 'link' },
      { keys: ['B'], does: 'Bookmarks of this file: add one, go to one', action: 'bookmarks' },
      { keys: ['Tab', 'Shift+Tab'], does: 'Move between controls' },
      { keys: ['Ctrl+O'], does: 'Open a file' },
      { keys: ['Ctrl+L'], does: 'Open a URL' },
      { keys: ['Ctrl+S'], does: 'Save an imported file as .rete' },
      { keys: ['Ctrl+0'], does: 'Back to the overview' },
      { keys: ['Ctrl+Shift+S'], does: 'Save this view to a file', action: 'save-view' },
      { keys: ['Ctrl+Shift+O'], does: 'Open a saved view', action: 'open-view' },
    ],
  },
  {
    group: 'On the map',
    items: [
      { keys: ['←', '→', '↑', '↓'], does: 'Select the nearest node in that direction', onMap: true },
      { keys: ['Enter'], does: 'Open the selected group, or centre the selected entity', action: 'open', onMap: true },
      { keys: ['Backspace', 'Escape'], does: 'Up one level', action: 'up-level', onMap: true },
      { keys: ['+', '-'], does: 'Zoom in, zoom out', onMap: true },
    ],
  },
  {
    group: 'In the search box',
    items: [
      { keys: ['↑', '↓'], does: 'Move through the matches' },
      { keys: ['Enter'], does: 'Go to the match' },
      { keys: ['Shift+Enter'], does: 'Show all matches on the map, with their counts' },
      { keys: ['Escape'], does: 'Close the list' },
    ],
  },
  {
    group: 'In the query pane',
    items: [
      { keys: ['Ctrl+Enter'], does: 'Run the query' },
      { keys: ['Ctrl+Space'], does: 'Complete a name' },
    ],
  },
];

const ARROWS: Record<string, Action> = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' };
const PAGE: Record<string, Action> = { '?': 'help', '/': 'search', m: 'map', q: 'query', c: 'coherence', l: 'legend', t: 'theme', v: 'link', b: 'bookmarks' };

interface KeyLike { key: string; ctrlKey?: boolean; metaKey?: boolean; altKey?: boolean; shiftKey?: boolean }

/** The page-wide action a key asks for, if the user is not typing. */
export function pageAction(e: KeyLike, typing: boolean): Action | null {
  if (e.altKey) return null;
  if (e.ctrlKey || e.metaKey) {
    const k = e.key.toLowerCase();
    if (k === 'f' && !e.shiftKey) return 'search';
    if (e.shiftKey && k === 's') return 'save-view';
    if (e.shiftKey && k === 'o') return 'open-view';
    return null;
  }
  if (typing) return null;
  return PAGE[e.key.length === 1 ? e.key.toLowerCase() : e.key] ?? null;
}

/** The map's action for a key pressed while it has the focus. */
export function mapAction(e: KeyLike): Action | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  if (ARROWS[e.key]) return ARROWS[e.key];
  if (e.key === 'Enter') return 'open';
  if (e.key === 'Backspace' || e.key === 'Escape') return 'up-level';
  if (e.key === '+' || e.key === '=') return 'zoom-in';
  if (e.key === '-' || e.key === '_') return 'zoom-out';
  return null;
}

/** Whether keys go to a text field (then they are the user's text, not shortcuts). */
export function isTyping(el: Element | null): boolean {
  if (!el) return false;
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || (el as HTMLElement).isContentEditable || el.closest('.cm-editor') !== null;
}
