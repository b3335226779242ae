//! Static file servers with HTTP `Range` support on 127.0.0.1 (feature `serve-dir`), for the
//! tests that read `.rete` files over HTTP (this crate's and the CLI's): axum and tower-http's
//! `ServeDir` on a tokio runtime of its own (one range per request: several get 416), and
//! nginx (several ranges answered at once, `multipart/byteranges`).

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

/// An nginx process of the tests (static files, or a proxy set-up of docs/serve.md), on
/// 127.0.0.1; stopped when dropped.
#[derive(Debug)]
pub struct Nginx {
    child: std::process::Child,
    pid_file: PathBuf,
}

impl Nginx {
    /// Starts nginx with `http_block` as the contents of its `http { }` block, its pid and
    /// temporary files in `work`, and waits until `port` accepts connections.
    pub fn start(work: &std::path::Path, http_block: &str, port: u16) -> std::io::Result<Self> {
        let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "this test needs nginx: apt-get install nginx-light (scripts/setup.sh)",
                )
            })?;
        let p = work.display();
        let conf = work.join("nginx.conf");
        std::fs::write(
            &conf,
            format!(
                "daemon off;\nuser root;\npid {p}/nginx.pid;\nerror_log stderr;\nevents {{}}\n\
                 http {{\naccess_log off;\nclient_body_temp_path {p}/body;\n\
                 proxy_temp_path {p}/proxy;\nfastcgi_temp_path {p}/fastcgi;\n\
                 uwsgi_temp_path {p}/uwsgi;\nscgi_temp_path {p}/scgi;\n{http_block}}}\n"
            ),
        )?;
        let child = std::process::Command::new(binary)
            .args(["-p", &p.to_string(), "-e", "stderr", "-c"])
            .arg(&conf)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()?;
        let nginx = Self {
            child,
            pid_file: work.join("nginx.pid"),
        };
        // Up once it accepts a connection (it binds before serving; no fixed sleep).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if std::time::Instant::now() > deadline {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "nginx did not start within 20 s",
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        Ok(nginx)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM to the master (its pid file) lets it stop its workers too.
        let pid =
            std::fs::read_to_string(&self.pid_file).unwrap_or_else(|_| self.child.id().to_string());
        let _ = std::process::Command::new("kill")
            .args(["-TERM", pid.trim()])
            .status();
        let _ = self.child.wait();
    }
}

/// A free port of 127.0.0.1 (bound, then released for a server to take).
pub fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// Serves `dir` with nginx (static files: `Range`, several ranges as `multipart/byteranges`,
/// ETag, `If-Match`), its own files in `work`; returns it and the base URL, without a trailing
/// slash.
pub fn serve_dir_nginx(
    dir: &std::path::Path,
    work: &std::path::Path,
) -> std::io::Result<(Nginx, String)> {
    let port = free_port()?;
    let block = format!(
        "server {{\nlisten 127.0.0.1:{port};\nroot {};\nlocation / {{ }}\n}}\n",
        dir.display()
    );
    Ok((
        Nginx::start(work, &block, port)?,
        format!("http://127.0.0.1:{port}"),
    ))
}
