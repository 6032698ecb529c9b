//! Building a new glTF document from scratch, for readers of other formats (FBX, BVH): nodes,
//! accessors, meshes, skins, materials, images and animations go into one JSON document and one
//! binary buffer, packed as GLB bytes that [`read_bytes`](super::read_bytes) then reads like any
//! file. Every accessor gets the `min`/`max` and buffer-view target the validator asks for.

use crate::model::Transform;
use serde_json::{json, Map, Value};

/// A glTF document under construction.
#[derive(Debug)]
pub struct Builder {
    root: Map<String, Value>,
    bin: Vec<u8>,
    scene_roots: Vec<usize>,
}

/// What an accessor's buffer view is bound to, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Vertex attributes (`ARRAY_BUFFER`).
    Vertices,
    /// Triangle indices (`ELEMENT_ARRAY_BUFFER`).
    Indices,
    /// Neither: animation keys, inverse bind matrices.
    None,
}

/// One animation channel: a node's translation, rotation or scale (or a mesh's morph weights)
/// keyed at `times`.
#[derive(Debug, Clone)]
pub struct ChannelKeys {
    /// The node animated.
    pub node: usize,
    /// `translation`, `rotation`, `scale` or `weights`.
    pub path: &'static str,
    /// `LINEAR` or `STEP`.
    pub interpolation: &'static str,
    /// Key times, seconds, increasing.
    pub times: Vec<f32>,
    /// The values, flattened (3 per key for vectors, 4 for rotations, one per target for
    /// weights).
    pub values: Vec<f32>,
}

fn push(root: &mut Map<String, Value>, key: &str, item: Value) -> usize {
    let list = root
        .entry(key)
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .expect("top-level glTF lists are arrays");
    list.push(item);
    list.len() - 1
}

fn trs(t: &Transform) -> Map<String, Value> {
    let mut node = Map::new();
    if t.translation != glam::Vec3::ZERO {
        node.insert("translation".into(), json!(t.translation.to_array()));
    }
    if t.rotation != glam::Quat::IDENTITY {
        node.insert("rotation".into(), json!(t.rotation.normalize().to_array()));
    }
    if t.scale != glam::Vec3::ONE {
        node.insert("scale".into(), json!(t.scale.to_array()));
    }
    node
}

impl Builder {
    /// An empty document whose `asset.generator` names the converter.
    pub fn new(generator: &str) -> Builder {
        let mut root = Map::new();
        root.insert(
            "asset".into(),
            json!({"version": "2.0", "generator": generator}),
        );
        Builder {
            root,
            bin: Vec::new(),
            scene_roots: Vec::new(),
        }
    }

    /// Adds a node with a local transform below `parent` (a scene root when `None`); returns
    /// its index. Parents must be added before their children.
    pub fn node(&mut self, name: &str, transform: &Transform, parent: Option<usize>) -> usize {
        let mut node = trs(transform);
        node.insert("name".into(), json!(name));
        let index = push(&mut self.root, "nodes", Value::Object(node));
        match parent {
            Some(p) => {
                let parent = &mut self.root["nodes"][p];
                match parent.get_mut("children").and_then(Value::as_array_mut) {
                    Some(children) => children.push(json!(index)),
                    None => parent["children"] = json!([index]),
                }
            }
            None => self.scene_roots.push(index),
        }
        index
    }

    /// Sets `key` of node `node` (such as `mesh` or `skin`).
    pub fn set_node(&mut self, node: usize, key: &str, value: Value) {
        self.root["nodes"][node][key] = value;
    }

    /// Sets `key` of mesh `mesh` (such as `extras`).
    pub fn set_mesh(&mut self, mesh: usize, key: &str, value: Value) {
        self.root["meshes"][mesh][key] = value;
    }

    fn view(&mut self, bytes: &[u8], target: Target) -> usize {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        let mut view =
            json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        match target {
            Target::Vertices => view["target"] = json!(34962),
            Target::Indices => view["target"] = json!(34963),
            Target::None => {}
        }
        self.bin.extend_from_slice(bytes);
        push(&mut self.root, "bufferViews", view)
    }

