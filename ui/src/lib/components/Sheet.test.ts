import { describe, expect, it } from 'vitest';
import { render, screen, fireEvent } from '@testing-library/svelte';
import Shortcuts from './Shortcuts.svelte';
import { Session } from '../core/session.svelte';
import { MemoryBackend } from '../../test/memory-backend';

describe('Sheet component (through the shortcuts list)', () => {
  it('is a titled modal dialog that its keys, its close button and a click outside close', async () => {
    const session = new Session(new MemoryBackend());
    for (const close of [
      () => fireEvent.keyDown(screen.getByTestId('shortcuts'), { key: '?' }),
      () => fireEvent.keyDown(screen.getByTestId('shortcuts'), { key: 'Escape' }),
      () => fireEvent.click(screen.getByLabelText('Close the list of shortcuts')),
      () => fireEvent.click(document.querySelector('.backdrop')!),
    ]) {
      session.showShortcuts = true;
      const { unmount } = render(Shortcuts, { session });
      const dialog = screen.getByRole('dialog');
      expect(dialog.getAttribute('aria-modal')).toBe('true');
      expect(document.getElementById(dialog.getAttribute('aria-labelledby')!)?.textContent).toBe('Keyboard shortcuts');
      expect(document.activeElement).toBe(dialog);
      await fireEvent.keyDown(dialog, { key: 'x' });
      expect(session.showShortcuts).toBe(true);
      await close();
      expect(session.showShortcuts).toBe(false);
      unmount();
    }
  });
});
