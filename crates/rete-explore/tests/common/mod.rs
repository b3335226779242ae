//! Test helpers shared by the app's integration tests.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

/// Serves the file at `path` (see [`serve`]) and opens its URL in `store`: (URL, document).
#[allow(dead_code, reason = "not every test file opens a served file")]
pub fn open_served(
    store: &rete_explore::store::Store,
    path: &std::path::Path,
    requests: usize,
) -> (String, rete_explore::model::DocInfo) {
    let url = serve(std::fs::read(path).unwrap(), requests);
    let info = rete_explore::ops::open_url(store, &url).unwrap();
    (url, info)
}

/// Serves `bytes` over HTTP/1.1 on 127.0.0.1 with `Range` support, for `requests` requests. A
/// malformed or unsatisfiable range gets a 416, as from a real server (never a panic in the
/// server thread, which the client would only see as a dropped connection).
pub fn serve(bytes: Vec<u8>, requests: usize) -> String {
    serve_with(bytes, requests, |_, _| None)
}

#[allow(dead_code, reason = "not every test file refuses a range")]
/// [`serve`], where `answer(first, last)` sees each satisfiable range asked for (inclusive, as
/// in the header) and may answer it with an error status instead of its bytes.
pub fn serve_with(
    bytes: Vec<u8>,
    requests: usize,
    mut answer: impl FnMut(usize, usize) -> Option<u16> + Send + 'static,
) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port on 127.0.0.1");
    let addr = listener.local_addr().expect("the bound address");
    std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let Ok(mut stream) = stream else { return };
            let Ok(read_half) = stream.try_clone() else {
                return;
            };
            let mut reader = BufReader::new(read_half);
            let mut range = None;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("range: bytes=") {
                    range = Some(v.trim().split_once('-').and_then(|(a, b)| {
                        Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?))
                    }));
                }
            }
            let total = bytes.len();
            let (a, b) = match range {
                None => (0, total.saturating_sub(1)),
                Some(Some((a, b))) if a <= b && a < total => (a, b.min(total - 1)),
                Some(_) => {
                    let head = format!(
                        "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */{total}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    );
                    let _ = stream.write_all(head.as_bytes());
                    continue;
                }
            };
            if let Some(status) = answer(a, b) {
                let head = format!(
                    "HTTP/1.1 {status} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                let _ = stream.write_all(head.as_bytes());
                continue;
            }
            let body = &bytes[a..=b];
            let head = format!(
                "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {a}-{b}/{total}\r\nAccept-Ranges: bytes\r\nETag: \"e2e\"\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body);
        }
    });
    format!("http://{addr}/social-1k.rete")
}

/// A server on 127.0.0.1 answering every request with a 302 to `to`; returns its URL.
#[allow(dead_code, reason = "not every test file follows a redirect")]
pub fn redirect_to(to: String) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port on 127.0.0.1");
    let addr = listener.local_addr().expect("the bound address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let Ok(read_half) = stream.try_clone() else {
                return;
            };
            let mut reader = BufReader::new(read_half);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && !line.ends_with("\r\n\r\n") {}
            let head = format!(
                "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            let _ = stream.write_all(head.as_bytes());
        }
    });
    format!("http://{addr}/moved.rete")
}
