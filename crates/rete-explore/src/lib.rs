#![doc = include_str!("../README.md")]

pub mod cache;
pub mod engine;
pub mod import;
pub mod index;
pub mod key;
pub mod model;
pub mod ops;
#[cfg(test)]
mod protocol_ts;
mod source;
pub mod store;
pub mod trace;
pub mod view;
pub mod wire;
