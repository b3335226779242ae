//! The body of a `206 Partial Content` answering several ranges at once: `multipart/byteranges`
//! (RFC 9110 §14.6, framing from RFC 2046 §5.1).
//!
//! Hand-written rather than taken from a crate: the maintained multipart crates (`multer`,
//! `multipart`) parse `multipart/form-data` request bodies on async streams; a byteranges
//! answer is a few framed parts whose lengths its `Content-Range` headers give, so each part's
//! bytes are taken by length, never by searching for the boundary (file bytes may contain it).

/// The boundary of a `multipart/byteranges` content type, `None` for any other type.
pub(super) fn boundary(content_type: &str) -> Option<String> {
    let mut params = content_type.split(';');
    let essence = params.next()?.trim();
    if !essence.eq_ignore_ascii_case("multipart/byteranges") {
        return None;
    }
    params.find_map(|p| {
        let (k, v) = p.split_once('=')?;
        if !k.trim().eq_ignore_ascii_case("boundary") {
            return None;
        }
        let v = v.trim();
        let v = v
            .strip_prefix('"')
            .and_then(|q| q.strip_suffix('"'))
            .unwrap_or(v);
        (!v.is_empty() && v.len() <= 70).then(|| v.to_owned())
    })
}

/// The parts of `body`, framed by `boundary`: each one's first offset and bytes, in the order
/// sent. Every part must name a range of a file of `file_len` bytes and hold exactly its bytes;
/// anything else is an error saying what was found.
pub(super) fn parts(
    body: &[u8],
    boundary: &str,
    file_len: u64,
) -> Result<Vec<(u64, Vec<u8>)>, String> {
    let delimiter = format!("--{boundary}");
    let delimiter = delimiter.as_bytes();
    let mut pos = find(body, delimiter, 0).ok_or("no boundary in the multipart body")?;
    let mut out = Vec::new();
    loop {
        pos += delimiter.len();
        if body[pos..].starts_with(b"--") {
            if out.is_empty() {
                return Err("a multipart body without parts".into());
            }
            return Ok(out);
        }
        pos = line_end(body, pos).ok_or("a boundary line without its end")?;
        let mut range = None;
        loop {
            let end = line_end(body, pos).ok_or("part headers without their end")?;
            let line = std::str::from_utf8(&body[pos..end])
                .map_err(|_| "a part header that is not text")?
                .trim_end();
            pos = end;
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                if k.trim().eq_ignore_ascii_case("content-range") {
                    range = Some(super::parse_content_range(v.trim()).ok_or_else(|| {
                        format!("cannot parse a part's Content-Range {:?}", v.trim())
                    })?);
                }
            }
        }
        let (a, b, total) = range.ok_or("a part without Content-Range")?;
        if total != Some(file_len) {
            return Err(format!(
                "a part names a file of {} bytes, not {file_len}",
                total.map_or_else(|| "unknown".into(), |t| t.to_string())
            ));
        }
        let n = usize::try_from(b - a + 1).map_err(|_| "a part too large")?;
        let data = body
            .get(pos..pos + n)
            .ok_or_else(|| format!("the part of bytes {a}-{b} ends early"))?;
        out.push((a, data.to_vec()));
        pos += n;
        // The CRLF before the next delimiter belongs to it (RFC 2046); exactly that, so a part
        // whose Content-Range names one byte more than it holds is caught.
        if !body[pos..].starts_with(b"\r\n") || !body[pos + 2..].starts_with(delimiter) {
            return Err(format!(
                "the part of bytes {a}-{b} is not followed by a boundary"
            ));
        }
        pos += 2;
    }
}

/// The offset just past the line that starts at `from` (its `\n` included).
fn line_end(body: &[u8], from: usize) -> Option<usize> {
    body.get(from..)?
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| from + i + 1)
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| from + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(parts: &[(u64, &[u8])], len: u64, b: &str) -> Vec<u8> {
        let mut out = b"preamble to ignore\r\n".to_vec();
        for (a, data) in parts {
            out.extend_from_slice(
                format!(
                    "\r\n--{b}\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes {a}-{}/{len}\r\n\r\n",
                    a + data.len() as u64 - 1
                )
                .as_bytes(),
            );
            out.extend_from_slice(data);
        }
        out.extend_from_slice(format!("\r\n--{b}--\r\n").as_bytes());
        out
    }

    #[test]
    fn boundaries() {
        let ct = "multipart/byteranges; boundary=00000000000000000001";
        assert_eq!(boundary(ct).as_deref(), Some("00000000000000000001"));
        assert_eq!(
            boundary("Multipart/ByteRanges;charset=x; Boundary=\"a b\"").as_deref(),
            Some("a b")
        );
        assert_eq!(boundary("application/octet-stream"), None);
        assert_eq!(boundary("multipart/byteranges"), None);
        assert_eq!(boundary("multipart/byteranges; boundary=\"\""), None);
    }

    #[test]
    fn parts_by_length_even_when_the_data_holds_the_boundary() {
        let b = "THIS_STRING_SEPARATES";
        let tricky = format!("x\r\n--{b}\r\ny");
        let raw = body(&[(3, b"abc"), (100, tricky.as_bytes())], 1000, b);
        assert_eq!(
            parts(&raw, b, 1000).unwrap(),
            vec![(3, b"abc".to_vec()), (100, tricky.into_bytes())]
        );
    }

    #[test]
    fn bad_bodies_are_errors() {
        let b = "B";
        let good = body(&[(0, b"abc")], 10, b);
        assert!(parts(&good, b, 11)
            .unwrap_err()
            .contains("10 bytes, not 11"));
        assert!(parts(&good[..good.len() - 12], b, 10).is_err());
        assert!(parts(b"no parts here", b, 10).is_err());
        assert!(parts(b"--B--\r\n", b, 10).is_err());
        let no_range = b"--B\r\nContent-Type: x\r\n\r\nabc\r\n--B--".to_vec();
        assert!(parts(&no_range, b, 10)
            .unwrap_err()
            .contains("without Content-Range"));
        // A part longer than its Content-Range says.
        let long = body(&[(0, b"abc")], 10, b);
        let s = String::from_utf8(long).unwrap().replace("0-2/10", "0-1/10");
        assert!(parts(s.as_bytes(), b, 10)
            .unwrap_err()
            .contains("not followed"));
        // Every prefix of a good body fails cleanly (no panic).
        for n in 0..good.len() {
            let _ = parts(&good[..n], b, 10);
        }
    }
}
