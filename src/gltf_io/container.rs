//! The two containers of a glTF document: `.gltf` (JSON) and `.glb` (binary chunks).

use super::error::ErrorKind;

const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The container a document came in or goes out in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// JSON text with external or embedded buffers.
    Gltf,
    /// Binary container with a JSON chunk and an optional BIN chunk.
    Glb,
}

impl Format {
    /// The format for an output path, by its extension: `.gltf` is JSON; `.glb`, `.vrm`, `.vrma`
    /// are binary.
    pub fn for_path(path: &std::path::Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "gltf" => Some(Format::Gltf),
            "glb" | "vrm" | "vrma" => Some(Format::Glb),
            _ => None,
        }
    }
}

/// A document split into its JSON text and its binary chunk, if any.
pub(crate) struct Split<'a> {
    pub format: Format,
    pub json: &'a [u8],
    pub bin: Option<&'a [u8]>,
}

/// Splits file bytes into JSON and BIN. Checks every length before using it.
pub(crate) fn split(bytes: &[u8]) -> Result<Split<'_>, ErrorKind> {
    if bytes.len() >= 4 && &bytes[..4] == GLB_MAGIC {
        return split_glb(bytes);
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Ok(Split {
            format: Format::Gltf,
            json: text,
            bin: None,
        }),
        Some(_) => Err(ErrorKind::NotGltf(
            "it starts with neither `glTF` nor `{`".into(),
        )),
        None => Err(ErrorKind::NotGltf("the file is empty".into())),
    }
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn split_glb(bytes: &[u8]) -> Result<Split<'_>, ErrorKind> {
    let glb = |m: String| ErrorKind::Glb(m);
    let version = u32_at(bytes, 4).ok_or_else(|| glb("truncated header".into()))?;
    if version != 2 {
        return Err(glb(format!("version {version} is not supported (only 2)")));
    }
    let length = u32_at(bytes, 8).ok_or_else(|| glb("truncated header".into()))? as usize;
    if length > bytes.len() {
        return Err(glb(format!(
            "header says {length} bytes but the file has {} (truncated?)",
            bytes.len()
        )));
    }
    if length < 20 {
        return Err(glb(format!(
            "header length {length} is too small for a JSON chunk"
        )));
    }
    let body = &bytes[..length];
    let mut at = 12usize;
    let mut json = None;
    let mut bin = None;
    while at < body.len() {
        let len = u32_at(body, at).ok_or_else(|| glb(format!("truncated chunk header at {at}")))?;
        let ty =
            u32_at(body, at + 4).ok_or_else(|| glb(format!("truncated chunk header at {at}")))?;
        let start = at + 8;
        let end = start
            .checked_add(len as usize)
            .filter(|&e| e <= body.len())
            .ok_or_else(|| {
                glb(format!(
                    "chunk at byte {at} claims {len} bytes past the end"
                ))
            })?;
        match ty {
            CHUNK_JSON if json.is_none() && at == 12 => json = Some(&body[start..end]),
            CHUNK_JSON => return Err(glb("a second or misplaced JSON chunk".into())),
            CHUNK_BIN if bin.is_none() && json.is_some() => bin = Some(&body[start..end]),
            CHUNK_BIN => return Err(glb("a second or misplaced BIN chunk".into())),
            _ => {} // unknown chunks are skipped, as the specification asks
        }
        at = end.checked_add(3).map_or(end, |e| e & !3).max(end);
    }
    let json = json.ok_or_else(|| glb("the first chunk is not JSON".into()))?;
    Ok(Split {
        format: Format::Glb,
        json,
        bin,
    })
}

/// Bytes of padding after `n` bytes to reach a multiple of 4.
pub(crate) fn pad(n: usize) -> usize {
    (4 - n % 4) % 4
}

/// The bytes before a GLB's JSON text: its header and the JSON chunk's header, which
/// [`glb_head_over`] writes over.
pub(crate) const HEAD_ROOM: usize = 20;

