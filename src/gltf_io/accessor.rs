//! Reading accessor data (skins and animations) with every offset and count checked, including
//! sparse accessors and buffer views compressed with `EXT_meshopt_compression`.

use super::buffers::BufferData;
use super::error::{invalid, ErrorKind};
use super::read_keys::{Located, Location};
use crate::model::TrackValue;
use gltf::json::accessor::{ComponentType, GenericComponentType, Type};
use gltf::json::validation::Checked;
use gltf::json::Root;
use std::collections::HashMap;
use std::sync::Arc;

/// Most floats one accessor may hold (256 MiB of f32): more is refused, not allocated.
const MAX_FLOATS: u64 = 64 << 20;
/// Most bytes skelnorm decompresses from meshopt views of one file.
const MAX_DECODED: usize = 512 << 20;

/// Bytes from a view's start to the end of an accessor's last element: `offset` plus
/// `count - 1` strides plus one element; `None` on overflow.
pub(crate) fn span(offset: u64, stride: u64, count: u64, elem: u64) -> Option<u64> {
    match count {
        0 => Some(0),
        n => (n - 1)
            .checked_mul(stride)?
            .checked_add(elem)?
            .checked_add(offset),
    }
}

/// Where the elements of an accessor of plain floats lie: the address of the first and the
/// stride.
type Placed = (usize, usize);

/// Reads accessors of one document.
pub(crate) struct Data<'a> {
    root: &'a Root,
    buffers: &'a [BufferData],
    decoded: HashMap<usize, Vec<u8>>,
    /// Bytes decompressed so far.
    decoded_total: usize,
    /// Key times by accessor, and whether they are finite and non-decreasing: samplers of one
    /// animation usually share their input.
    times: HashMap<usize, (Arc<[f32]>, bool)>,
    /// Whether the tracks read keep their values (see `read::Keys`).
    pub keep_keys: bool,
    /// Where the values of each track read from plain floats lie (see `read_keys.rs`).
    pub located: Located,
}

fn components(t: Type) -> usize {
    match t {
        Type::Scalar => 1,
        Type::Vec2 => 2,
        Type::Vec3 => 3,
        Type::Vec4 | Type::Mat2 => 4,
        Type::Mat3 => 9,
        Type::Mat4 => 16,
    }
}

fn type_name(t: Type) -> &'static str {
    match t {
        Type::Scalar => "SCALAR",
        Type::Vec2 => "VEC2",
        Type::Vec3 => "VEC3",
        Type::Vec4 => "VEC4",
        Type::Mat2 => "MAT2",
        Type::Mat3 => "MAT3",
        Type::Mat4 => "MAT4",
    }
}

/// The first `N` little-endian floats of `bytes`, which holds at least `4 * N` bytes (else all
/// are 0). One length check, then loads at fixed offsets: a few whole-word loads per element.
#[inline(always)]
pub(super) fn le_floats<const N: usize>(bytes: &[u8]) -> [f32; N] {
    let mut out = [0.0; N];
    if bytes.len() >= 4 * N {
        for (c, o) in out.iter_mut().enumerate() {
            let b = [
                bytes[4 * c],
                bytes[4 * c + 1],
                bytes[4 * c + 2],
                bytes[4 * c + 3],
            ];
            *o = f32::from_le_bytes(b);
        }
    }
    out
}

fn read_component(bytes: &[u8], ct: ComponentType, normalized: bool) -> f32 {
    let b = bytes;
    match ct {
        ComponentType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        ComponentType::I8 if normalized => (b[0] as i8 as f32 / 127.0).max(-1.0),
        ComponentType::I8 => b[0] as i8 as f32,
        ComponentType::U8 if normalized => b[0] as f32 / 255.0,
        ComponentType::U8 => b[0] as f32,
        ComponentType::I16 => {
            let v = i16::from_le_bytes([b[0], b[1]]) as f32;
            if normalized {
                (v / 32767.0).max(-1.0)
            } else {
                v
            }
        }
        ComponentType::U16 => {
            let v = u16::from_le_bytes([b[0], b[1]]) as f32;
            if normalized {
                v / 65535.0
            } else {
                v
            }
        }
        ComponentType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
    }
}

/// The `EXT_meshopt_compression` extension of buffer view `view`, when it is compressed.
pub(crate) fn meshopt(view: &gltf::json::buffer::View) -> Option<&serde_json::Value> {
    view.extensions
        .as_ref()
        .and_then(|e| e.others.get("EXT_meshopt_compression"))
}

