//! The zstd frame codec of every section and block: one decoder per thread with one size
//! limit and ratio, frames decoded with a file's zstd dictionary (format 1.2), and the writers'
//! side, frames kept within the ratio a reader accepts.

use super::{ratio_ok, MAX_RAW_LEN, MAX_ZSTD_RATIO};
use crate::error::{Error, Result};

/// Largest declared size [`zstd_decode`] reserves up front; beyond it the output grows with what
/// the frame really decodes to, so a lying size costs nothing.
const ZSTD_PREALLOC: u64 = 16 << 20;

thread_local! {
    /// Each thread's zstd decoder, kept between blocks: a new one per block (what
    /// `zstd::bulk::decompress` makes) allocates and maps its ~100 KiB of context every time.
    static DECODER: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// `zstd::bulk::decompress` on this thread's decoder.
fn bulk_decompress(stored: &[u8], capacity: usize) -> std::io::Result<Vec<u8>> {
    DECODER.with(|d| match d.try_borrow_mut() {
        Ok(mut d) => {
            let d = match d.as_mut() {
                Some(d) => d,
                None => d.insert(zstd::bulk::Decompressor::new()?),
            };
            d.decompress(stored, capacity)
        }
        // Not reached (nothing here calls back into it); a fresh decoder would do.
        Err(_) => zstd::bulk::decompress(stored, capacity),
    })
}

/// Whether a zstd frame of `stored_len` bytes may declare `raw_len` decoded bytes: at most
/// [`MAX_RAW_LEN`], within [`MAX_ZSTD_RATIO`]. Checked by [`zstd_decode`], and before a decoded
/// length is charged to a document's decode budget (a section its own rules refuse is reported
/// as such).
pub fn check_declared(
    stored_len: u64,
    raw_len: u64,
    file: &str,
    section: &dyn Fn() -> String,
) -> Result<()> {
    if raw_len > MAX_RAW_LEN {
        return Err(Error::corrupt(
            file,
            section(),
            format!("declared size {raw_len} exceeds the limit"),
        ));
    }
    if !ratio_ok(stored_len, raw_len) {
        return Err(Error::corrupt(
            file,
            section(),
            format!(
                "{stored_len} stored bytes declare {raw_len} decoded bytes, beyond the \
                 {MAX_ZSTD_RATIO}:1 limit"
            ),
        ));
    }
    Ok(())
}

/// Decompresses a zstd frame whose decoded size is declared as `raw_len`; refuses anything else.
/// The one zstd decoder of every section and block (core, pyramid, schema), with one size limit:
/// [`MAX_RAW_LEN`].
pub fn zstd_decode(
    stored: &[u8],
    raw_len: u64,
    file: &str,
    section: &dyn Fn() -> String,
) -> Result<Vec<u8>> {
    zstd_decode_with(stored, raw_len, None, file, section)
}

thread_local! {
    /// Each thread's zstd context for frames compressed with a dictionary (the dictionary is
    /// the file's, passed at each call).
    static DICT_DECODER: std::cell::RefCell<Option<zstd::zstd_safe::DCtx<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// [`zstd_decode`] of a frame compressed with `dict` (a file's [`kind::DICT_ZSTD`](super::kind::DICT_ZSTD)), if any.
pub fn zstd_decode_with(
    stored: &[u8],
    raw_len: u64,
    dict: Option<&zstd::zstd_safe::DDict<'static>>,
    file: &str,
    section: &dyn Fn() -> String,
) -> Result<Vec<u8>> {
    check_declared(stored.len() as u64, raw_len, file, section)?;
    let zerr = |e: std::io::Error| Error::corrupt(file, section(), format!("zstd: {e}"));
    let out = if let Some(dict) = dict {
        // Blocks compressed with a dictionary are a dictionary block's size (at most
        // MAX_DICT_BLOCK_RAW, checked with the directory), so the output is reserved whole.
        let mut out = Vec::with_capacity(raw_len as usize);
        DICT_DECODER
            .with(|d| -> std::io::Result<()> {
                let mut d = d
                    .try_borrow_mut()
                    .map_err(|_| std::io::Error::other("decoder in use"))?;
                let d = match d.as_mut() {
                    Some(d) => d,
                    None => d
                        .insert(zstd::zstd_safe::DCtx::try_create().ok_or_else(|| {
                            std::io::Error::other("cannot create a zstd context")
                        })?),
                };
                d.decompress_using_ddict(&mut out, stored, dict)
                    .map(|_| ())
                    .map_err(|code| std::io::Error::other(zstd::zstd_safe::get_error_name(code)))
            })
            .map_err(zerr)?;
        out
    } else if raw_len <= ZSTD_PREALLOC {
        bulk_decompress(stored, raw_len as usize).map_err(zerr)?
    } else {
        use std::io::Read;
        let mut out = Vec::with_capacity(ZSTD_PREALLOC as usize);
        zstd::stream::read::Decoder::with_buffer(stored)
            .map_err(zerr)?
            .take(raw_len + 1)
            .read_to_end(&mut out)
            .map_err(zerr)?;
        out
    };
    if out.len() as u64 != raw_len {
        return Err(Error::corrupt(
            file,
            section(),
            format!("decoded {} bytes, expected {raw_len}", out.len()),
        ));
    }
    Ok(out)
}

/// Largest block of a stored zstd frame (the format's `Block_Maximum_Size`).
const STORED_BLOCK: usize = 128 << 10;

/// `data` as a zstd frame of stored (uncompressed) blocks: any zstd decoder reads it, and its
/// ratio is below 1.
pub fn zstd_stored_frame(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 16 + 3 * (data.len() / STORED_BLOCK + 1));
    out.extend_from_slice(&0xFD2F_B528u32.to_le_bytes());
    // Frame header: single segment, 8-byte content size, no checksum, no dictionary.
    out.push(0xE0);
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let mut chunks = data.chunks(STORED_BLOCK).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0]);
    }
    while let Some(chunk) = chunks.next() {
        // Block header: last-block bit, type 0 (raw), size.
        let head = (chunk.len() as u32) << 3 | u32::from(chunks.peek().is_none());
        out.extend_from_slice(&head.to_le_bytes()[..3]);
        out.extend_from_slice(chunk);
    }
    out
}

