//! The HTTP server of the tests that read `.rete` files remotely (serve_dir, lazy_dirs).

use axum::serve::ListenerExt;
use std::path::PathBuf;

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
