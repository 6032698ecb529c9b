//! Reading any supported file into a glTF document and its model: glTF, GLB, VRM and VRMA as
//! they are; FBX (and, with its reader, BVH) converted into a new glTF document first. The format
//! is told by the file's first bytes, not its extension. Imports the format modules only.

use crate::gltf_io::{self, Converted, Document, Error, ErrorKind, Resources};
use crate::model::{Warning, WarningCode};
use std::path::Path;

/// Options of reading.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadOptions {
    /// Metres per BVH unit; guessed from the skeleton's height when `None`.
    pub bvh_scale: Option<f32>,
}

/// The formats skelnorm reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// glTF JSON, GLB, VRM or VRMA.
    Gltf,
    /// Autodesk FBX, binary or ASCII.
    Fbx,
    /// Biovision hierarchy (motion capture).
    Bvh,
}

impl InputFormat {
    /// The format of a file from its first bytes, or from its extension when they say nothing.
    pub fn sniff(bytes: &[u8], path: &Path) -> Option<InputFormat> {
        let head = &bytes[..bytes.len().min(4096)];
        let text = String::from_utf8_lossy(head);
        let trimmed = text.trim_start_matches('\u{feff}').trim_start();
        if head.starts_with(b"glTF") || trimmed.starts_with('{') {
            return Some(InputFormat::Gltf);
        }
        if head.starts_with(b"Kaydara FBX Binary") || text.contains("FBXHeaderExtension") {
            return Some(InputFormat::Fbx);
        }
        if trimmed.starts_with("HIERARCHY") {
            return Some(InputFormat::Bvh);
        }
        InputFormat::for_path(path)
    }

    /// The format a path's extension names.
    pub fn for_path(path: &Path) -> Option<InputFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "gltf" | "glb" | "vrm" | "vrma" => Some(InputFormat::Gltf),
            "fbx" => Some(InputFormat::Fbx),
            "bvh" => Some(InputFormat::Bvh),
            _ => None,
        }
    }
}

/// Whether skelnorm reads files with this path's extension (for folder walks).
pub fn is_supported(path: &Path) -> bool {
    InputFormat::for_path(path).is_some_and(|f| f != InputFormat::Fbx || cfg!(feature = "fbx"))
}

/// Reads a file of any supported format (read once, whole). Never writes.
pub fn read(path: &Path, options: &ReadOptions) -> Result<Document, Error> {
    read_with(path, options, gltf_io::read_owned_beside)
}

/// [`read`] for a document that is only looked at (`inspect`): a glTF file's document keeps no
/// copy of its model as read and cannot be written (see [`gltf_io::read_owned_for_viewing`]).
pub fn read_for_viewing(path: &Path, options: &ReadOptions) -> Result<Document, Error> {
    read_with(path, options, gltf_io::read_owned_for_viewing)
}

/// [`read`] for a document that is only written again as read (`convert`): a glTF file's
/// tracks are read and checked but keep no key values (see [`gltf_io::read_owned_to_copy`]);
/// FBX and BVH files are converted as [`read`] converts them.
pub fn read_to_copy(path: &Path, options: &ReadOptions) -> Result<gltf_io::DocumentToCopy, Error> {
    read_with(path, options, gltf_io::read_owned_to_copy)
}

/// The file at `path`, read once, whole ([`gltf_io::read_input`]), told apart by its content:
/// FBX and BVH files converted to a document, glTF files parsed by `gltf`.
fn read_with<T: From<Document>>(
    path: &Path,
    options: &ReadOptions,
    gltf: impl FnOnce(Vec<u8>, &Path) -> Result<T, Error>,
) -> Result<T, Error> {
    let bytes = gltf_io::read_input(path)?;
    match InputFormat::sniff(&bytes, path) {
        Some(InputFormat::Fbx) => read_fbx(&bytes, path).map(T::from),
        Some(InputFormat::Bvh) => read_bvh(&bytes, path, options).map(T::from),
        _ => gltf(bytes, path),
    }
}

