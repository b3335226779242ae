//! Every RDF syntax's parser as a build runs it (the first byte picks the syntax).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rete_fuzz::rdf(data));