impl<'a> Data<'a> {
    pub fn new(root: &'a Root, buffers: &'a [BufferData]) -> Self {
        Data {
            root,
            buffers,
            decoded: HashMap::new(),
            decoded_total: 0,
            times: HashMap::new(),
            keep_keys: true,
            located: Located::default(),
        }
    }

    /// The bytes of buffer view `v`, decompressed if it uses `EXT_meshopt_compression`.
    fn view_bytes(&mut self, v: usize) -> Result<&[u8], ErrorKind> {
        // Named only in an error: not formatted for every accessor read.
        let at = || format!("bufferViews[{v}]");
        let view = self
            .root
            .buffer_views
            .get(v)
            .ok_or_else(|| invalid(at(), "does not exist"))?;
        if let Some(ext) = meshopt(view) {
            if !self.decoded.contains_key(&v) {
                let bytes = self.decode_meshopt(ext, view.byte_length.0, &at())?;
                self.decoded.insert(v, bytes);
            }
            return Ok(&self.decoded[&v]);
        }
        let b = view.buffer.value();
        let offset = view.byte_offset.map_or(0, |o| o.0);
        let len = view.byte_length.0;
        match super::buffers::slice(self.buffers, b as u64, offset, len, "") {
            Ok(Some(bytes)) => Ok(bytes),
            // Again with the view's name, for the error.
            _ => self.range(b, offset, len, &at()),
        }
    }