/// An error about the file at `path`.
fn fail(path: &Path, kind: ErrorKind) -> Error {
    Error {
        file: path.to_path_buf(),
        kind,
    }
}

#[cfg(feature = "fbx")]
fn read_fbx(bytes: &[u8], path: &Path) -> Result<Document, Error> {
    let (glb, mut info) =
        crate::fbx_io::to_glb(bytes, path).map_err(|e| fail(path, ErrorKind::Convert(e.0)))?;
    let mut doc = gltf_io::read_bytes(&glb, path, &Resources::None)?;
    let mut notes = std::mem::take(&mut info.notes);
    // Per clip, the curves it gets.
    let mut given: Vec<Vec<crate::model::Curve>> = vec![Vec::new(); doc.model.clips.len()];
    for (animation, curves) in &info.curves {
        place_curves(
            &doc.model,
            *animation as u32,
            curves,
            &mut given,
            &mut notes,
        );
    }
    for (clip, curves) in given.into_iter().enumerate() {
        if !curves.is_empty() {
            doc.set_read_curves(clip, curves);
        }
    }
    doc.warnings.extend(
        notes
            .into_iter()
            .map(|n| Warning::new(WarningCode::FbxNote, n)),
    );
    let unit = match info.unit_meters {
        u if (u - 1.0).abs() < 1e-9 => "metres".to_string(),
        u if (u - 0.01).abs() < 1e-9 => "centimetres (0.01 m)".to_string(),
        u => format!("{u} m"),
    };
    doc.converted = Some(Converted {
        format: info.format,
        facts: vec![
            ("written by".into(), info.creator),
            ("unit".into(), format!("{unit}, converted to metres")),
            (
                "up axis".into(),
                format!("{}, converted to +Y", info.up_axis),
            ),
            ("frame rate".into(), format!("{} fps", info.fps)),
        ],
    });
    Ok(doc)
}

/// Gives the float curves of glTF animation `animation` to the clips read from it (`given`, by
/// clip index, for [`Document::set_read_curves`]): each to the
/// clip of the skeleton holding the curve's node (as a bone, an attachment, or the one skeleton
/// it is above), else, when the node is in no skeleton (a null above two), on the first clip
/// read from the animation. A curve of a skeleton the animation has no clip for, or a second
/// curve of one name for a clip, is left out with a note.
#[cfg(feature = "fbx")]
fn place_curves(
    model: &crate::model::Model,
    animation: u32,
    curves: &[crate::fbx_io::FbxCurve],
    given: &mut [Vec<crate::model::Curve>],
    notes: &mut Vec<String>,
) {
    let clips: Vec<usize> = (0..model.clips.len())
        .filter(|&i| model.clips[i].source == Some(animation))
        .collect();
    let Some(&first) = clips.first() else {
        return;
    };
    for c in curves {
        let holds = |s: &crate::model::Skeleton, n: u32| {
            s.bones.iter().any(|b| b.node == Some(n))
                || s.attachments.iter().any(|a| a.node == Some(n))
        };
        let owner = c.node.and_then(|n| {
            let skeletons = &model.skeletons;
            let found = skeletons.iter().position(|s| holds(s, n));
            found.or_else(|| {
                let mut above = skeletons
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.base_nodes.contains(&n));
                match (above.next(), above.next()) {
                    (Some((i, _)), None) => Some(i),
                    _ => None,
                }
            })
        });
        let clip = match owner {
            None => first,
            Some(s) => match clips
                .iter()
                .find(|&&i| model.clips[i].skeleton.index() == s)
            {
                Some(&i) => i,
                None => {
                    notes.push(format!(
                        "animation `{}`: curve `{}` left out (its node is in skeleton `{}`, which the animation does not move)",
                        model.clips[first].name, c.curve.name, model.skeletons[s].name
                    ));
                    continue;
                }
            },
        };
        if given[clip].iter().any(|k| k.name == c.curve.name) {
            notes.push(format!(
                "clip `{}`: a second curve `{}` left out (one per name)",
                model.clips[clip].name, c.curve.name
            ));
            continue;
        }
        given[clip].push(c.curve.clone());
    }
}

