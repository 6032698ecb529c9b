//! FBX in: a binary (6.1–7.7) or ASCII FBX file read with [ufbx](https://github.com/ufbx/ufbx)
//! (the loader Godot uses) and converted into a new glTF document, which the glTF reader then
//! turns into the model like any file. A sibling of `gltf_io`; it uses `gltf_io`'s document
//! builder and `model`'s transform type, and no stage knows a skeleton came from FBX.
//!
//! ufbx converts units and axes to glTF's Y-up metres (adjusting node transforms, so bones keep
//! their lengths in metres), bakes pivots, pre- and post-rotations into the nodes and geometric
//! transforms into the vertices. Then:
//! - every node becomes a glTF node (cameras, lights and other attributes stay as empty nodes,
//!   with a note);
//! - meshes become triangle primitives per material (positions, normals, the first UV set), with
//!   skin clusters as a skin (joints and inverse bind matrices, four weights per vertex) and
//!   blend shapes as morph targets;
//! - materials keep their base colour and base-colour texture (embedded, or a PNG/JPEG file in
//!   the FBX's folder);
//! - every animation stack becomes one clip, baked by ufbx at the scene's frame rate where curves
//!   are not linear (exact keys where they are), starting at time 0;
//! - its animated user-defined number properties (Unreal's animation curves, such as
//!   `FootLock_L`) are baked the same way into the clip's float curves ([`FbxInfo::curves`]).

mod anim;
mod materials;
mod mesh;

use crate::gltf_io::build::Builder;
use crate::model::Transform;
use glam::{Mat4, Quat, Vec3};
use std::path::Path;

/// What the FBX file declared, and what the conversion left out, for `inspect` and reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FbxInfo {
    /// `FBX 7.4 binary`, `FBX 7.7 ASCII`…
    pub format: String,
    /// The application that wrote it, as it says.
    pub creator: String,
    /// The unit the file declared, in metres (0.01: centimetres).
    pub unit_meters: f64,
    /// The file's up axis (`+Y`, `+Z`…).
    pub up_axis: String,
    /// The file's frame rate.
    pub fps: f64,
    /// What was converted approximately or left out.
    pub notes: Vec<String>,
    /// The float curves (animated user properties) of each glTF animation made that has any:
    /// its index and its curves. glTF has no place for them; the reader puts each on the clip
    /// made from that animation for the skeleton holding the curve's node.
    pub curves: Vec<(usize, Vec<FbxCurve>)>,
}

/// A float curve of an FBX animation stack and the node it is on.
#[derive(Debug, Clone, PartialEq)]
pub struct FbxCurve {
    /// The glTF node made from the FBX node whose property it animates.
    pub node: Option<u32>,
    /// The curve.
    pub curve: crate::model::Curve,
}

/// An FBX file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FbxError(pub String);

fn axis_name(a: ufbx::CoordinateAxis) -> &'static str {
    use ufbx::CoordinateAxis as A;
    match a {
        A::PositiveX => "+X",
        A::NegativeX => "-X",
        A::PositiveY => "+Y",
        A::NegativeY => "-Y",
        A::PositiveZ => "+Z",
        A::NegativeZ => "-Z",
        A::Unknown => "unknown",
    }
}

fn mat4(m: &ufbx::Matrix) -> Mat4 {
    Mat4::from_cols_array(&[
        m.m00 as f32,
        m.m10 as f32,
        m.m20 as f32,
        0.0,
        m.m01 as f32,
        m.m11 as f32,
        m.m21 as f32,
        0.0,
        m.m02 as f32,
        m.m12 as f32,
        m.m22 as f32,
        0.0,
        m.m03 as f32,
        m.m13 as f32,
        m.m23 as f32,
        1.0,
    ])
}

fn vec3(v: ufbx::Vec3) -> Vec3 {
    Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}

fn quat(q: ufbx::Quat) -> Quat {
    Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32)
}

fn transform(t: &ufbx::Transform) -> Transform {
    Transform {
        translation: vec3(t.translation),
        rotation: quat(t.rotation).normalize(),
        scale: vec3(t.scale),
    }
}

