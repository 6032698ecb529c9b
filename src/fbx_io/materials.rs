//! FBX materials as glTF materials: base colour factor and texture.

use super::FbxInfo;
use crate::gltf_io::build::Builder;
use serde_json::json;
use std::collections::HashMap;
use std::path::Path;

/// Image bytes of a texture: embedded, or a file in `folder` (never outside it); with its MIME
/// type (PNG and JPEG only).
fn texture_bytes(texture: &ufbx::Texture, folder: &Path) -> Option<(Vec<u8>, &'static str)> {
    let bytes = if !texture.content.is_empty() {
        texture.content.to_vec()
    } else {
        let rel = texture.relative_filename.as_ref().replace('\\', "/");
        let file_name = Path::new(&rel).file_name()?;
        let candidates = [folder.join(&rel), folder.join(file_name)];
        let found = candidates.iter().find(|p| {
            p.is_file()
                && p.canonicalize()
                    .ok()
                    .zip(folder.canonicalize().ok())
                    .is_some_and(|(p, f)| p.starts_with(f))
        })?;
        std::fs::read(found).ok()?
    };
    let mime = if bytes.starts_with(b"\x89PNG") {
        "image/png"
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        "image/jpeg"
    } else {
        return None;
    };
    Some((bytes, mime))
}

/// One glTF material per FBX material: base colour (factor and texture); returns the glTF
/// material of each FBX material (by typed id).
pub(super) fn add_materials(
    scene: &ufbx::Scene,
    b: &mut Builder,
    path: &Path,
    info: &mut FbxInfo,
) -> Vec<usize> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut images: HashMap<u32, Option<usize>> = HashMap::new();
    let mut dropped = Vec::new();
    let mut out = Vec::with_capacity(scene.materials.len());
    for m in scene.materials.iter() {
        let base = &m.pbr.base_color;
        let factor = if m.pbr.base_factor.has_value {
            m.pbr.base_factor.value_vec4.x as f32
        } else {
            1.0
        };
        let c = base.value_vec4;
        let colour = if base.has_value {
            [
                c.x as f32 * factor,
                c.y as f32 * factor,
                c.z as f32 * factor,
                1.0,
            ]
        } else {
            [1.0, 1.0, 1.0, 1.0]
        };
        let mut pbr =
            json!({"baseColorFactor": colour, "metallicFactor": 0.0, "roughnessFactor": 1.0});
        if let Some(t) = &base.texture {
            let image = *images.entry(t.element.typed_id).or_insert_with(|| {
                let found = texture_bytes(t, folder);
                if found.is_none() {
                    dropped.push(t.filename.as_ref().to_string());
                }
                found.map(|(bytes, mime)| {
                    let image = b.image(t.element.name.as_ref(), &bytes, mime);
                    b.texture(image)
                })
            });
            if let Some(texture) = image {
                pbr["baseColorTexture"] = json!({"index": texture});
                pbr["baseColorFactor"] = json!([1.0, 1.0, 1.0, 1.0]);
            }
        }
        out.push(b.material(json!({"name": m.element.name.as_ref(), "pbrMetallicRoughness": pbr})));
    }
    if !dropped.is_empty() {
        info.notes.push(format!(
            "textures not found beside the file or not PNG/JPEG, left out: {}",
            dropped.join(", ")
        ));
    }
    out
}