#[cfg(not(feature = "fbx"))]
fn read_fbx(_bytes: &[u8], path: &Path) -> Result<Document, Error> {
    Err(fail(
        path,
        ErrorKind::Convert("FBX support is not built in (build with the `fbx` feature)".into()),
    ))
}

/// A BVH length unit in words.
fn unit_name(u: crate::bvh_io::LengthUnit) -> &'static str {
    use crate::bvh_io::LengthUnit as L;
    match u {
        L::Metre => "metres",
        L::Centimetre => "centimetres",
        L::Millimetre => "millimetres",
        L::Inch => "inches",
        L::CmuUnit => "CMU units (1/0.45 inch)",
    }
}

fn read_bvh(bytes: &[u8], path: &Path, options: &ReadOptions) -> Result<Document, Error> {
    use crate::bvh_io::{self, BvhOptions, ScaleSource};
    let fail = |kind| fail(path, kind);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        fail(ErrorKind::Convert(format!(
            "invalid BVH: not UTF-8 text ({e})"
        )))
    })?;
    let clip_name = path
        .file_stem()
        .map_or_else(|| "motion".into(), |s| s.to_string_lossy().into_owned());
    let bvh = bvh_io::read(
        text,
        &BvhOptions {
            scale: options.bvh_scale,
            clip_name,
        },
    )
    .map_err(|e| fail(ErrorKind::Convert(format!("invalid BVH: {e}"))))?;
    let glb = gltf_io::build::from_model(
        &bvh.model,
        &format!("skelnorm {} (from BVH)", env!("CARGO_PKG_VERSION")),
    );
    let mut doc = gltf_io::read_bytes(&glb, path, &Resources::None)?;
    let info = &bvh.info;
    let unit = match (info.scale_source, info.unit) {
        (ScaleSource::Given, _) => format!("{} m per unit (--bvh-scale)", info.scale),
        (ScaleSource::Guessed, Some(u)) => format!(
            "{}, guessed from the rest height of {:.1} units ({} m per unit; --bvh-scale overrides)",
            unit_name(u),
            info.file_height,
            info.scale
        ),
        _ => format!(
            "unknown (rest height {:.1} units): read as metres; give --bvh-scale",
            info.file_height
        ),
    };
    let orders: Vec<&str> = info.rotation_orders.iter().map(|o| o.as_str()).collect();
    doc.converted = Some(Converted {
        format: "BVH".into(),
        facts: vec![
            ("unit".into(), unit),
            ("up axis".into(), "+Y (BVH convention)".into()),
            (
                "frames".into(),
                format!(
                    "{} at {} s ({:.2} fps)",
                    info.frames,
                    info.frame_time,
                    1.0 / info.frame_time.max(1e-9)
                ),
            ),
            ("rotation orders".into(), orders.join(", ")),
            (
                "joints".into(),
                format!(
                    "{} in {} root(s), {} end sites",
                    info.joints, info.roots, info.end_sites
                ),
            ),
        ],
    });
    if info.scale_source == ScaleSource::Unknown {
        doc.warnings.push(Warning::new(
            WarningCode::BvhUnitUnknown,
            format!(
                "no unit fits a rest height of {:.1} units; read as metres (give --bvh-scale)",
                info.file_height
            ),
        ));
    }
    for (from, to) in &info.renamed {
        doc.warnings.push(Warning::new(
            WarningCode::BvhRenamed,
            format!("joint `{from}` renamed `{to}` (names must be unique)"),
        ));
    }
    Ok(doc)
}
