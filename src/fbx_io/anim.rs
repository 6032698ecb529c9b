//! FBX animation stacks as glTF animations, baked by ufbx, and their float curves (animated
//! user properties) beside them.

use super::{quat, transform, vec3, FbxCurve, FbxError, FbxInfo};
use crate::gltf_io::build::{Builder, ChannelKeys};
use crate::model::{Curve, Interpolation, Track, Transform};
use glam::{Quat, Vec3};

/// One clip per animation stack, baked at the scene's frame rate, starting at 0; each added
/// animation's float curves go to `info.curves` (see [`curves`]). A stack that keys nothing, or
/// whose keys move nothing, is left out with a note.
pub(super) fn add_animations(
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
            let id = bn.typed_id as usize;
            if let Some(seen) = baked_nodes.get_mut(id) {
                *seen = true;
            }
            if let Some(&Some(target)) = nodes.get(id) {
                channels.extend(baked_channels(bn, target, rests[id]));
            }
        }
        channels.extend(held_channels(scene, rests, nodes, &baked_nodes));
        let notes = info.notes.len();
        let found = curves(scene, &baked, nodes, stack.element.name.as_ref(), info);
        // A stack that keys nothing is no clip, even where its nodes hold a pose other than the
        // bind pose (Mixamo's empty 0-second `Take 001`): Blender makes actions from keyed
        // curves only, so it skips such a stack too.
        if channels.is_empty() || !keys_anything(stack) {
            // Only the stack's own note: not those about curves left out of a stack left out.
            info.notes.truncate(notes);
            let names: Vec<String> = found
                .iter()
                .map(|c| format!("`{}`", c.curve.name))
                .collect();
            info.notes.push(if names.is_empty() {
                format!(
                    "animation `{}` moves nothing and was left out",
                    stack.element.name.as_ref()
                )
            } else {
                format!(
                    "animation `{}` moves nothing and was left out, and with it its float curves {}",
                    stack.element.name.as_ref(),
                    names.join(", ")
                )
            });
            continue;
        }
        let index = b.animation(stack.element.name.as_ref(), &channels);
        if !found.is_empty() {
            info.curves.push((index, found));
        }
    }
    Ok(())
}

/// Whether any layer of `stack` has a curve with a key.
fn keys_anything(stack: &ufbx::AnimStack) -> bool {
    stack.layers.iter().any(|layer| {
        layer
            .anim_values
            .iter()
            .any(|v| v.curves.iter().flatten().any(|c| !c.keyframes.is_empty()))
    })
}

/// The float curves of one baked stack: every animated user-defined number, integer or boolean
/// property of a node (`P: "FootLock_L", "Number", "", "A+U"` in the node's `Properties70`,
/// driven by an `AnimationCurveNode` connected to it `OP` with that property's name, its curve
/// on the channel `d|FootLock_L`), which is how Unreal writes its animation curves (on the root
/// bone) and what its importer reads back as curves. Named by the property, in ufbx's order
/// (nodes as the file lists them, then a node's properties by name), each with the glTF node
/// (`nodes`: by ufbx node id) of the node it is on, so the reader can give it to the clip of the
/// skeleton holding that node. A name several nodes under one node at the top of the scene
/// have (Maya keys `lockInfluenceWeights` on every joint) is kept once, the first node's, with
/// one note for the name (nodes under different top nodes, as two characters' root bones, keep
/// theirs); a curve with a non-finite time or value is left out with a note, so that a curve
/// nothing uses never makes a file unreadable.
fn curves(
    scene: &ufbx::Scene,
    baked: &ufbx::BakedAnim,
    nodes: &[Option<usize>],
    stack: &str,
    info: &mut FbxInfo,
) -> Vec<FbxCurve> {
    let mut out: Vec<FbxCurve> = Vec::new();
    // Per kept curve: the node it came from, its top node and how many nodes had its name
    // under that top node.
    let mut owners: Vec<(String, u32, usize)> = Vec::new();
    for be in baked.elements.iter() {
        let Some(element) = scene.elements.get(be.element_id as usize) else {
            continue;
        };
        if element.type_ != ufbx::ElementType::Node {
            continue;
        }
        let Some(node) = scene.nodes.get(element.typed_id as usize) else {
            continue;
        };
        let top = top_node(node);
        for bp in be.props.iter() {
            let Some(prop) = ufbx::find_prop(&element.props, bp.name.as_ref()) else {
                continue;
            };
            let number = matches!(
                prop.type_,
                ufbx::PropType::Number | ufbx::PropType::Integer | ufbx::PropType::Boolean
            );
            if !number || !prop.flags.has_any(ufbx::PropFlags::USER_DEFINED) {
                continue;
            }
            let name = bp.name.as_ref();
            if let Some(i) = out
                .iter()
                .zip(&owners)
                .position(|(c, o)| c.curve.name == name && o.1 == top)
            {
                owners[i].2 += 1;
                continue;
            }
            let times: Vec<f32> = bp.keys.iter().map(|k| k.time as f32).collect();
            let values: Vec<f32> = bp.keys.iter().map(|k| k.value.x as f32).collect();
            if !times.iter().chain(&values).all(|x| x.is_finite()) {
                info.notes.push(format!(
                    "animation `{stack}`: curve `{name}` of node `{}` left out (a key time or value is not a finite number)",
                    element.name.as_ref()
                ));
                continue;
            }
            out.push(FbxCurve {
                node: nodes
                    .get(element.typed_id as usize)
                    .copied()
                    .flatten()
                    .map(|n| n as u32),
                curve: Curve {
                    name: name.to_string(),
                    track: Track {
                        interpolation: Interpolation::Linear,
                        times: times.into(),
                        values: values.into(),
                    },
                },
            });
            owners.push((element.name.as_ref().to_string(), top, 1));
        }
    }
    for (c, (node, _, count)) in out.iter().zip(&owners) {
        if *count > 1 {
            info.notes.push(format!(
                "animation `{stack}`: curve `{}` is on {count} nodes; node `{node}`'s was kept, the others left out",
                c.curve.name
            ));
        }
    }
    out
}