/// Where the top-level records of a binary FBX file say they end (each record's header gives
/// the offset of its end; the list ends with an empty record), read from the record headers
/// alone: past the file's length when the file was cut short. `None` for an ASCII file or one
/// too damaged to tell.
fn binary_records_end(bytes: &[u8]) -> Option<usize> {
    const MAGIC: &[u8] = b"Kaydara FBX Binary  \0";
    if !bytes.starts_with(MAGIC) {
        return None;
    }
    let word = |at: usize, wide: bool| -> Option<usize> {
        let end = at.checked_add(if wide { 8 } else { 4 })?;
        let b = bytes.get(at..end)?;
        Some(match wide {
            true => usize::try_from(u64::from_le_bytes(b.try_into().ok()?)).ok()?,
            false => u32::from_le_bytes(b.try_into().ok()?) as usize,
        })
    };
    let version = word(23, false)?;
    let wide = version >= 7500;
    // End offset, property count, property list length, then a one-byte name length.
    let header = if wide { 25 } else { 13 };
    let mut at = 27;
    loop {
        if at + header > bytes.len() {
            // Cut inside a record header: its end is at least past the file.
            return Some(at + header);
        }
        let end = word(at, wide)?;
        if end == 0 {
            return Some(at + header);
        }
        if end <= at || end > bytes.len() {
            return (end > at).then_some(end);
        }
        at = end;
    }
}

fn load_options() -> ufbx::LoadOpts<'static> {
    ufbx::LoadOpts {
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::AdjustTransforms,
        geometry_transform_handling: ufbx::GeometryTransformHandling::ModifyGeometry,
        inherit_mode_handling: ufbx::InheritModeHandling::Compensate,
        pivot_handling: ufbx::PivotHandling::AdjustToPivot,
        generate_missing_normals: true,
        ..Default::default()
    }
}

/// Converts FBX bytes (read from `path`, whose folder holds any texture files) into a GLB
/// document, with what the file declared.
pub fn to_glb(bytes: &[u8], path: &Path) -> Result<(Vec<u8>, FbxInfo), FbxError> {
    let scene = ufbx::load_memory(bytes, load_options()).map_err(|e| {
        let info = e.info();
        let what = e.description.as_ref();
        let mut message = if info.is_empty() {
            format!("invalid FBX: {what}")
        } else {
            format!("invalid FBX: {what} ({info})")
        };
        // ufbx names what failed where it stopped (a DEFLATE stream, a node): say when that is
        // because the file ends before its records do.
        if let Some(end) = binary_records_end(bytes).filter(|&end| end > bytes.len()) {
            let said = what.to_ascii_lowercase().contains("truncated");
            message.push_str(&format!(
                " ({}the file has {} bytes, its records run to byte {end})",
                if said { "" } else { "truncated: " },
                bytes.len()
            ));
        }
        FbxError(message)
    })?;
    let meta = &scene.metadata;
    let settings = &scene.settings;
    let mut info = FbxInfo {
        format: format!(
            "FBX {}.{} {}",
            meta.version / 1000,
            meta.version % 1000 / 100,
            if meta.ascii { "ASCII" } else { "binary" }
        ),
        creator: meta.creator.as_ref().to_string(),
        unit_meters: settings.original_unit_meters,
        up_axis: axis_name(match settings.original_axis_up {
            ufbx::CoordinateAxis::Unknown => settings.axes.up,
            up => up,
        })
        .to_string(),
        fps: settings.frames_per_second,
        notes: Vec::new(),
        curves: Vec::new(),
    };
    let mut b = Builder::new(&format!(
        "skelnorm {} (from FBX)",
        env!("CARGO_PKG_VERSION")
    ));
    let (rest, rest_world) = rests(&scene);
    let nodes = add_nodes(&scene, &rest, &mut b, &mut info);
    let materials = materials::add_materials(&scene, &mut b, path, &mut info);
    let skinned = mesh::add_meshes(&scene, &mut b, &nodes, &materials, &mut info)?;
    if !skinned {
        add_bone_skin(&scene, &rest_world, &mut b, &nodes)?;
    }
    anim::add_animations(&scene, &rest, &mut b, &nodes, &mut info)?;
    Ok((b.finish(), info))
}

