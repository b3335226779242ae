// Generated from the Rust types of crates/rete-explore (src/protocol_ts.rs): do not edit.
// RETE_WRITE_TS=1 cargo test -p rete-explore protocol writes it anew.
// The app's command protocol as TypeScript types (ts-rs's translation of each Rust type the
// shell and the page exchange), one file per part under protocol/.
export type * from './protocol/document.gen';
export type * from './protocol/map.gen';
export type * from './protocol/query.gen';
export type * from './protocol/reports.gen';
export type * from './protocol/find.gen';
export type * from './protocol/views.gen';