/// The ufbx id of the node at the top of the scene (a child of its root) that `node` is in.
fn top_node(node: &ufbx::Node) -> u32 {
    let mut top = node;
    while let Some(parent) = top.parent.as_ref().filter(|p| !p.is_root) {
        top = parent;
    }
    top.element.typed_id
}

/// A LINEAR channel of glTF node `node`.
fn channel(node: usize, path: &'static str, times: Vec<f32>, values: Vec<f32>) -> ChannelKeys {
    ChannelKeys {
        node,
        path,
        interpolation: "LINEAR",
        times,
        values,
    }
}

/// A baked translation or scale channel, unless it holds its rest value the whole clip.
fn vec3_channel(
    node: usize,
    path: &'static str,
    keys: &[ufbx::BakedVec3],
    constant: bool,
    rest: Vec3,
) -> Option<ChannelKeys> {
    let keys = from_zero(keys.iter().map(|k| (k.time, vec3(k.value))), Vec3::lerp);
    let at_rest = keys.first().is_none_or(|k| k.1.abs_diff_eq(rest, 1e-6));
    (!(constant && at_rest)).then(|| {
        channel(
            node,
            path,
            keys.iter().map(|k| k.0 as f32).collect(),
            keys.iter().flat_map(|k| k.1.to_array()).collect(),
        )
    })
}

/// The keys of one baked channel from time 0 on. ufbx bakes a curve from its first key, which
/// can lie before the take starts (3ds Max Biped exports key some bones a frame early:
/// wiseMan.FBX's take has keys at −1/30 s), while glTF key times must not be negative and the
/// take plays from its start. Keys before 0 go; where the first key left lies after 0, the one
/// before it gives the value at 0 (`mix`, as LINEAR keys play), so the clip is unchanged from 0.
fn from_zero<V: Copy>(
    keys: impl Iterator<Item = (f64, V)>,
    mix: impl Fn(V, V, f32) -> V,
) -> Vec<(f64, V)> {
    let keys: Vec<(f64, V)> = keys.collect();
    let Some(first) = keys.iter().position(|k| k.0 >= 0.0) else {
        // Every key lies before the start: the last one holds from there.
        return keys
            .last()
            .map(|&(_, v)| vec![(0.0, v)])
            .unwrap_or_default();
    };
    let mut out = Vec::with_capacity(keys.len() - first + 1);
    if let (Some(&(t0, a)), &(t1, b)) = (first.checked_sub(1).map(|i| &keys[i]), &keys[first]) {
        if t1 > 0.0 {
            out.push((0.0, mix(a, b, (-t0 / (t1 - t0)) as f32)));
        }
    }
    out.extend_from_slice(&keys[first..]);
    out
}

/// The channels of one baked node (glTF node `target`, at rest `rest`): translation, rotation
/// (each key in the hemisphere of the one before, so LINEAR keys slerp the short way) and scale,
/// each left out when it holds its rest value the whole clip.
fn baked_channels(bn: &ufbx::BakedNode, target: usize, rest: Transform) -> Vec<ChannelKeys> {
    let translation = vec3_channel(
        target,
        "translation",
        &bn.translation_keys,
        bn.constant_translation,
        rest.translation,
    );
    let rotation_keys = from_zero(
        bn.rotation_keys.iter().map(|k| (k.time, quat(k.value))),
        Quat::slerp,
    );
    let rotation_at_rest = rotation_keys
        .first()
        .is_none_or(|k| same_rotation(k.1, rest.rotation));
    let rotation = (!(bn.constant_rotation && rotation_at_rest)).then(|| {
        let mut prev = Quat::IDENTITY;
        let mut values = Vec::with_capacity(rotation_keys.len() * 4);
        for (i, &(_, q)) in rotation_keys.iter().enumerate() {
            let mut q = q.normalize();
            if i > 0 && prev.dot(q) < 0.0 {
                q = -q;
            }
            prev = q;
            values.extend(q.to_array());
        }
        let times = rotation_keys.iter().map(|k| k.0 as f32).collect();
        channel(target, "rotation", times, values)
    });
    let scale = vec3_channel(
        target,
        "scale",
        &bn.scale_keys,
        bn.constant_scale,
        rest.scale,
    );
    [translation, rotation, scale]
        .into_iter()
        .flatten()
        .collect()
}

/// Nodes the clip does not move hold their own transform while it plays, which differs from
/// their rest where the rest is the bind pose: one key at 0 for each such value.
fn held_channels(
    scene: &ufbx::Scene,
    rests: &[Transform],
    nodes: &[Option<usize>],
    baked: &[bool],
) -> Vec<ChannelKeys> {
    let mut out = Vec::new();
    for node in scene.nodes.iter() {
        let id = node.element.typed_id as usize;
        let (Some(target), false) = (nodes[id], baked[id]) else {
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
                !same_rotation(own.rotation, rest.rotation),
            ),
            (
                "scale",
                own.scale.to_array().to_vec(),
                !own.scale.abs_diff_eq(rest.scale, 1e-6),
            ),
        ];
        for (path, values, differs) in held {
            if differs {
                out.push(channel(target, path, vec![0.0], values));
            }
        }
    }
    out
}

/// Whether two unit quaternions are the same rotation (q and −q are), up to 1e-6 per element.
fn same_rotation(a: Quat, b: Quat) -> bool {
    a.abs_diff_eq(b, 1e-6) || a.abs_diff_eq(-b, 1e-6)
}