/// The rest of every node (by typed id), local to its parent: the bind pose where the file
/// has one (skin clusters' bind matrices, else a bind pose element), so that a character rests
/// as it was skinned, not in whatever pose the scene was saved in; the node's own transform
/// elsewhere.
fn rests(scene: &ufbx::Scene) -> (Vec<Transform>, Vec<Mat4>) {
    let mut bind: Vec<Option<Mat4>> = vec![None; scene.nodes.len()];
    for pose in scene.poses.iter().filter(|p| p.is_bind_pose) {
        for bp in pose.bone_poses.iter() {
            bind[bp.bone_node.element.typed_id as usize] = Some(mat4(&bp.bone_to_world));
        }
    }
    for cluster in scene.skin_clusters.iter() {
        if let Some(node) = &cluster.bone_node {
            bind[node.element.typed_id as usize] = Some(mat4(&cluster.bind_to_world));
        }
    }
    let mut world = vec![Mat4::IDENTITY; scene.nodes.len()];
    let mut out = vec![Transform::IDENTITY; scene.nodes.len()];
    let mut stack: Vec<&ufbx::Node> = scene.root_node.children.iter().map(|n| &**n).collect();
    while let Some(node) = stack.pop() {
        let id = node.element.typed_id as usize;
        let parent = node
            .parent
            .as_ref()
            .filter(|p| !p.is_root)
            .map_or(Mat4::IDENTITY, |p| world[p.element.typed_id as usize]);
        let own = transform(&node.local_transform);
        // A bind matrix below a degenerate one (zero scale: no inverse) cannot be made local:
        // the node keeps its own transform.
        let local = bind[id]
            .map(|w| (w, (parent.inverse() * w).to_scale_rotation_translation()))
            .filter(|(_, (s, r, t))| s.is_finite() && r.is_finite() && t.is_finite());
        match local {
            Some((w, (scale, rotation, translation))) => {
                out[id] = Transform {
                    translation,
                    rotation: rotation.normalize(),
                    scale,
                };
                world[id] = w;
            }
            None => {
                out[id] = own;
                world[id] = parent * own.to_mat4();
            }
        }
        stack.extend(node.children.iter().map(|c| &**c));
    }
    (out, world)
}

/// Every node but the scene root, parents first, at rest; returns the glTF node of each ufbx
/// node (by typed id).
fn add_nodes(
    scene: &ufbx::Scene,
    rest: &[Transform],
    b: &mut Builder,
    info: &mut FbxInfo,
) -> Vec<Option<usize>> {
    let mut out = vec![None; scene.nodes.len()];
    let mut stack: Vec<(&ufbx::Node, Option<usize>)> = scene
        .root_node
        .children
        .iter()
        .rev()
        .map(|n| (&**n, None))
        .collect();
    let (mut cameras, mut lights) = (0, 0);
    while let Some((node, parent)) = stack.pop() {
        let name = node.element.name.as_ref();
        let name = if name.is_empty() {
            format!("node{}", node.element.typed_id)
        } else {
            name.to_string()
        };
        let index = b.node(&name, &rest[node.element.typed_id as usize], parent);
        out[node.element.typed_id as usize] = Some(index);
        cameras += usize::from(node.camera.is_some());
        lights += usize::from(node.light.is_some());
        stack.extend(node.children.iter().rev().map(|c| (&**c, Some(index))));
    }
    if cameras + lights > 0 {
        info.notes.push(format!(
            "{cameras} camera(s) and {lights} light(s) kept as empty nodes"
        ));
    }
    out
}

/// A file without skinned meshes (an animation-only export, a bare skeleton): its bone nodes
/// (FBX limb nodes) become the joints of a skin that no mesh uses, so that the skeleton is found
/// as the file's authors marked it rather than guessed from the node tree (control rigs, props
/// and markers stay outside it).
fn add_bone_skin(
    scene: &ufbx::Scene,
    rest_world: &[Mat4],
    b: &mut Builder,
    nodes: &[Option<usize>],
) -> Result<(), FbxError> {
    let bones: Vec<(&ufbx::Node, usize)> = scene
        .nodes
        .iter()
        .filter(|n| n.bone.is_some())
        .filter_map(|n| nodes[n.element.typed_id as usize].map(|g| (&**n, g)))
        .collect();
    if bones.is_empty() {
        return Ok(());
    }
    let joints: Vec<usize> = bones.iter().map(|(_, g)| *g).collect();
    let ibms: Vec<[f32; 16]> = bones
        .iter()
        .map(|(n, _)| {
            // An affine inverse keeps the last row exactly (0, 0, 0, 1), as glTF asks.
            let world = rest_world[n.element.typed_id as usize];
            Mat4::from(glam::Affine3A::from_mat4(world).inverse()).to_cols_array()
        })
        .collect();
    if let Some(k) = ibms.iter().position(|m| !m.iter().all(|v| v.is_finite())) {
        return Err(FbxError(format!(
            "bone `{}` rests with a degenerate transform (zero scale), which has no inverse",
            bones[k].0.element.name
        )));
    }
    b.skin("bones", &joints, &ibms);
    Ok(())
}