/// The start of a GLB file up to its binary chunk's data: the header, the JSON chunk (`json`
/// padded with spaces) and, when `bin_len` is given, the binary chunk's header for `bin_len`
/// bytes of data (which follow, then zeros to a multiple of 4).
#[cfg(test)]
pub(crate) fn glb_head(json: &[u8], bin_len: Option<usize>) -> Vec<u8> {
    let mut buf = Vec::with_capacity(HEAD_ROOM + json.len() + 11);
    buf.resize(HEAD_ROOM, 0);
    buf.extend_from_slice(json);
    glb_head_over(buf, bin_len)
}

/// [`glb_head`] of the JSON text that follows the first [`HEAD_ROOM`] bytes of `buf` (their
/// values do not matter), made where it is: the JSON is not copied.
pub(crate) fn glb_head_over(mut buf: Vec<u8>, bin_len: Option<usize>) -> Vec<u8> {
    let json = buf.len().saturating_sub(HEAD_ROOM);
    buf.resize(HEAD_ROOM + json, 0);
    let json_len = json + pad(json);
    let bin_chunk = bin_len.map(|b| b + pad(b));
    let total = 12 + 8 + json_len + bin_chunk.map_or(0, |b| 8 + b);
    let mut head = [0u8; HEAD_ROOM];
    head[..4].copy_from_slice(GLB_MAGIC);
    head[4..8].copy_from_slice(&2u32.to_le_bytes());
    head[8..12].copy_from_slice(&(total as u32).to_le_bytes());
    head[12..16].copy_from_slice(&(json_len as u32).to_le_bytes());
    head[16..20].copy_from_slice(&CHUNK_JSON.to_le_bytes());
    buf[..HEAD_ROOM].copy_from_slice(&head);
    buf.resize(HEAD_ROOM + json_len, b' ');
    if let Some(b) = bin_chunk {
        buf.extend_from_slice(&(b as u32).to_le_bytes());
        buf.extend_from_slice(&CHUNK_BIN.to_le_bytes());
    }
    buf
}

/// Builds a GLB file from JSON text and an optional binary chunk, padding both to 4 bytes.
#[cfg(test)]
pub(crate) fn join_glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
    let mut out = glb_head(json, bin.map(<[u8]>::len));
    if let Some(bin) = bin {
        out.extend_from_slice(bin);
        out.resize(out.len() + pad(bin.len()), 0);
    }
    out
}

/// Calls `f` with the path and JSON text of every glTF, GLB, VRM and VRMA file of the fixtures
/// and of the shared assets beside the repository (none of those when absent), in path order:
/// what the tests that compare two ways of reading JSON walk.
#[cfg(test)]
pub(crate) fn each_fixture_and_asset_json(mut f: impl FnMut(&std::path::Path, &[u8])) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = walkdir::WalkDir::new(root.join("fixtures"))
        .into_iter()
        .chain(walkdir::WalkDir::new(root.join("../shared/assets")))
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            ["gltf", "glb", "vrm", "vrma"].contains(&ext.to_ascii_lowercase().as_str())
        })
        .collect();
    files.sort();
    for path in &files {
        let bytes = std::fs::read(path).unwrap_or_default();
        if let Ok(parts) = split(&bytes) {
            f(path, parts.json);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glb_round_trip() {
        let bytes = join_glb(br#"{"asset":{"version":"2.0"}}"#, Some(&[1, 2, 3]));
        assert_eq!(bytes.len() % 4, 0);
        let s = split(&bytes).unwrap();
        assert_eq!(s.format, Format::Glb);
        assert!(s.json.starts_with(b"{\"asset\""));
        assert_eq!(&s.bin.unwrap()[..3], &[1, 2, 3]);
    }

    #[test]
    fn damaged_headers_are_errors() {
        let good = join_glb(b"{}", None);
        for cut in 0..good.len() {
            let _ = split(&good[..cut]); // must not panic
        }
        let mut short = good.clone();
        short[8..12].copy_from_slice(&4u32.to_le_bytes());
        assert!(split(&short).is_err());
        let mut huge = good;
        huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(split(&huge).is_err());
    }
}
