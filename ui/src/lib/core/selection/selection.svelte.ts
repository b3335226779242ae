// The selected map node or entity and what the details panel shows about it.
import type { Backend } from '../backend';
import { errorText } from '../backend';
import type { EntityDetails, GroupDetails } from '../types';

export type Details =
  | { kind: 'entity'; key: string; data: EntityDetails }
  | { kind: 'group'; key: string; data: GroupDetails };

export class SelectionState {
  selected = $state<string | null>(null);
  hovered = $state<string | null>(null);
  details = $state<Details | null>(null);
  loading = $state(false);
  error = $state('');
  private doc = 0;
  private ticket = 0;

  constructor(private backend: Backend) {}

  reset(doc: number): void {
    this.doc = doc;
    this.selected = null;
    this.hovered = null;
    this.details = null;
    this.error = '';
    this.ticket++;
  }

  /** Selects a map node (`e:<id>` entity, `k:…`/`c…` group) and loads its details. */
  async select(key: string | null): Promise<void> {
    const t = ++this.ticket;
    this.selected = key;
    this.error = '';
    if (!key) {
      this.details = null;
      return;
    }
    this.loading = true;
    try {
      if (key.startsWith('e:')) {
        const data = await this.backend.entity(this.doc, Number(key.slice(2)));
        if (t === this.ticket) this.details = { kind: 'entity', key, data };
      } else {
        const data = await this.backend.group(this.doc, key);
        if (t === this.ticket) this.details = { kind: 'group', key, data };
      }
    } catch (e) {
      if (t === this.ticket) {
        this.error = errorText(e);
        this.details = null;
      }
    } finally {
      if (t === this.ticket) this.loading = false;
    }
  }

  /** Follows a link of the details panel to another entity. */
  selectEntity(id: number): Promise<void> {
    return this.select(`e:${id}`);
  }
}