    fn range(&self, b: usize, offset: u64, len: u64, at: &str) -> Result<&'a [u8], ErrorKind> {
        super::buffers::slice(self.buffers, b as u64, offset, len, at)?
            .ok_or_else(|| invalid(at, format!("buffer {b} holds no data (a fallback buffer)")))
    }

    fn decode_meshopt(
        &mut self,
        ext: &serde_json::Value,
        len: u64,
        at: &str,
    ) -> Result<Vec<u8>, ErrorKind> {
        let num = |k: &str| ext.get(k).and_then(serde_json::Value::as_u64);
        let text = |k: &str| ext.get(k).and_then(serde_json::Value::as_str);
        let (Some(b), Some(len_c), Some(stride), Some(count)) = (
            num("buffer"),
            num("byteLength"),
            num("byteStride"),
            num("count"),
        ) else {
            return Err(invalid(
                at,
                "EXT_meshopt_compression lacks buffer, byteLength, byteStride or count",
            ));
        };
        let src = self.range(b as usize, num("byteOffset").unwrap_or(0), len_c, at)?;
        let mode = text("mode").unwrap_or("");
        let filter = text("filter").unwrap_or("NONE");
        if mode != "ATTRIBUTES" {
            return Err(invalid(
                at,
                format!("meshopt mode `{mode}` is not used for skins or animations"),
            ));
        }
        // The decoder writes count × byteStride bytes, within the view.
        stride
            .checked_mul(count)
            .filter(|&n| n <= len && n as usize <= MAX_DECODED)
            .ok_or_else(|| invalid(at, "meshopt count × byteStride exceeds byteLength"))?;
        if stride == 0 || stride > 256 || stride % 4 != 0 {
            return Err(invalid(
                at,
                format!("meshopt byteStride {stride} must be 4..=256 and a multiple of 4"),
            ));
        }
        // The room is the view's whole length, which is what is allocated (a fallback buffer
        // without data bounds no view), and it is taken before decoding.
        let total = usize::try_from(len)
            .ok()
            .map(|room| room.saturating_add(self.decoded_total));
        match total.filter(|&total| total <= MAX_DECODED) {
            Some(total) => self.decoded_total = total,
            None => return Err(invalid(at, "decompressed data would exceed 512 MiB")),
        }
        let filter_ok = match filter {
            "NONE" => true,
            "OCTAHEDRAL" => stride == 4 || stride == 8,
            "QUATERNION" => stride == 8,
            "EXPONENTIAL" => true,
            _ => false,
        };
        if !filter_ok {
            return Err(invalid(
                at,
                format!("meshopt filter `{filter}` with byteStride {stride} is not valid"),
            ));
        }
        let mut out = vec![0u8; len as usize];
        let (count, stride) = (count as usize, stride as usize);
        // SAFETY: `out` holds at least count × stride bytes (checked above), and stride is within
        // the decoder's documented range (4..=256, a multiple of 4); `src` is a valid slice.
        let rc = unsafe {
            meshopt::ffi::meshopt_decodeVertexBuffer(
                out.as_mut_ptr().cast(),
                count,
                stride,
                src.as_ptr(),
                src.len(),
            )
        };
        if rc != 0 {
            return Err(invalid(
                at,
                format!("meshopt data does not decode (code {rc})"),
            ));
        }
        // SAFETY: as above; each filter's stride requirement was checked by `filter_ok`.
        unsafe {
            let p = out.as_mut_ptr().cast();
            match filter {
                "OCTAHEDRAL" => meshopt::ffi::meshopt_decodeFilterOct(p, count, stride),
                "QUATERNION" => meshopt::ffi::meshopt_decodeFilterQuat(p, count, stride),
                "EXPONENTIAL" => meshopt::ffi::meshopt_decodeFilterExp(p, count, stride),
                _ => {}
            }
        }
        Ok(out)
    }

    /// A SCALAR accessor of key times, decoded once and kept: samplers share their inputs.
    pub fn key_times(&mut self, index: usize) -> Result<&[f32], ErrorKind> {
        Ok(&self.checked_key_times(index)?.0)
    }

    /// [`key_times`](Self::key_times) and whether they are finite and non-decreasing (checked
    /// once per accessor).
    pub fn checked_key_times(&mut self, index: usize) -> Result<&(Arc<[f32]>, bool), ErrorKind> {
        if !self.times.contains_key(&index) {
            let (times, _) = self.floats(index, &[Type::Scalar])?;
            let ok = times.iter().all(|t| t.is_finite()) && times.windows(2).all(|w| w[1] >= w[0]);
            self.times.insert(index, (times.into(), ok));
        }
        Ok(&self.times[&index])
    }

    /// Reads accessor `index`, of type `ty` with `N` floats per element, as elements `make`
    /// builds, through [`floats`](Self::floats) (which gives every error): for an accessor that
    /// is not plain floats in a buffer view (those are decoded straight into shared storage
    /// first, by [`elements_located`](Self::elements_located) and
    /// [`checked_elements`](Self::checked_elements)).
    fn elements<T, const N: usize>(
        &mut self,
        index: usize,
        ty: Type,
        make: impl Fn([f32; N]) -> T,
    ) -> Result<Arc<[T]>, ErrorKind> {
        let (floats, _) = self.floats(index, &[ty])?;
        Ok(floats
            .chunks_exact(N)
            .map(|e| make(std::array::from_fn(|c| e[c])))
            .collect())
    }

    /// Reads accessor `index`, of type `ty` with `N` floats per element, as elements `make`
    /// builds: decoded straight into shared storage when it holds plain floats in a buffer view
    /// (the common case), else through [`elements`](Self::elements); and where they lie in the
    /// document's buffers when they are plain floats of an uncompressed buffer view, each read
    /// as it lies (see `read_keys.rs`).
    pub fn elements_located<T, const N: usize>(
        &mut self,
        index: usize,
        ty: Type,
        make: impl Fn([f32; N]) -> T,
    ) -> Result<(Arc<[T]>, Option<Location>), ErrorKind> {
        let Some((values, (first, stride))) = self.plain_floats(index, ty, &make) else {
            return Ok((self.elements(index, ty, make)?, None));
        };
        let at = self
            .uncompressed_view(index)
            .map(|(buffer, base)| Location {
                buffer,
                start: first - base,
                stride,
                count: values.len(),
            });
        Ok((values, at))
    }

    /// The buffer of accessor `index`'s buffer view and the address of its bytes, unless the
    /// view is compressed (`EXT_meshopt_compression`: its bytes are decoded elsewhere).
    fn uncompressed_view(&self, index: usize) -> Option<(usize, usize)> {
        let v = self.root.accessors.get(index)?.buffer_view?.value();
        let view = self.root.buffer_views.get(v)?;
        if meshopt(view).is_some() {
            return None;
        }
        let buffer = view.buffer.value();
        let base = self.buffers.get(buffer)?.as_deref()?.as_ptr() as usize;
        Some((buffer, base))
    }

    /// [`elements`](Self::elements) of an accessor of plain floats (no sparse part) whose
    /// elements all lie in its buffer view, with the address of the first and the stride;
    /// `None` for any other (or a broken) accessor.
    fn plain_floats<T, const N: usize>(
        &mut self,
        index: usize,
        ty: Type,
        make: &impl Fn([f32; N]) -> T,
    ) -> Option<(Arc<[T]>, Placed)> {
        let (bytes, offset, stride, count) = self.plain_layout(index, ty, N)?;
        // `bytes` ends with the last element: its chunks of `stride` bytes from `offset` are
        // the `count` elements (the last one maybe just an element long).
        let bytes = bytes.get(offset..)?;
        let first = (bytes.as_ptr() as usize, stride);
        if stride == 4 * N {
            // Packed (the common case): exactly `count` chunks of one element, an exact-size
            // iterator with no short last chunk to allow for.
            let elements = bytes.chunks_exact(stride);
            debug_assert_eq!(elements.len(), count);
            return Some((elements.map(|e| make(le_floats(e))).collect(), first));
        }
        let elements = bytes.chunks(stride);
        debug_assert_eq!(elements.len(), count);
        Some((elements.map(|e| make(le_floats(e))).collect(), first))
    }

    /// What [`elements_located`](Self::elements_located) gives, checked but not kept: how many
    /// elements, and whether every one is finite (the same errors). An accessor of plain floats
    /// is checked in place, without building its elements.
    pub fn checked_elements<T: TrackValue, const N: usize>(
        &mut self,
        index: usize,
        ty: Type,
        make: impl Fn([f32; N]) -> T,
    ) -> Result<(usize, bool), ErrorKind> {
        if let Some((bytes, offset, stride, count)) = self.plain_layout(index, ty, N) {
            let finite = (0..count).all(|i| {
                let at = offset + i * stride;
                bytes[at..at + 4 * N]
                    .chunks_exact(4)
                    .all(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]).is_finite())
            });
            return Ok((count, finite));
        }
        let values = self.elements(index, ty, make)?;
        Ok((values.len(), values.iter().all(|v| v.finite())))
    }

    /// Where the elements of an accessor of plain floats (type `ty` of `n` floats, no sparse
    /// part, every element inside its buffer view) lie: its view's bytes (up to the end of the
    /// last element), the first element's offset in them, the stride and the count; `None` for
    /// any other (or a broken) accessor.
    fn plain_layout(
        &mut self,
        index: usize,
        ty: Type,
        n: usize,
    ) -> Option<(&[u8], usize, usize, usize)> {
        let acc = self.root.accessors.get(index)?;
        let plain = matches!(acc.type_, Checked::Valid(t) if t == ty && components(t) == n)
            && matches!(
                acc.component_type,
                Checked::Valid(GenericComponentType(ComponentType::F32))
            )
            && acc.sparse.is_none();
        let count = acc.count.0;
        if !plain || count.saturating_mul(n as u64) > MAX_FLOATS {
            return None;
        }
        let v = acc.buffer_view?.value();
        let elem = 4 * n;
        let stride = self
            .root
            .buffer_views
            .get(v)
            .and_then(|bv| bv.byte_stride)
            .map_or(elem, |s| s.0);
        let offset = acc.byte_offset.map_or(0, |o| o.0) as usize;
        let count = count as usize;
        let need = span(offset as u64, stride as u64, count as u64, elem as u64)?;
        let bytes = self.view_bytes(v).ok()?;
        if stride < elem || need > bytes.len() as u64 {
            return None;
        }
        // `need` counts from the view's start: `offset` and every element fit in it.
        Some((&bytes[..need as usize], offset, stride, count))
    }

    /// Reads accessor `index` as floats, `n` per element, checking that its type is one of
    /// `types`. Normalized integers become 0..1 or -1..1, as glTF defines.
    pub fn floats(&mut self, index: usize, types: &[Type]) -> Result<(Vec<f32>, usize), ErrorKind> {
        let at = format!("accessors[{index}]");
        let acc = self
            .root
            .accessors
            .get(index)
            .ok_or_else(|| invalid(&at, "does not exist"))?;
        let ty = match acc.type_ {
            Checked::Valid(t) if types.contains(&t) => t,
            Checked::Valid(t) => {
                let want: Vec<_> = types.iter().map(|t| type_name(*t)).collect();
                return Err(invalid(
                    &at,
                    format!(
                        "type {} where {} is expected",
                        type_name(t),
                        want.join(" or ")
                    ),
                ));
            }
            Checked::Invalid => return Err(invalid(&at, "unknown type")),
        };
        let ct = match acc.component_type {
            Checked::Valid(GenericComponentType(ct)) => ct,
            Checked::Invalid => return Err(invalid(&at, "unknown componentType")),
        };
        if matches!(ty, Type::Mat2 | Type::Mat3) && ct.size() < 4 {
            return Err(invalid(
                &at,
                "small-component MAT2/MAT3 accessors are not supported",
            ));
        }
        let n = components(ty);
        let count = acc.count.0;
        if count.saturating_mul(n as u64) > MAX_FLOATS {
            return Err(invalid(&at, format!("count {count} is too large")));
        }
        let count = count as usize;
        let elem = n * ct.size();
        let mut out = vec![0f32; count * n];
        if let Some(v) = acc.buffer_view {
            let stride = self
                .root
                .buffer_views
                .get(v.value())
                .and_then(|bv| bv.byte_stride)
                .map_or(elem, |s| s.0);
            if stride < elem {
                return Err(invalid(
                    &at,
                    format!("byteStride {stride} is smaller than an element ({elem} bytes)"),
                ));
            }
            let normalized = acc.normalized;
            let offset = acc.byte_offset.map_or(0, |o| o.0) as usize;
            let bytes = self.view_bytes(v.value())?;
            let need =
                span(offset as u64, stride as u64, count as u64, elem as u64).unwrap_or(u64::MAX);
            if need > bytes.len() as u64 {
                return Err(invalid(
                    &at,
                    format!(
                        "reads past the end of buffer view {} ({need} > {} bytes)",
                        v.value(),
                        bytes.len()
                    ),
                ));
            }
            if ct == ComponentType::F32 {
                // The common case, decoded element by element without a match per component.
                for (i, chunk) in out.chunks_exact_mut(n).enumerate() {
                    let base = offset + i * stride;
                    let src = bytes[base..base + elem].chunks_exact(4);
                    for (slot, b) in chunk.iter_mut().zip(src) {
                        *slot = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    }
                }
            } else {
                for (i, chunk) in out.chunks_exact_mut(n).enumerate() {
                    let base = offset + i * stride;
                    for (c, slot) in chunk.iter_mut().enumerate() {
                        let p = base + c * ct.size();
                        *slot = read_component(&bytes[p..p + ct.size()], ct, normalized);
                    }
                }
            }
        }
        if let Some(sparse) = &acc.sparse {
            self.apply_sparse(&at, sparse, ct, acc.normalized, n, &mut out)?;
        }
        Ok((out, n))
    }

    fn apply_sparse(
        &mut self,
        at: &str,
        sparse: &gltf::json::accessor::sparse::Sparse,
        ct: ComponentType,
        normalized: bool,
        n: usize,
        out: &mut [f32],
    ) -> Result<(), ErrorKind> {
        let k = sparse.count.0 as usize;
        let count = out.len() / n.max(1);
        if k > count {
            return Err(invalid(
                at,
                format!("sparse count {k} exceeds the accessor's count {count}"),
            ));
        }
        let ict = match sparse.indices.component_type {
            Checked::Valid(c) => c.0,
            Checked::Invalid => {
                return Err(invalid(at, "sparse indices have an unknown componentType"))
            }
        };
        let isize_ = ict.size();
        let ioff = sparse.indices.byte_offset.0 as usize;
        let idx_bytes = self
            .view_bytes(sparse.indices.buffer_view.value())?
            .to_vec();
        if (ioff as u64) + (k as u64) * isize_ as u64 > idx_bytes.len() as u64 {
            return Err(invalid(at, "sparse indices read past their buffer view"));
        }
        let voff = sparse.values.byte_offset.0 as usize;
        let vals = self.view_bytes(sparse.values.buffer_view.value())?;
        let esize = n * ct.size();
        if (voff as u64) + (k as u64) * esize as u64 > vals.len() as u64 {
            return Err(invalid(at, "sparse values read past their buffer view"));
        }
        for s in 0..k {
            let p = ioff + s * isize_;
            let b = &idx_bytes[p..p + isize_];
            let idx = match isize_ {
                1 => b[0] as usize,
                2 => u16::from_le_bytes([b[0], b[1]]) as usize,
                _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize,
            };
            if idx >= count {
                return Err(invalid(at, format!("sparse index {idx} is out of range")));
            }
            for c in 0..n {
                let q = voff + s * esize + c * ct.size();
                out[idx * n + c] = read_component(&vals[q..q + ct.size()], ct, normalized);
            }
        }
        Ok(())
    }
}
