//! The legs' cost of the ops and the skate it buys, as math.md measures them, computed here
//! independently of `check::retarget` (issue 42, item 2): per leg, the thigh's and the shin's
//! direction (upper leg → lower leg joint, lower leg → foot joint, skeleton space, the source
//! seen turned as the plan turns it) against the source's, worst and mean over the frames; and
//! foot skate in leg lengths over the source's contacts.

use glam::Vec3;
use skelnorm::model::Clip;
use skelnorm::profile::Profile;
use skelnorm::retarget::Plan;

use super::ops::joint_frames;
use super::Normalized;

/// One leg's figures.
#[derive(Debug, Clone, Copy)]
pub struct Leg {
    pub side: &'static str,
    /// The thigh's and the shin's worst angle from the source's over the frames, degrees (less
    /// their angle at rest, which normalized rigs make 0).
    pub worst_deg: f32,
    /// The mean of both segments' angles over the frames, degrees.
    pub mean_deg: f32,
    /// The source foot's skate: mean horizontal step over its contact frame pairs, in its own
    /// leg lengths per frame.
    pub source_skate: f32,
    /// The target foot's, over the same frame pairs, in the target's leg lengths.
    pub target_skate: f32,
    /// How many frame pairs the source's foot is in contact over.
    pub contacts: usize,
}

impl std::fmt::Display for Leg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} leg worst {:.2}° mean {:.3}°, skate {:.5} → {:.5}% of leg length per frame over {} contact pairs",
            self.side,
            self.worst_deg,
            self.mean_deg,
            self.source_skate * 100.0,
            self.target_skate * 100.0,
            self.contacts
        )
    }
}

fn bone(n: &Normalized, name: &str) -> usize {
    let p = Profile::humanoid().find(name).unwrap();
    n.map.get(p).unwrap().index()
}

/// The upper leg, lower leg and foot joints of one side.
fn leg(n: &Normalized, side: &str) -> [usize; 3] {
    ["UpperLeg", "LowerLeg", "Foot"].map(|b| bone(n, &format!("{side}{b}")))
}

/// Thigh plus shin at rest, averaged over both legs.
fn leg_length(n: &Normalized) -> f32 {
    let skel = &n.model.skeletons[0];
    let (rest, below) = (skel.rest_world(), skel.base.inverse());
    let at = |i: usize| below.transform_point3(rest[i].w_axis.truncate());
    let sum: f32 = ["Left", "Right"]
        .iter()
        .map(|side| {
            let [a, b, c] = leg(n, side);
            at(a).distance(at(b)) + at(b).distance(at(c))
        })
        .sum();
    sum / 2.0
}

fn angle_deg(a: Vec3, b: Vec3) -> f32 {
    a.normalize()
        .dot(b.normalize())
        .clamp(-1.0, 1.0)
        .acos()
        .to_degrees()
}

/// Both legs' figures for `tclip` on `t` retargeted by `plan` from `sclip` on `s`, both
/// sampled at 30 fps.
pub fn leg_cost(
    s: &Normalized,
    sclip: &Clip,
    t: &Normalized,
    tclip: &Clip,
    plan: &Plan,
) -> [Leg; 2] {
    let turn = plan.source_turn();
    let sf: Vec<Vec<Vec3>> = joint_frames(&s.model.skeletons[0], sclip)
        .into_iter()
        .map(|f| f.into_iter().map(|p| turn * p).collect())
        .collect();
    let tf = joint_frames(&t.model.skeletons[0], tclip);
    let n = sf.len().min(tf.len());
    let (ls, lt) = (leg_length(s), leg_length(t));
    ["Left", "Right"].map(|side| {
        let ([sa, sb, sc], [ta, tb, tc]) = (leg(s, side), leg(t, side));
        let (mut worst, mut sum) = (0.0f32, 0.0f32);
        for f in 0..n {
            let (a, b) = (&sf[f], &tf[f]);
            for (x, y) in [
                (a[sb] - a[sa], b[tb] - b[ta]),
                (a[sc] - a[sb], b[tc] - b[tb]),
            ] {
                let d = angle_deg(x, y);
                worst = worst.max(d);
                sum += d;
            }
        }
        let low = sf[..n]
            .iter()
            .map(|f| f[sc].y)
            .fold(f32::INFINITY, f32::min);
        let contact = |f: usize| sf[f][sc].y - low <= 0.03 * ls;
        let step = |frames: &[Vec<Vec3>], f: usize, j: usize| {
            let d = frames[f + 1][j] - frames[f][j];
            Vec3::new(d.x, 0.0, d.z).length()
        };
        let (mut ss, mut ts, mut pairs) = (0.0f32, 0.0f32, 0usize);
        for f in 0..n.saturating_sub(1) {
            if contact(f) && contact(f + 1) {
                ss += step(&sf, f, sc);
                ts += step(&tf, f, tc);
                pairs += 1;
            }
        }
        let per = |x: f32, l: f32| {
            if pairs > 0 {
                x / pairs as f32 / l
            } else {
                f32::NAN
            }
        };
        Leg {
            side,
            worst_deg: worst,
            mean_deg: sum / (2 * n.max(1)) as f32,
            source_skate: per(ss, ls),
            target_skate: per(ts, lt),
            contacts: pairs,
        }
    })
}

/// A glTF, FBX or BVH file read as the CLI reads it, normalized with the defaults, its first
/// skeleton mapped.
pub fn normalized_any(path: &std::path::Path) -> Normalized {
    use skelnorm::mapping::{map_skeleton, MapOptions};
    use skelnorm::pipeline::{normalize, NormalizeOptions};
    let profile = Profile::humanoid();
    let mut doc = skelnorm::io::read(path, &skelnorm::io::ReadOptions::default()).unwrap();
    normalize(&mut doc.model, profile, &NormalizeOptions::default()).unwrap();
    let map = map_skeleton(&doc.model.skeletons[0], profile, &MapOptions::default());
    Normalized {
        model: doc.model,
        map,
    }
}
