//! The HTTP server of the tests that read `.rete` files remotely (serve_dir, lazy_dirs).

use axum::serve::ListenerExt;
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

/// Serves `dir` on a free port of 127.0.0.1; returns the base URL.
pub fn serve_dir(dir: PathBuf) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            // Like production servers: no Nagle delay between headers and body.
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let app =
                axum::Router::new().fallback_service(tower_http::services::ServeDir::new(dir));
            axum::serve(listener, app).await.unwrap();
        });
    });
    base
}