/// `frame` if its ratio to `data` is one a reader accepts ([`ratio_ok`]), else `data` in a
/// stored frame: every frame a writer makes is one a reader decodes.
pub fn within_ratio(data: &[u8], frame: Vec<u8>) -> Vec<u8> {
    if ratio_ok(frame.len() as u64, data.len() as u64) {
        frame
    } else {
        zstd_stored_frame(data)
    }
}

/// `data` compressed at `level` as one zstd frame within [`MAX_ZSTD_RATIO`]: the compressor of
/// every whole section and page.
pub fn zstd_compress(data: &[u8], level: i32) -> std::io::Result<Vec<u8>> {
    Ok(within_ratio(data, zstd::bulk::compress(data, level)?))
}

/// A zstd compression context reused across the blocks of a writer: a new context per block
/// cost its set-up every time, and the compressed bytes are the same.
#[derive(Default)]
pub(crate) struct Zc(Option<zstd::bulk::Compressor<'static>>);

impl Zc {
    /// `data` compressed at `level` (the same level on every call of one writer), within
    /// [`MAX_ZSTD_RATIO`].
    pub(crate) fn compress(&mut self, level: i32, data: &[u8]) -> std::io::Result<Vec<u8>> {
        let c = match &mut self.0 {
            Some(c) => c,
            None => self.0.insert(zstd::bulk::Compressor::new(level)?),
        };
        Ok(within_ratio(data, c.compress(data)?))
    }
}

impl std::fmt::Debug for Zc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Zc")
    }
}

#[cfg(test)]
mod zc_tests {
    #![allow(clippy::unwrap_used, reason = "test code")]

    /// A reused context gives the bytes a new context gives, block after block, whatever their
    /// sizes (zstd sizes its tables from each input).
    #[test]
    fn reused_context_compresses_like_a_new_one() {
        let mut zc = super::Zc::default();
        for (i, len) in [40_000usize, 10, 0, 300_000, 5_000, 70_000]
            .into_iter()
            .enumerate()
        {
            let data: Vec<u8> = (0..len)
                .map(|k| (((k * 7 + i) % 251) ^ (k >> 9)) as u8)
                .collect();
            for level in [9, 3] {
                let mut z = super::Zc::default();
                assert_eq!(
                    z.compress(level, &data).unwrap(),
                    zstd::bulk::compress(&data, level).unwrap()
                );
            }
            assert_eq!(
                zc.compress(9, &data).unwrap(),
                zstd::bulk::compress(&data, 9).unwrap(),
                "block {i}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thread_decoder_survives_damaged_frames() {
        // One decoder serves every block of a thread: a frame that fails (truncated, garbage,
        // a lying size) must leave it able to decode the next one.
        let a: Vec<u8> = (0..50_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let b = b"a second, shorter block".repeat(40);
        let (za, zb) = (
            zstd::bulk::compress(&a, 3).expect("compress"),
            zstd::bulk::compress(&b, 3).expect("compress"),
        );
        let name = || "test block".to_owned();
        let ok = |z: &[u8], raw: &[u8]| {
            let out = zstd_decode(z, raw.len() as u64, "f", &name).expect("decodes");
            assert_eq!(out, raw);
        };
        ok(&za, &a);
        for bad in [
            (&za[..za.len() / 2], a.len() as u64),
            (&b"not a zstd frame at all"[..], 100),
            (&za[..], a.len() as u64 - 1),
        ] {
            assert!(zstd_decode(bad.0, bad.1, "f", &name).is_err());
            ok(&zb, &b);
            ok(&za, &a);
        }
    }

    #[test]
    fn stored_frames_decode_and_ratios_hold() {
        let name = || "s".to_owned();
        for len in [0usize, 1, 100, 128 << 10, (128 << 10) + 1, 3 << 20] {
            let data: Vec<u8> = (0..len).map(|i| (i % 7) as u8).collect();
            let frame = zstd_stored_frame(&data);
            assert_eq!(zstd_decode(&frame, len as u64, "f", &name).unwrap(), data);
            let bounded = zstd_compress(&data, 3).unwrap();
            assert!(ratio_ok(bounded.len() as u64, len as u64));
            assert_eq!(zstd_decode(&bounded, len as u64, "f", &name).unwrap(), data);
        }
        // 2 MiB of zeros compresses far beyond the ratio: stored instead, and the compressed
        // frame is refused before anything is decoded.
        let zeros = vec![0u8; 2 << 20];
        let tight = zstd::bulk::compress(&zeros, 3).unwrap();
        let e = zstd_decode(&tight, zeros.len() as u64, "f", &name).unwrap_err();
        assert!(e.to_string().contains("32:1"), "{e}");
        assert_eq!(
            zstd_compress(&zeros, 3).unwrap().len(),
            zeros.len() + 13 + 3 * 16
        );
    }
}
