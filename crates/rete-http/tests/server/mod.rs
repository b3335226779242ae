//! The HTTP server of the tests that read `.rete` files remotely (serve_dir, lazy_dirs).

use rete_build::{BuildOptions, Input, Syntax};
use rete_core::{Id, Pattern, Rete};
use std::path::{Path, PathBuf};

/// Builds a social graph of `people` into `out` with small blocks, so that one pattern touches a
/// few blocks out of many and the block directories have the shape of a large file's; the rest
/// of the options from `opts`.
pub fn build_social(out: &Path, people: u64, opts: BuildOptions) {
    let mut nt = Vec::new();
    let params = rete_datagen::social::SocialParams {
        people,
        ..Default::default()
    };
    rete_datagen::social::write_ntriples(&params, &mut nt).unwrap();
    let opts = BuildOptions {
        inputs: vec![Input::bytes("social.nt", nt, Syntax::NTriples)],
        perm_block_quads: 256,
        dict_block_bytes: 4 << 10,
        ..opts
    };
    rete_build::build(&opts, out).unwrap();
}

/// Asserts that `remote` answers every pattern shape around the quad `[s, p, o]` as `local`
/// does: the same quads and the same counts.
pub fn assert_patterns_agree(local: &Rete, remote: &Rete, [s, p, o]: [Id; 3]) {
    for pat in [
        Pattern::new(Some(s), None, None),
        Pattern::new(None, Some(p), None),
        Pattern::new(None, None, Some(o)),
        Pattern::new(Some(s), Some(p), None),
        Pattern::new(None, Some(p), Some(o)),
        Pattern::new(Some(s), None, Some(o)),
        Pattern::new(Some(s), Some(p), Some(o)),
    ] {
        let want: Vec<_> = local.quads(&pat).unwrap().map(Result::unwrap).collect();
        let got: Vec<_> = remote.quads(&pat).unwrap().map(Result::unwrap).collect();
        assert_eq!(got, want, "{pat:?}");
        assert_eq!(remote.count(&pat).unwrap(), local.count(&pat).unwrap());
    }
}

/// Serves `dir` over HTTP with range support on 127.0.0.1 (`rete_http::serve_dir`); returns
/// the base URL, without a trailing slash.
pub fn serve_dir(dir: PathBuf) -> String {
    rete_http::serve_dir::serve_dir(dir).unwrap()
}
