//! Bodies as sent: Content-Encoding undone (gzip, deflate, brotli), and
//! robots.txt cut to what RFC 9309 asks a crawler to read.

use super::*;

/// The most of a robots.txt read off the wire, compressed or not: the
/// first [`robots::MAX_SIZE`] bytes are what RFC 9309 asks a crawler to
/// parse.
pub(super) const ROBOTS_WIRE_MAX: usize = robots::MAX_SIZE;

/// Decodes a robots.txt body by its Content-Encoding, keeping at most
/// [`robots::MAX_SIZE`] bytes of the result. A body cut on the wire ends
/// its compressed stream early: what decoded before that is kept.
pub fn decode_robots(encoding: &str, body: Vec<u8>) -> std::result::Result<Vec<u8>, Failure> {
    let max = robots::MAX_SIZE;
    let mut out = Vec::new();
    let res = match encoding.trim() {
        "" | "identity" => {
            let mut b = body;
            b.truncate(max);
            return Ok(b);
        }
        "gzip" | "x-gzip" => flate2::read::MultiGzDecoder::new(&body[..])
            .take(max as u64)
            .read_to_end(&mut out),
        "deflate" => match flate2::read::ZlibDecoder::new(&body[..])
            .take(max as u64)
            .read_to_end(&mut out)
        {
            Ok(n) => Ok(n),
            Err(e) if !out.is_empty() => Err(e),
            Err(_) => {
                out.clear();
                flate2::read::DeflateDecoder::new(&body[..])
                    .take(max as u64)
                    .read_to_end(&mut out)
            }
        },
        "br" => brotli_decompressor::Decompressor::new(&body[..], 4096)
            .take(max as u64)
            .read_to_end(&mut out),
        other => return Err(Failure::Decode(format!("unknown content encoding {other}"))),
    };
    match res {
        Ok(_) => Ok(out),
        // A stream cut short still gave its beginning.
        Err(_) if !out.is_empty() => Ok(out),
        Err(e) => Err(Failure::Decode(e.to_string())),
    }
}

/// Decodes a body by its Content-Encoding, refusing output beyond `max`.
pub fn decode_body(
    encoding: &str,
    body: Vec<u8>,
    max: u64,
) -> std::result::Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    let res = match encoding.trim() {
        "" | "identity" => return Ok(body),
        "gzip" | "x-gzip" => flate2::read::MultiGzDecoder::new(&body[..])
            .take(max + 1)
            .read_to_end(&mut out),
        // "deflate" is zlib-wrapped by the standard, raw by some servers.
        "deflate" => match flate2::read::ZlibDecoder::new(&body[..])
            .take(max + 1)
            .read_to_end(&mut out)
        {
            Ok(n) => Ok(n),
            Err(_) => {
                out.clear();
                flate2::read::DeflateDecoder::new(&body[..])
                    .take(max + 1)
                    .read_to_end(&mut out)
            }
        },
        "br" => brotli_decompressor::Decompressor::new(&body[..], 4096)
            .take(max + 1)
            .read_to_end(&mut out),
        other => return Err(Failure::Decode(format!("unknown content encoding {other}"))),
    };
    match res {
        Ok(_) if out.len() as u64 > max => Err(Failure::TooLarge),
        Ok(_) => Ok(out),
        Err(e) => Err(Failure::Decode(e.to_string())),
    }
}