    /// An accessor of floats: `width` components per element (`SCALAR`, `VEC2`, `VEC3`,
    /// `VEC4` or `MAT4` by width), with `min` and `max`.
    pub fn floats(&mut self, values: &[f32], width: usize, target: Target) -> usize {
        let kind = match width {
            1 => "SCALAR",
            2 => "VEC2",
            3 => "VEC3",
            4 => "VEC4",
            _ => "MAT4",
        };
        let count = values.len() / width;
        let mut lo = vec![f32::INFINITY; width];
        let mut hi = vec![f32::NEG_INFINITY; width];
        for chunk in values.chunks_exact(width) {
            for (k, v) in chunk.iter().enumerate() {
                lo[k] = lo[k].min(*v);
                hi[k] = hi[k].max(*v);
            }
        }
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, target);
        let mut accessor =
            json!({"bufferView": view, "componentType": 5126, "count": count, "type": kind});
        if count > 0 && width != 16 {
            accessor["min"] = json!(lo);
            accessor["max"] = json!(hi);
        }
        push(&mut self.root, "accessors", accessor)
    }

    /// An accessor of triangle indices (unsigned short when they fit, else unsigned int).
    pub fn indices(&mut self, values: &[u32]) -> usize {
        let max = values.iter().copied().max().unwrap_or(0);
        let (bytes, component): (Vec<u8>, u32) = if max < u16::MAX as u32 {
            (
                values
                    .iter()
                    .flat_map(|v| (*v as u16).to_le_bytes())
                    .collect(),
                5123,
            )
        } else {
            (values.iter().flat_map(|v| v.to_le_bytes()).collect(), 5125)
        };
        let view = self.view(&bytes, Target::Indices);
        let accessor = json!({"bufferView": view, "componentType": component, "count": values.len(), "type": "SCALAR"});
        push(&mut self.root, "accessors", accessor)
    }

    /// An accessor of skin joint indices, four per vertex (unsigned short).
    pub fn joints(&mut self, values: &[u16]) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, Target::Vertices);
        let accessor = json!({"bufferView": view, "componentType": 5123, "count": values.len() / 4, "type": "VEC4"});
        push(&mut self.root, "accessors", accessor)
    }

    /// Adds a mesh with `primitives` (glTF primitive objects); returns its index.
    pub fn mesh(&mut self, name: &str, primitives: Vec<Value>) -> usize {
        push(
            &mut self.root,
            "meshes",
            json!({"name": name, "primitives": primitives}),
        )
    }

    /// Adds a skin over the `joints` nodes with column-major inverse bind matrices.
    pub fn skin(&mut self, name: &str, joints: &[usize], inverse_binds: &[[f32; 16]]) -> usize {
        let flat: Vec<f32> = inverse_binds.iter().flatten().copied().collect();
        let ibm = self.floats(&flat, 16, Target::None);
        push(
            &mut self.root,
            "skins",
            json!({"name": name, "joints": joints, "inverseBindMatrices": ibm}),
        )
    }

    /// Adds an embedded image; returns its index.
    pub fn image(&mut self, name: &str, bytes: &[u8], mime: &str) -> usize {
        let view = self.view(bytes, Target::None);
        push(
            &mut self.root,
            "images",
            json!({"name": name, "bufferView": view, "mimeType": mime}),
        )
    }

    /// Adds a texture of image `image` (default sampler); returns its index.
    pub fn texture(&mut self, image: usize) -> usize {
        push(&mut self.root, "textures", json!({"source": image}))
    }

    /// Adds a material (a glTF material object); returns its index.
    pub fn material(&mut self, material: Value) -> usize {
        push(&mut self.root, "materials", material)
    }

    /// Adds an animation of `channels`; channels without keys are left out.
    pub fn animation(&mut self, name: &str, channels: &[ChannelKeys]) -> usize {
        let mut samplers = Vec::new();
        let mut out = Vec::new();
        for c in channels.iter().filter(|c| !c.times.is_empty()) {
            let input = self.floats(&c.times, 1, Target::None);
            let width = match c.path {
                "rotation" => 4,
                "weights" => 1,
                _ => 3,
            };
            let output = self.floats(&c.values, width, Target::None);
            // Output accessors of animations need no bounds; drop them to keep files small.
            if let Some(a) = self.root["accessors"][output].as_object_mut() {
                a.remove("min");
                a.remove("max");
            }
            out.push(
                json!({"sampler": samplers.len(), "target": {"node": c.node, "path": c.path}}),
            );
            samplers
                .push(json!({"input": input, "output": output, "interpolation": c.interpolation}));
        }
        push(
            &mut self.root,
            "animations",
            json!({"name": name, "channels": out, "samplers": samplers}),
        )
    }

    /// Declares the top-level extension `name` (in `extensionsUsed`) with its object `value`.
    pub fn extension(&mut self, name: &str, value: Value) {
        let used = self
            .root
            .entry("extensionsUsed")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Some(list) = used.as_array_mut() {
            if !list.iter().any(|n| n == name) {
                list.push(json!(name));
            }
        }
        let all = self
            .root
            .entry("extensions")
            .or_insert_with(|| Value::Object(Map::new()));
        all[name] = value;
    }

    /// The document as GLB bytes.
    pub fn finish(mut self) -> Vec<u8> {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        self.root.insert("scene".into(), json!(0));
        self.root
            .insert("scenes".into(), json!([{"nodes": self.scene_roots}]));
        if !self.bin.is_empty() {
            self.root
                .insert("buffers".into(), json!([{"byteLength": self.bin.len()}]));
        }
        let mut text =
            serde_json::to_vec(&Value::Object(self.root)).expect("JSON values serialize");
        while text.len() % 4 != 0 {
            text.push(b' ');
        }
        let total = 12
            + 8
            + text.len()
            + if self.bin.is_empty() {
                0
            } else {
                8 + self.bin.len()
            };
        let mut glb = Vec::with_capacity(total);
        glb.extend_from_slice(b"glTF");
        glb.extend_from_slice(&2u32.to_le_bytes());
        glb.extend_from_slice(&(total as u32).to_le_bytes());
        glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
        glb.extend_from_slice(b"JSON");
        glb.extend_from_slice(&text);
        if !self.bin.is_empty() {
            glb.extend_from_slice(&(self.bin.len() as u32).to_le_bytes());
            glb.extend_from_slice(b"BIN\0");
            glb.extend_from_slice(&self.bin);
        }
        glb
    }
}

