// Generated from the Rust types of crates/rete-explore (src/protocol_ts.rs): do not edit.
// RETE_WRITE_TS=1 cargo test -p rete-explore protocol writes it anew.
// The protocol's types of saved views: the camera and what a view reopens.
import type { DocInfo } from './document.gen';

export type Camera = { 
/**
 * The centre, across (0..1 of the frame).
 */
x: number, 
/**
 * The centre, down (0..1 of the frame).
 */
y: number, 
/**
 * The zoom ratio (1: the whole frame; smaller: closer).
 */
ratio: number, };
export type SavedView = { 
/**
 * Always [`VIEW_FORMAT`].
 */
format: string, 
/**
 * [`VIEW_VERSION`] when written by this build.
 */
version: number, 
/**
 * The file's path or URL.
 */
source: string, 
/**
 * The map's camera (sigma's state: the frame's centre in 0..1 and the zoom ratio).
 */
camera: Camera, 
/**
 * The groups opened, outermost first (map keys such as `c2:40`).
 */
open: Array<string>, 
/**
 * The selected map node (`e:12`, `c1:3`), if any.
 */
selected: string | null, 
/**
 * The class highlighted from the legend (N-Triples), if any.
 */
class: string | null, 
/**
 * The query pane's text, if the pane was open.
 */
query: string | null, 
/**
 * The query's default graph is the union of all graphs.
 */
allGraphs: boolean | null, 
/**
 * The coherence report's selected row: `cause:K` (a root cause) or `finding:I` (a finding),
 * indices into the report, which is the same for the same file.
 */
finding: string | null, };
export type OpenedView = { 
/**
 * The document, open.
 */
doc: DocInfo, 
/**
 * The view to restore on it.
 */
view: SavedView, };
