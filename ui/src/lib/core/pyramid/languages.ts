// The languages community labels are shown in: the webview's `navigator.languages`, handed to the
// shell once at start, before any file opens. The shell names each community of the pyramid in
// the first of them it has a label in, then English, then any (docs/semantic-zoom.md).
import type { Backend } from '../backend';

/** What is read of `navigator`. */
export interface NavigatorLanguages {
  readonly languages?: readonly string[];
  readonly language?: string;
}

/** BCP 47 tags, most preferred first: `navigator.languages`, else `navigator.language`; blanks
 * and repeats (case-insensitive) dropped. */
export function userLanguages(nav: NavigatorLanguages | undefined): string[] {
  const raw = nav?.languages?.length ? nav.languages : nav?.language ? [nav.language] : [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const tag of raw) {
    const t = tag.trim();
    if (!t || t === '*' || seen.has(t.toLowerCase())) continue;
    seen.add(t.toLowerCase());
    out.push(t);
  }
  return out;
}

export class LabelLanguages {
  /** The languages sent to the shell (empty: it uses the OS locale). */
  languages: string[] = [];

  constructor(
    private readonly backend: Backend,
    private readonly nav: NavigatorLanguages | undefined = typeof navigator === 'undefined' ? undefined : navigator,
  ) {}

  /** Sends the user's languages to the shell; without any, or if that fails, the shell keeps the
   * OS locale's, so a failure here never stops a file from opening. */
  async apply(): Promise<void> {
    this.languages = userLanguages(this.nav);
    if (!this.languages.length) return;
    try {
      await this.backend.setLanguages(this.languages);
    } catch {
      this.languages = [];
    }
  }
}
