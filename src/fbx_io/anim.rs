//! FBX animation stacks as glTF animations, baked by ufbx, and their float curves (animated
//! user properties) beside them.

use super::{quat, transform, vec3, FbxError, FbxInfo};
use crate::gltf_io::build::{Builder, ChannelKeys};
use crate::model::{Curve, Interpolation, Track, Transform};
use glam::{Quat, Vec3};

/// One clip per animation stack, baked at the scene's frame rate, starting at 0; each added
/// animation's float curves go to `info.curves` (see [`curves`]).
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
        if channels.is_empty() {
            info.notes.push(format!(
                "animation `{}` moves nothing and was left out",
                stack.element.name.as_ref()
            ));
            continue;
        }
        let index = b.animation(stack.element.name.as_ref(), &channels);
        let found = curves(scene, &baked, stack.element.name.as_ref(), info);
        if !found.is_empty() {
            info.curves.push((index, found));
        }
    }
    Ok(())
}

/// The float curves of one baked stack: every animated user-defined number, integer or boolean
/// property of a node (`P: "FootLock_L", "Number", "", "A+U"` in the node's `Properties70`,
/// driven by an `AnimationCurveNode` connected to it `OP` with that property's name, its curve
/// on the channel `d|FootLock_L`), which is how Unreal writes its animation curves (on the root
/// bone) and what its importer reads back as curves. Named by the property; a name a node
/// before had already is left out, with a note.
fn curves(
    scene: &ufbx::Scene,
    baked: &ufbx::BakedAnim,
    stack: &str,
    info: &mut FbxInfo,
) -> Vec<Curve> {
    let mut out: Vec<Curve> = Vec::new();
    for be in baked.elements.iter() {
        let Some(element) = scene.elements.get(be.element_id as usize) else {
            continue;
        };
        if element.type_ != ufbx::ElementType::Node {
            continue;
        }
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
            if out.iter().any(|c| c.name == name) {
                info.notes.push(format!(
                    "animation `{stack}`: curve `{name}` of node `{}` left out (another node has one of that name)",
                    element.name.as_ref()
                ));
                continue;
            }
            out.push(Curve {
                name: name.to_string(),
                track: Track {
                    interpolation: Interpolation::Linear,
                    times: bp.keys.iter().map(|k| k.time as f32).collect(),
                    values: bp.keys.iter().map(|k| k.value.x as f32).collect(),
                },
            });
        }
    }
    out
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
    let at_rest = keys
        .first()
        .is_none_or(|k| vec3(k.value).abs_diff_eq(rest, 1e-6));
    (!(constant && at_rest)).then(|| {
        channel(
            node,
            path,
            keys.iter().map(|k| k.time as f32).collect(),
            keys.iter().flat_map(|k| vec3(k.value).to_array()).collect(),
        )
    })
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
    let rotation_at_rest = bn
        .rotation_keys
        .first()
        .is_none_or(|k| same_rotation(quat(k.value), rest.rotation));
    let rotation = (!(bn.constant_rotation && rotation_at_rest)).then(|| {
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
        let times = bn.rotation_keys.iter().map(|k| k.time as f32).collect();
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
