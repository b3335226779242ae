//! A static file server with HTTP `Range` support on 127.0.0.1 (feature `serve-dir`): axum and
//! tower-http's `ServeDir` on a tokio runtime of its own, for the tests that read `.rete` files
//! over HTTP (this crate's and the CLI's).

use axum::serve::ListenerExt;
use std::path::PathBuf;

/// Serves `dir` on a free port of 127.0.0.1 from a background thread, for the rest of the
/// process; returns the base URL, without a trailing slash.
pub fn serve_dir(dir: PathBuf) -> std::io::Result<String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let base = format!("http://{}", listener.local_addr()?);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let listener = {
        let _runtime = rt.enter();
        tokio::net::TcpListener::from_std(listener)?
    };
    std::thread::spawn(move || {
        rt.block_on(async move {
            // Like production servers: no Nagle delay between headers and body.
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let app =
                axum::Router::new().fallback_service(tower_http::services::ServeDir::new(dir));
            // Serves until the process ends; should the accept loop fail, the reader's own
            // requests fail and say so.
            let _ = axum::serve(listener, app).await;
        });
    });
    Ok(base)
}