/// The glTF name of an interpolation.
fn interpolation(i: crate::model::Interpolation) -> &'static str {
    match i {
        crate::model::Interpolation::Linear => "LINEAR",
        crate::model::Interpolation::Step => "STEP",
        crate::model::Interpolation::CubicSpline => "CUBICSPLINE",
    }
}

/// A glTF document (GLB bytes) holding `model`'s skeletons and clips and nothing else, for
/// formats that carry only motion (BVH): each skeleton's bones as nodes (under a node holding
/// its base transform, when that is not the identity or the skeleton had such nodes), its joints as a skin that no mesh uses
/// (so that readers find the skeleton), and every clip as an animation.
pub fn from_model(model: &crate::model::Model, generator: &str) -> Vec<u8> {
    let mut b = Builder::new(generator);
    let mut node_of: Vec<Vec<usize>> = Vec::with_capacity(model.skeletons.len());
    for s in &model.skeletons {
        // A skeleton read from a file with a node above its bones (an armature) keeps one,
        // named as the skeleton, whatever its transform.
        let top = (s.base != glam::Mat4::IDENTITY || !s.base_nodes.is_empty()).then(|| {
            let (scale, rotation, translation) = s.base.to_scale_rotation_translation();
            let t = Transform {
                translation,
                rotation,
                scale,
            };
            b.node(&s.name, &t, None)
        });
        let mut nodes = Vec::with_capacity(s.bones.len());
        for bone in &s.bones {
            let parent = bone.parent.map(|p| nodes[p.index()]).or(top);
            nodes.push(b.node(&bone.name, &bone.rest, parent));
        }
        let world = s.rest_world();
        let joints: Vec<usize> = (0..s.bones.len())
            .filter(|&i| s.bones[i].is_joint)
            .collect();
        if !joints.is_empty() {
            let ibms: Vec<[f32; 16]> = joints
                .iter()
                .map(|&i| {
                    glam::Mat4::from(glam::Affine3A::from_mat4(world[i]).inverse()).to_cols_array()
                })
                .collect();
            let skin_joints: Vec<usize> = joints.iter().map(|&i| nodes[i]).collect();
            b.skin(&s.name, &skin_joints, &ibms);
        }
        node_of.push(nodes);
    }
    for clip in &model.clips {
        let Some(nodes) = node_of.get(clip.skeleton.index()) else {
            continue;
        };
        let mut channels = Vec::new();
        for (k, tracks) in clip.tracks.iter().enumerate() {
            let Some(&node) = nodes.get(k) else {
                continue;
            };
            if let Some(t) = &tracks.translation {
                channels.push(ChannelKeys {
                    node,
                    path: "translation",
                    interpolation: interpolation(t.interpolation),
                    times: t.times.to_vec(),
                    values: t.values.iter().flat_map(|v| v.to_array()).collect(),
                });
            }
            if let Some(t) = &tracks.rotation {
                channels.push(ChannelKeys {
                    node,
                    path: "rotation",
                    interpolation: interpolation(t.interpolation),
                    times: t.times.to_vec(),
                    values: t.values.iter().flat_map(|v| v.to_array()).collect(),
                });
            }
            if let Some(t) = &tracks.scale {
                channels.push(ChannelKeys {
                    node,
                    path: "scale",
                    interpolation: interpolation(t.interpolation),
                    times: t.times.to_vec(),
                    values: t.values.iter().flat_map(|v| v.to_array()).collect(),
                });
            }
        }
        b.animation(&clip.name, &channels);
    }
    b.finish()
}
