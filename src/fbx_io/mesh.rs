//! FBX meshes as glTF meshes: triangle primitives per material, skins, morph targets.

use super::{mat4, vec3, FbxError, FbxInfo};
use crate::gltf_io::build::{Builder, Target};
use crate::model::Transform;
use glam::{Mat4, Vec3};
use serde_json::{json, Value};
use std::collections::HashMap;

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
    let mut corners = vec![0u32; mesh.max_face_triangles * 3];
    let mut out = Vec::new();
    for part in mesh.material_parts.iter() {
        let (v, indices) = part_vertices(mesh, part, skin, shapes, &mut corners, unweighted);
        if indices.is_empty() {
            continue;
        }
        out.push(primitive(
            b,
            mesh,
            part,
            &v,
            &indices,
            skin.is_some(),
            materials,
        ));
    }
    out
}

/// The vertices of one material part, triangulated, each distinct corner (position, normal, UV,
/// control point) once, and the triangles' indices into them.
fn part_vertices(
    mesh: &ufbx::Mesh,
    part: &ufbx::MeshPart,
    skin: Option<&ufbx::SkinDeformer>,
    shapes: &[(String, f32, Vec<Vec3>, Vec<Vec3>)],
    corners: &mut [u32],
    unweighted: &mut usize,
) -> (Vertices, Vec<u32>) {
    let fallback = skin.map_or(0, root_cluster);
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
        let n = ufbx::triangulate_face(corners, mesh, *face) as usize;
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
    (v, indices)
}

/// The glTF primitive of one material part: its attributes, indices, material and morph
/// targets written into the buffer.
fn primitive(
    b: &mut Builder,
    mesh: &ufbx::Mesh,
    part: &ufbx::MeshPart,
    v: &Vertices,
    indices: &[u32],
    skinned: bool,
    materials: &[usize],
) -> Value {
    let mut attributes = json!({
        "POSITION": b.floats(&v.positions, 3, Target::Vertices),
        "NORMAL": b.floats(&v.normals, 3, Target::Vertices),
    });
    if mesh.vertex_uv.exists {
        attributes["TEXCOORD_0"] = json!(b.floats(&v.uvs, 2, Target::Vertices));
    }
    if skinned {
        attributes["JOINTS_0"] = json!(b.joints(&v.joints));
        attributes["WEIGHTS_0"] = json!(b.floats(&v.weights, 4, Target::Vertices));
    }
    let mut primitive = json!({"attributes": attributes, "indices": b.indices(indices), "mode": 4});
    if let Some(&m) = mesh
        .materials
        .get(part.index as usize)
        .and_then(|m| materials.get(m.element.typed_id as usize))
    {
        primitive["material"] = json!(m);
    }
    if !v.targets.is_empty() {
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
    primitive
}

/// Whether a matrix is the identity within rounding.
fn is_identity(m: &Mat4) -> bool {
    m.abs_diff_eq(Mat4::IDENTITY, 1e-5)
}

/// Meshes on their nodes; skinned meshes with their skins. A skinned mesh whose node is not at
/// the origin moves to a new root node, as glTF ignores (and three.js applies) the transform of
/// a skinned mesh's node.
pub(super) fn add_meshes(
    scene: &ufbx::Scene,
    b: &mut Builder,
    nodes: &[Option<usize>],
    materials: &[usize],
    info: &mut FbxInfo,
) -> Result<bool, FbxError> {
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
        if let Some(k) = ibms.iter().position(|m| !m.iter().all(|v| v.is_finite())) {
            let bone = skin.clusters[k]
                .bone_node
                .as_ref()
                .map_or("?".to_string(), |n| n.element.name.to_string());
            return Err(FbxError(format!(
                "mesh `{name}`: the bind matrix of bone `{bone}` is degenerate (zero scale), so it \
                 has no inverse and the skin cannot be rebuilt"
            )));
        }
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
    Ok(skinned)
}
