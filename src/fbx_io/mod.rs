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
//!   are not linear (exact keys where they are), starting at time 0.

use crate::gltf_io::build::{Builder, ChannelKeys, Target};
use crate::model::Transform;
use glam::{Mat4, Quat, Vec3};
use serde_json::{json, Value};
use std::collections::HashMap;
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
        FbxError(if info.is_empty() {
            format!("invalid FBX: {what}")
        } else {
            format!("invalid FBX: {what} ({info})")
        })
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
    };
    let mut b = Builder::new(&format!(
        "skelnorm {} (from FBX)",
        env!("CARGO_PKG_VERSION")
    ));
    let (rest, rest_world) = rests(&scene);
    let nodes = add_nodes(&scene, &rest, &mut b, &mut info);
    let materials = add_materials(&scene, &mut b, path, &mut info);
    let skinned = add_meshes(&scene, &mut b, &nodes, &materials, &mut info);
    if !skinned {
        add_bone_skin(&scene, &rest_world, &mut b, &nodes);
    }
    add_animations(&scene, &rest, &mut b, &nodes, &mut info)?;
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
        match bind[id] {
            Some(w) => {
                let (scale, rotation, translation) =
                    (parent.inverse() * w).to_scale_rotation_translation();
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
fn add_materials(
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

/// The vertex data of one mesh, one entry per unique corner.
#[derive(Default)]
struct Vertices {
    positions: Vec<f32>,
    normals: Vec<f32>,
    uvs: Vec<f32>,
    joints: Vec<u16>,
    weights: Vec<f32>,
    targets: Vec<(Vec<f32>, Vec<f32>)>,
}

/// The four largest skin weights of mesh vertex `v`, normalized, as (joint, weight); a vertex
/// with no weight goes wholly to joint `fallback` (glTF needs weights that sum to 1), and
/// `unweighted` counts it.
fn skin_weights(
    skin: &ufbx::SkinDeformer,
    v: usize,
    fallback: u16,
    unweighted: &mut usize,
) -> [(u16, f32); 4] {
    let mut out = [(0u16, 0.0f32); 4];
    out[0] = (fallback, 1.0);
    let Some(sv) = skin.vertices.get(v) else {
        *unweighted += 1;
        return out;
    };
    let start = sv.weight_begin as usize;
    let end = (start + sv.num_weights as usize).min(skin.weights.len());
    let mut all: Vec<(u16, f32)> = skin.weights.as_ref()[start..end]
        .iter()
        .map(|w| (w.cluster_index as u16, w.weight as f32))
        .filter(|(_, w)| *w > 0.0)
        .collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1));
    let sum: f32 = all.iter().take(4).map(|(_, w)| w).sum();
    if sum > 0.0 {
        out[0] = (0, 0.0);
        for (slot, (j, w)) in out.iter_mut().zip(all) {
            *slot = (j, w / sum);
        }
    } else {
        *unweighted += 1;
    }
    out
}

/// The cluster of `skin` whose bone is nearest the root: where vertices without weights go.
fn root_cluster(skin: &ufbx::SkinDeformer) -> u16 {
    skin.clusters
        .iter()
        .enumerate()
        .min_by_key(|(_, c)| c.bone_node.as_ref().map_or(u32::MAX, |n| n.node_depth))
        .map_or(0, |(k, _)| k as u16)
}

/// Dense position and normal offsets of each blend-shape target over the mesh's vertices.
fn shape_offsets(mesh: &ufbx::Mesh) -> Vec<(String, f32, Vec<Vec3>, Vec<Vec3>)> {
    let mut out = Vec::new();
    for deformer in mesh.blend_deformers.iter() {
        for channel in deformer.channels.iter() {
            let Some(shape) = &channel.target_shape else {
                continue;
            };
            let mut pos = vec![Vec3::ZERO; mesh.num_vertices];
            let mut nrm = vec![Vec3::ZERO; mesh.num_vertices];
            for (k, &v) in shape.offset_vertices.iter().enumerate() {
                if let Some(p) = pos.get_mut(v as usize) {
                    *p = shape
                        .position_offsets
                        .get(k)
                        .map_or(Vec3::ZERO, |o| vec3(*o));
                    nrm[v as usize] = shape.normal_offsets.get(k).map_or(Vec3::ZERO, |o| vec3(*o));
                }
            }
            out.push((
                channel.element.name.as_ref().to_string(),
                channel.weight as f32,
                pos,
                nrm,
            ));
        }
    }
    out
}

/// The primitives of one mesh (one per material part), skinned by `skin` when given.
fn primitives(
    b: &mut Builder,
    mesh: &ufbx::Mesh,
    skin: Option<&ufbx::SkinDeformer>,
    materials: &[usize],
    shapes: &[(String, f32, Vec<Vec3>, Vec<Vec3>)],
    unweighted: &mut usize,
) -> Vec<Value> {
    let mut out = Vec::new();
    let fallback = skin.map_or(0, root_cluster);
    let mut corners = vec![0u32; mesh.max_face_triangles * 3];
    for part in mesh.material_parts.iter() {
        let mut v = Vertices {
            targets: vec![(Vec::new(), Vec::new()); shapes.len()],
            ..Vertices::default()
        };
        let mut seen: HashMap<Vec<u32>, u32> = HashMap::new();
        let mut indices = Vec::new();
        for &face in part.face_indices.iter() {
            let Some(face) = mesh.faces.get(face as usize) else {
                continue;
            };
            let n = ufbx::triangulate_face(&mut corners, mesh, *face) as usize;
            for &corner in &corners[..n * 3] {
                let c = corner as usize;
                let vertex = mesh.vertex_indices.get(c).copied().unwrap_or(0) as usize;
                let p = vec3(mesh.vertex_position[c]);
                let nrm = if mesh.vertex_normal.exists {
                    vec3(mesh.vertex_normal[c]).normalize_or(Vec3::Y)
                } else {
                    Vec3::Y
                };
                let uv = if mesh.vertex_uv.exists {
                    let t = mesh.vertex_uv[c];
                    [t.x as f32, 1.0 - t.y as f32]
                } else {
                    [0.0, 0.0]
                };
                let w = skin.map(|s| skin_weights(s, vertex, fallback, unweighted));
                let mut key: Vec<u32> = p
                    .to_array()
                    .iter()
                    .chain(&nrm.to_array())
                    .chain(&uv)
                    .map(|f| f.to_bits())
                    .collect();
                key.push(vertex as u32);
                let next = seen.len() as u32;
                let index = *seen.entry(key).or_insert(next);
                if index == next {
                    v.positions.extend(p.to_array());
                    v.normals.extend(nrm.to_array());
                    v.uvs.extend(uv);
                    if let Some(w) = w {
                        v.joints.extend(w.iter().map(|(j, _)| *j));
                        v.weights.extend(w.iter().map(|(_, w)| *w));
                    }
                    for (t, (_, _, pos, nor)) in v.targets.iter_mut().zip(shapes) {
                        t.0.extend(pos.get(vertex).copied().unwrap_or(Vec3::ZERO).to_array());
                        t.1.extend(nor.get(vertex).copied().unwrap_or(Vec3::ZERO).to_array());
                    }
                }
                indices.push(index);
            }
        }
        if indices.is_empty() {
            continue;
        }
        let mut attributes = json!({
            "POSITION": b.floats(&v.positions, 3, Target::Vertices),
            "NORMAL": b.floats(&v.normals, 3, Target::Vertices),
        });
        if mesh.vertex_uv.exists {
            attributes["TEXCOORD_0"] = json!(b.floats(&v.uvs, 2, Target::Vertices));
        }
        if skin.is_some() {
            attributes["JOINTS_0"] = json!(b.joints(&v.joints));
            attributes["WEIGHTS_0"] = json!(b.floats(&v.weights, 4, Target::Vertices));
        }
        let mut primitive =
            json!({"attributes": attributes, "indices": b.indices(&indices), "mode": 4});
        if let Some(&m) = mesh
            .materials
            .get(part.index as usize)
            .and_then(|m| materials.get(m.element.typed_id as usize))
        {
            primitive["material"] = json!(m);
        }
        if !shapes.is_empty() {
            let targets: Vec<Value> = v
                .targets
                .iter()
                .map(|(p, n)| {
                    json!({
                        "POSITION": b.floats(p, 3, Target::Vertices),
                        "NORMAL": b.floats(n, 3, Target::Vertices),
                    })
                })
                .collect();
            primitive["targets"] = json!(targets);
        }
        out.push(primitive);
    }
    out
}

/// Whether a matrix is the identity within rounding.
fn is_identity(m: &Mat4) -> bool {
    m.abs_diff_eq(Mat4::IDENTITY, 1e-5)
}

/// Meshes on their nodes; skinned meshes with their skins. A skinned mesh whose node is not at
/// the origin moves to a new root node, as glTF ignores (and three.js applies) the transform of
/// a skinned mesh's node.
fn add_meshes(
    scene: &ufbx::Scene,
    b: &mut Builder,
    nodes: &[Option<usize>],
    materials: &[usize],
    info: &mut FbxInfo,
) -> bool {
    let mut skinned = false;
    let mut dropped_skins = 0;
    let mut unweighted = 0;
    for node in scene.nodes.iter() {
        let (Some(mesh), Some(gltf_node)) = (&node.mesh, nodes[node.element.typed_id as usize])
        else {
            continue;
        };
        let skin = mesh.skin_deformers.first().map(|s| &**s);
        dropped_skins += mesh.skin_deformers.len().saturating_sub(1);
        let shapes = shape_offsets(mesh);
        let prims = primitives(b, mesh, skin, materials, &shapes, &mut unweighted);
        if prims.is_empty() {
            continue;
        }
        let name = node.element.name.as_ref();
        let index = b.mesh(name, prims);
        if !shapes.is_empty() {
            let names: Vec<&str> = shapes.iter().map(|s| s.0.as_str()).collect();
            let weights: Vec<f32> = shapes.iter().map(|s| s.1).collect();
            b.set_mesh(index, "extras", json!({"targetNames": names}));
            b.set_mesh(index, "weights", json!(weights));
        }
        let Some(skin) = skin else {
            b.set_node(gltf_node, "mesh", json!(index));
            continue;
        };
        let joints: Vec<usize> = skin
            .clusters
            .iter()
            .map(|c| {
                c.bone_node
                    .as_ref()
                    .and_then(|n| nodes[n.element.typed_id as usize])
                    .unwrap_or(gltf_node)
            })
            .collect();
        let ibms: Vec<[f32; 16]> = skin
            .clusters
            .iter()
            .map(|c| mat4(&c.geometry_to_bone).to_cols_array())
            .collect();
        let skin_index = b.skin(name, &joints, &ibms);
        skinned = true;
        let holder = if is_identity(&mat4(&node.node_to_world)) {
            gltf_node
        } else {
            b.node(&format!("{name} (skinned)"), &Transform::IDENTITY, None)
        };
        b.set_node(holder, "mesh", json!(index));
        b.set_node(holder, "skin", json!(skin_index));
    }
    if unweighted > 0 {
        info.notes.push(format!(
            "{unweighted} skinned vertex corner(s) had no weight and follow their skeleton's root bone"
        ));
    }
    if dropped_skins > 0 {
        info.notes.push(format!(
            "{dropped_skins} extra skin deformer(s) on meshes with more than one were left out"
        ));
    }
    skinned
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
) {
    let bones: Vec<(&ufbx::Node, usize)> = scene
        .nodes
        .iter()
        .filter(|n| n.bone.is_some())
        .filter_map(|n| nodes[n.element.typed_id as usize].map(|g| (&**n, g)))
        .collect();
    if bones.is_empty() {
        return;
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
    b.skin("bones", &joints, &ibms);
}

/// One clip per animation stack, baked at the scene's frame rate, starting at 0.
fn add_animations(
    scene: &ufbx::Scene,
    rests: &[Transform],
    b: &mut Builder,
    nodes: &[Option<usize>],
    info: &mut FbxInfo,
) -> Result<(), FbxError> {
    let fps = if scene.settings.frames_per_second > 0.0 {
        scene.settings.frames_per_second
    } else {
        30.0
    };
    for stack in scene.anim_stacks.iter() {
        let opts = ufbx::BakeOpts {
            resample_rate: fps,
            trim_start_time: true,
            ..Default::default()
        };
        let baked = ufbx::bake_anim(scene, &stack.anim, opts).map_err(|e| {
            FbxError(format!(
                "animation `{}`: {}",
                stack.element.name.as_ref(),
                e.description.as_ref()
            ))
        })?;
        let mut channels = Vec::new();
        let mut baked_nodes = vec![false; scene.nodes.len()];
        for bn in baked.nodes.iter() {
            if let Some(seen) = baked_nodes.get_mut(bn.typed_id as usize) {
                *seen = true;
            }
            if scene.nodes.get(bn.typed_id as usize).is_none() {
                continue;
            };
            let Some(target) = nodes[bn.typed_id as usize] else {
                continue;
            };
            let rest = rests[bn.typed_id as usize];
            let times =
                |t: &mut dyn Iterator<Item = f64>| t.map(|x| x as f32).collect::<Vec<f32>>();
            let keep = |constant: bool, same: bool| !(constant && same);
            if keep(
                bn.constant_translation,
                bn.translation_keys
                    .first()
                    .is_none_or(|k| vec3(k.value).abs_diff_eq(rest.translation, 1e-6)),
            ) {
                channels.push(ChannelKeys {
                    node: target,
                    path: "translation",
                    interpolation: "LINEAR",
                    times: times(&mut bn.translation_keys.iter().map(|k| k.time)),
                    values: bn
                        .translation_keys
                        .iter()
                        .flat_map(|k| vec3(k.value).to_array())
                        .collect(),
                });
            }
            if keep(
                bn.constant_rotation,
                bn.rotation_keys
                    .first()
                    .is_none_or(|k| quat(k.value).abs_diff_eq(rest.rotation, 1e-6)),
            ) {
                let mut prev = Quat::IDENTITY;
                let mut values = Vec::with_capacity(bn.rotation_keys.len() * 4);
                for (i, k) in bn.rotation_keys.iter().enumerate() {
                    let mut q = quat(k.value).normalize();
                    if i > 0 && prev.dot(q) < 0.0 {
                        q = -q;
                    }
                    prev = q;
                    values.extend(q.to_array());
                }
                channels.push(ChannelKeys {
                    node: target,
                    path: "rotation",
                    interpolation: "LINEAR",
                    times: times(&mut bn.rotation_keys.iter().map(|k| k.time)),
                    values,
                });
            }
            if keep(
                bn.constant_scale,
                bn.scale_keys
                    .first()
                    .is_none_or(|k| vec3(k.value).abs_diff_eq(rest.scale, 1e-6)),
            ) {
                channels.push(ChannelKeys {
                    node: target,
                    path: "scale",
                    interpolation: "LINEAR",
                    times: times(&mut bn.scale_keys.iter().map(|k| k.time)),
                    values: bn
                        .scale_keys
                        .iter()
                        .flat_map(|k| vec3(k.value).to_array())
                        .collect(),
                });
            }
        }
        // Nodes the clip does not move hold their own transform while it plays, which differs
        // from their rest where the rest is the bind pose.
        for node in scene.nodes.iter() {
            let id = node.element.typed_id as usize;
            let (Some(target), false) = (nodes[id], baked_nodes[id]) else {
                continue;
            };
            let (own, rest) = (transform(&node.local_transform), rests[id]);
            let held = [
                (
                    "translation",
                    own.translation.to_array().to_vec(),
                    !own.translation.abs_diff_eq(rest.translation, 1e-6),
                ),
                (
                    "rotation",
                    own.rotation.to_array().to_vec(),
                    !own.rotation.abs_diff_eq(rest.rotation, 1e-6),
                ),
                (
                    "scale",
                    own.scale.to_array().to_vec(),
                    !own.scale.abs_diff_eq(rest.scale, 1e-6),
                ),
            ];
            for (path, values, differs) in held {
                if differs {
                    channels.push(ChannelKeys {
                        node: target,
                        path,
                        interpolation: "LINEAR",
                        times: vec![0.0],
                        values,
                    });
                }
            }
        }
        if channels.is_empty() {
            info.notes.push(format!(
                "animation `{}` moves nothing and was left out",
                stack.element.name.as_ref()
            ));
            continue;
        }
        b.animation(stack.element.name.as_ref(), &channels);
    }
    Ok(())
}
