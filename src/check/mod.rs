//! Measures the invariants of normalization on any model, or any pair (input, output): skin
//! invariance over every clip, the T-pose, bones' +Y toward their tails, facing, roll (palms),
//! and how well a clip transfers between two normalized rigs. Measures, never changes.
//! Imports `model`, `profile` and `mapping`.

mod lanes;
pub mod retarget;

use crate::mapping::BoneMap;
use crate::model::{
    angle_deg, arc, has_dropped_keys, reread_clip, turn_deg, BoneId, Clip, Model, Pose,
    RereadableKeys, RunSampler, Skeleton, SkeletonId, Transform,
};
use crate::profile::{reference_tail, Profile, ProfileBoneId, Side, MAX_TAIL_DEG};
use glam::{DAffine3, DQuat, Mat4, Quat, Vec3};
use lanes::{compose, error, local, times, turned, Affine, Factor, Frames, Lanes, F4};
use serde::Serialize;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Sampling rate of the checks, frames per second.
pub const FPS: f32 = 30.0;

/// The largest change of any joint's skinning matrix over every sampled frame of every clip.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SkinCheck {
    /// Clips compared.
    pub clips: usize,
    /// Frames sampled over all clips ([`FPS`] per second, both ends included).
    pub frames: usize,
    /// Skinning matrices compared (frames × joints).
    pub matrices: usize,
    /// Largest element difference of `J(t) · IBM`: translation elements divided by the
    /// character's height, axis elements by their column's length (see [`skin`]).
    pub max_error: f32,
    /// Where the largest difference is: clip, time, joint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst: Option<String>,
}

/// Compares skeleton `k`'s skinning matrices in `before` and `after` (clips paired by name,
/// bones by index) at [`FPS`] frames per second. The error is unit-free: translation elements
/// relative to the character's height, axis elements relative to the length of their column
/// (1 for a mesh in the skeleton's units, so then this is the plain element difference). Skeletons without skins compare bone world
/// matrices instead, allowing each bone's frame one constant change (taken from the first
/// frame): exactly what a bind matrix would absorb. When the whole scene turned in between
/// ([`Model::scene_turn`]), `before` is turned with it. Runs on every core ([`cores`]);
/// [`skin_beside`] runs beside other work.
pub fn skin(before: &Model, after: &Model, k: SkeletonId) -> SkinCheck {
    skin_rereading(before, after, k, None)
}

/// [`skin`] where `before` may be a copy of the model as read that let go of the key values
/// `rereading` can read again ([`crate::model::drop_rereadable`]): each clip is taken back whole
/// ([`crate::model::reread_clip`]) by each thread that checks it, one clip at a time. The result is
/// [`skin`]'s of the model as read; a clip that cannot be taken back whole counts as an
/// infinite error at its first frame.
pub fn skin_rereading(
    before: &Model,
    after: &Model,
    k: SkeletonId,
    rereading: Option<&dyn RereadableKeys>,
) -> SkinCheck {
    let at = pair_clips(before, after, k);
    let pairs = clips_of(&before.clips, after, &at);
    let pass = SkinPass::over(before, after, k, &pairs, &at, rereading);
    let runs = runs_of(&pairs, 0..pairs.len());
    let (found, ()) = run_all(&pass, &pairs, &runs, cores(), || ());
    result(&pass, &pairs, &runs, found)
}

/// The cores this process may run on (1 when that is unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// [`skin`] on `threads` threads in all, the calling thread among them, beside `beside`
/// (writing a file, say), which the calling thread runs first; returns the check and what
/// `beside` returned. The runs of frames with all but the last third of the frames are checked
/// first, and the keys of the clips they check through let go of (unless `after` shares them):
/// the memory is `beside`'s to reuse.
/// Then the calling thread runs `beside` while the other threads check the rest, and joins them
/// once done. (Writing the 3 MB benchmark file costs about as much as checking 30% of its
/// frames on one thread.)
pub fn skin_beside<T>(
    mut before: Model,
    after: &Model,
    k: SkeletonId,
    threads: usize,
    rereading: Option<&dyn RereadableKeys>,
    beside: impl FnOnce() -> T,
) -> (SkinCheck, T) {
    let at = pair_clips(&before, after, k);
    let mut clips = std::mem::take(&mut before.clips);
    let pairs = clips_of(&clips, after, &at);
    let pass = SkinPass::over(&before, after, k, &pairs, &at, rereading);
    let runs = runs_of(&pairs, 0..pairs.len());
    let split = beside_from(&runs);
    let (mut found, ()) = run_all(&pass, &pairs, &runs[..split], threads, || ());
    drop(pairs);
    // The clips before the first run left are checked through.
    let done = runs.get(split).map_or(at.len(), |&(p, _, _)| p);
    for &(a, _) in &at[..done] {
        clips[a].tracks = Vec::new();
    }
    let pairs = clips_of(&clips, after, &at);
    let (rest, out) = run_all(&pass, &pairs, &runs[split..], threads, beside);
    found.extend(rest);
    (result(&pass, &pairs, &runs, found), out)
}

/// Where the runs [`skin_beside`] checks beside begin: the last runs, with at most a third of
/// the frames (runs are frame ranges, so a clip may be split, and a file of one long clip
/// overlaps too).
fn beside_from(runs: &[(usize, usize, usize)]) -> usize {
    let total: usize = runs.iter().map(|&(_, from, to)| to - from).sum();
    let (mut split, mut last) = (runs.len(), 0);
    while split > 0 && (last + runs[split - 1].2 - runs[split - 1].1) * 3 <= total {
        split -= 1;
        last += runs[split].2 - runs[split].1;
    }
    split
}

/// The clips of skeleton `k` in `before` and in `after` paired by name (in order among equal
/// names: stages may remove or add clips), as places in their models' clip lists.
fn pair_clips(before: &Model, after: &Model, k: SkeletonId) -> Vec<(usize, usize)> {
    let mut unused: Vec<usize> = (0..after.clips.len())
        .filter(|&c| after.clips[c].skeleton == k)
        .collect();
    (0..before.clips.len())
        .filter(|&c| before.clips[c].skeleton == k)
        .filter_map(|ca| {
            let name = &before.clips[ca].name;
            let at = unused
                .iter()
                .position(|&cb| after.clips[cb].name == *name)?;
            Some((ca, unused.remove(at)))
        })
        .collect()
}

/// The clips paired at `at`: from `before` (the clips of the model before) and `after`.
fn clips_of<'m>(
    before: &'m [Clip],
    after: &'m Model,
    at: &[(usize, usize)],
) -> Vec<(&'m Clip, &'m Clip)> {
    at.iter()
        .map(|&(a, b)| (&before[a], &after.clips[b]))
        .collect()
}

/// Frames a clip is checked at: [`FPS`] per second, both ends included.
fn frames_of(clip: &Clip) -> usize {
    (clip.duration() * FPS).floor() as usize + 1
}

/// Frames in a run: the unit of work a thread takes.
const RUN: usize = 32;
/// Frames whose matrices are made together, one in each of four lanes ([`Frames`]).
const LANES: usize = 4;

/// Every frame of the pairs `of`, in runs of at most [`RUN`] frames checked apart, then merged
/// in order (the result is the one frame-by-frame pass would give): (pair, first frame, end).
fn runs_of(pairs: &[(&Clip, &Clip)], of: std::ops::Range<usize>) -> Vec<(usize, usize, usize)> {
    of.flat_map(|p| {
        let frames = frames_of(pairs[p].0);
        (0..frames)
            .step_by(RUN)
            .map(move |f| (p, f, (f + RUN).min(frames)))
    })
    .collect()
}

/// The check, from what each of `runs` found, in order.
fn result(
    pass: &SkinPass<'_>,
    pairs: &[(&Clip, &Clip)],
    runs: &[(usize, usize, usize)],
    found: Vec<Worst>,
) -> SkinCheck {
    let mut out = SkinCheck {
        clips: pairs.len(),
        frames: runs.iter().map(|&(_, from, to)| to - from).sum(),
        matrices: 0,
        max_error: 0.0,
        worst: None,
    };
    let mut worst = Worst::default();
    for w in found {
        out.matrices += w.seen;
        worst.merge(w);
    }
    out.max_error = worst.max;
    out.worst = worst.at.map(|(p, time, j)| {
        format!(
            "clip `{}`, {time:.3} s, joint `{}`",
            pairs[p].0.name, pass.a.bones[j].name
        )
    });
    out
}

/// Checks run `(p, from, to)` of `pairs`: the errors of its frames, seen in order.
fn check_run(
    pass: &SkinPass<'_>,
    pairs: &[(&Clip, &Clip)],
    run: (usize, usize, usize),
    buffers: &mut Buffers,
) -> Worst {
    let p = run.0;
    let whole = match pass.whole(pairs, p, buffers.whole.take()) {
        Ok(whole) => whole,
        Err(()) => {
            // Not taken back whole: no frame of it is compared, and the check says so (as a
            // NaN error counts: infinite, at the run's first frame).
            return Worst {
                max: f32::INFINITY,
                at: Some((p, run.1 as f32 / FPS, 0)),
                seen: 0,
                nan: true,
            };
        }
    };
    let clips = (whole.as_ref().map_or(pairs[p].0, |(_, c)| c), pairs[p].1);
    let worst = check_run_of(pass, clips, run, buffers);
    buffers.whole = whole;
    worst
}

/// [`check_run`] of run `run` of the clips `clips`.
fn check_run_of(
    pass: &SkinPass<'_>,
    (ca, cb): (&Clip, &Clip),
    (p, from, to): (usize, usize, usize),
    buffers: &mut Buffers,
) -> Worst {
    let Buffers { frame, times, .. } = buffers;
    let mut worst = Worst::default();
    let duration = ca.duration();
    times.clear();
    times.extend((from..to).map(|f| (f as f32 / FPS).min(duration)));
    pass.sample(frame, ca, cb, times);
    for from in (0..times.len()).step_by(LANES) {
        let group = from..(from + LANES).min(times.len());
        pass.world(frame, group.clone());
        pass.compare(frame, group.len(), |i, j, e| {
            worst.see(e, (p, times[from + i], j))
        });
    }
    worst
}

/// Every one of `runs`, each on the first thread free to take it (an atomic counter hands them
/// out in order), `beside` first on the calling thread; what each run found, in order.
fn run_all<T>(
    pass: &SkinPass<'_>,
    pairs: &[(&Clip, &Clip)],
    runs: &[(usize, usize, usize)],
    threads: usize,
    beside: impl FnOnce() -> T,
) -> (Vec<Worst>, T) {
    let next = AtomicUsize::new(0);
    let work = |buffers: &mut Buffers| loop {
        let r = next.fetch_add(1, Ordering::Relaxed);
        let Some(&run) = runs.get(r) else { break };
        let worst = check_run(pass, pairs, run, buffers);
        buffers.found.push((r, worst));
    };
    // Every buffer is made on the calling thread: memory a thread allocates itself can open a
    // heap (a glibc arena) of its own, and raise the peak.
    let (out, mut found) = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| {
                let mut buffers = Buffers::new(pass, runs.len());
                std::thread::Builder::new()
                    .name("skelnorm check".into())
                    .spawn_scoped(s, move || {
                        work(&mut buffers);
                        buffers.found
                    })
                    .ok()
            })
            .collect();
        let out = beside();
        let mut mine = Buffers::new(pass, runs.len());
        work(&mut mine);
        let mut found = mine.found;
        for helper in helpers {
            match helper.join() {
                Ok(theirs) => found.extend(theirs),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        (out, found)
    });
    found.sort_unstable_by_key(|&(r, _)| r);
    (found.into_iter().map(|(_, w)| w).collect(), out)
}

/// What one thread checks with: a run's frames, its times, and what each run it took found
/// (the run's place among all, and its worst).
struct Buffers {
    frame: SkinFrame,
    times: Vec<f32>,
    found: Vec<(usize, Worst)>,
    /// The clip of the model as read this thread took back whole last (see [`skin_rereading`]),
    /// with its pair's place.
    whole: Option<(usize, Clip)>,
}

impl Buffers {
    /// Buffers as large as any run of `pass` needs, for up to `runs` runs.
    fn new(pass: &SkinPass<'_>, runs: usize) -> Self {
        let (na, nb) = (pass.a.bones.len(), pass.b.bones.len());
        Buffers {
            frame: SkinFrame {
                la: Vec::with_capacity(RUN * na),
                lb: Vec::with_capacity(RUN * nb),
                wa: Vec::with_capacity(na),
                wb: Vec::with_capacity(nb),
                errors: Vec::with_capacity(pass.binds.len()),
                bone_errors: Vec::with_capacity(if pass.changes.is_some() { na } else { 0 }),
                sampler: RunSampler::default(),
            },
            times: Vec::with_capacity(RUN),
            found: Vec::with_capacity(runs),
            whole: None,
        }
    }
}

/// What [`skin`] compares, set up once: the two skeletons, the scene's turn, and each skin
/// joint's bone in both with its inverse bind matrices in f64.
struct SkinPass<'m> {
    a: &'m Skeleton,
    b: &'m Skeleton,
    height: f64,
    /// The scene's turn between `a` and `b`, unless none.
    turn: Option<Affine>,
    /// Every joint of every skin pair, skin after skin.
    binds: Vec<Bind>,
    /// The bones of `a` and of `b` whose world matrices [`SkinPass::compare`] reads (the
    /// joints and the bones above them), unless it reads every bone's.
    needed: Option<(Vec<bool>, Vec<bool>)>,
    /// Skeletons without skins: each bone's constant change, from the first frame.
    changes: Option<Vec<Factor>>,
    /// Where `a`'s clips let go of key values: what reads them again, and each pair's clip's
    /// place in the model as read (see [`skin_rereading`]).
    rereading: Option<(&'m dyn RereadableKeys, Vec<usize>)>,
}

/// One skin joint compared: its bone in `a` and in `b`, and its inverse bind matrices there
/// in f64.
struct Bind {
    a: usize,
    b: usize,
    ibm_a: Factor,
    ibm_b: Factor,
    /// An earlier joint (its place in the list) with the same bones and bit for bit the same
    /// matrices, as when several meshes have a skin each over one skeleton: its error is this
    /// one's, so it is computed once (and still seen once per joint, in order).
    same_as: Option<usize>,
}

/// The joints of the skins of `a` and `b`, paired skin by skin, in order (see [`Bind`]).
fn binds_of(a: &Skeleton, b: &Skeleton) -> Vec<Bind> {
    let mut binds: Vec<Bind> = Vec::new();
    let mut first: std::collections::HashMap<(usize, usize, [u64; 32]), usize> =
        std::collections::HashMap::new();
    for (sa, sb) in a.skins.iter().zip(&b.skins) {
        for (n, j) in sa.joints.iter().enumerate() {
            let ibm = |s: &crate::model::Skin| s.inverse_bind_matrices[n].as_dmat4();
            let (ibm_a, ibm_b) = (ibm(sa), ibm(sb));
            let (ja, jb) = (j.index(), sb.joints[n].index());
            let mut bits = [0u64; 32];
            for (k, x) in ibm_a
                .to_cols_array()
                .iter()
                .chain(&ibm_b.to_cols_array())
                .enumerate()
            {
                bits[k] = x.to_bits();
            }
            let at = binds.len();
            let same_as = match first.entry((ja, jb, bits)) {
                std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(at);
                    None
                }
            };
            binds.push(Bind {
                a: ja,
                b: jb,
                ibm_a: Factor::of(&ibm_a),
                ibm_b: Factor::of(&ibm_b),
                same_as,
            });
        }
    }
    binds
}

/// A run of frames' local transforms of both skeletons, frame after frame (frame `i`'s are
/// `la[i * bones..(i + 1) * bones]`), and the world matrices of four of them, bone after bone
/// (one [`Frames`] each); buffers reused from run to run.
#[derive(Default)]
struct SkinFrame {
    la: Vec<Transform>,
    lb: Vec<Transform>,
    wa: Vec<Frames>,
    wb: Vec<Frames>,
    /// The errors of the four frames' joints, in the order of [`SkinPass::binds`].
    errors: Vec<F4>,
    /// Without skins: the errors of the four frames' bones.
    bone_errors: Vec<F4>,
    /// Samples the run's frames (and keeps where its times fall on the key times its tracks
    /// use).
    sampler: RunSampler,
}

/// The largest error seen and where (pair, time, joint); `seen` counts the matrices compared.
#[derive(Default)]
struct Worst {
    max: f32,
    at: Option<(usize, f32, usize)>,
    seen: usize,
    /// Whether an error was NaN (it then counts as infinite, and the last one is `at`).
    nan: bool,
}

impl Worst {
    /// One error, in order: a larger one (or a NaN) becomes the worst.
    fn see(&mut self, e: f32, at: (usize, f32, usize)) {
        self.seen += 1;
        if e > self.max || e.is_nan() {
            self.max = if e.is_nan() { f32::INFINITY } else { e };
            self.at = Some(at);
            self.nan |= e.is_nan();
        }
    }

    /// The errors of `next` (seen after these, from no error), as if seen one by one here.
    fn merge(&mut self, next: Worst) {
        if next.nan || next.max > self.max {
            self.max = next.max;
            self.at = next.at;
        }
        self.nan |= next.nan;
    }
}

impl<'m> SkinPass<'m> {
    /// [`SkinPass::new`] for the clips `pairs` (paired at `at`), with what reads again the values
    /// `before`'s clips let go of (see [`skin_rereading`]). The first pair's clip is taken back
    /// whole for the constant changes of a skeleton without skins; when it cannot be, there is
    /// no first pair (its runs count as infinite errors: see [`check_run`]).
    fn over(
        before: &'m Model,
        after: &'m Model,
        k: SkeletonId,
        pairs: &[(&Clip, &Clip)],
        at: &[(usize, usize)],
        rereading: Option<&'m dyn RereadableKeys>,
    ) -> Self {
        let whole;
        let first = match pairs.first() {
            Some(&(ca, cb)) if has_dropped_keys(ca) => {
                whole = rereading
                    .zip(at.first())
                    .and_then(|(g, &(a, _))| reread_clip(ca, a, g));
                whole.as_ref().map(|w| (w, cb))
            }
            first => first.copied(),
        };
        let mut pass = SkinPass::new(before, after, k, first);
        pass.rereading = rereading.map(|g| (g, at.iter().map(|&(a, _)| a).collect()));
        pass
    }

    /// The clip of the model as read of pair `p` taken back whole, if it let go of values (see
    /// [`skin_rereading`]): `cached` (what this thread took back last) when that is it, else taken
    /// back now; none when the pair's clip is whole; an error when it cannot be taken back.
    fn whole(
        &self,
        pairs: &[(&Clip, &Clip)],
        p: usize,
        cached: Option<(usize, Clip)>,
    ) -> Result<Option<(usize, Clip)>, ()> {
        let Some((rereading, places)) = &self.rereading else {
            return Ok(None);
        };
        if !has_dropped_keys(pairs[p].0) {
            return Ok(None);
        }
        if let Some(c) = cached.filter(|(q, _)| *q == p) {
            return Ok(Some(c));
        }
        let place = places.get(p).copied().ok_or(())?;
        reread_clip(pairs[p].0, place, *rereading)
            .map(|c| Some((p, c)))
            .ok_or(())
    }

    /// Sets up the comparison of skeleton `k` of `before` and `after`, the constant changes of
    /// a skeleton without skins taken from the first frame of the `first` pair of clips.
    fn new(
        before: &'m Model,
        after: &'m Model,
        k: SkeletonId,
        first: Option<(&Clip, &Clip)>,
    ) -> Self {
        let (a, b) = (before.skeleton(k), after.skeleton(k));
        let height = a.height().max(1e-6);
        // What the scene turned by in between: the same skinning, turned with it, is unchanged.
        let turn = (after.scene_turn * before.scene_turn.conjugate()).as_dquat();
        let binds = binds_of(a, b);
        // With skins, only the joints' world matrices are compared: the other bones (end bones,
        // say) are sampled and posed only when a joint hangs below them. Without, every bone is.
        let needed = (!a.skins.is_empty()).then(|| {
            (
                with_ancestors(a, binds.iter().map(|j| j.a)),
                with_ancestors(b, binds.iter().map(|j| j.b)),
            )
        });
        let pass = SkinPass {
            a,
            b,
            height: height as f64,
            turn: (turn != DQuat::IDENTITY).then(|| Affine::of(&DAffine3::from_quat(turn))),
            binds,
            needed,
            changes: None,
            rereading: None,
        };
        // Without a skin, each bone's frame may change by a constant: the first frame fixes it.
        match (a.skins.is_empty(), first) {
            (true, Some((ca, cb))) => {
                let mut frame = SkinFrame::default();
                pass.sample(&mut frame, ca, cb, &[0.0]);
                pass.world(&mut frame, 0..1);
                let changes = frame
                    .wb
                    .iter()
                    .zip(&frame.wa)
                    .map(|(b, a)| {
                        Factor::of(&(b.lane(0).to_mat4().inverse() * a.lane(0).to_mat4()))
                    })
                    .collect();
                SkinPass {
                    changes: Some(changes),
                    ..pass
                }
            }
            _ => pass,
        }
    }

    /// Which bones of `a` and of `b` are needed (`None`: all).
    fn needed(&self) -> (Option<&[bool]>, Option<&[bool]>) {
        match &self.needed {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        }
    }

    /// Samples both clips at every time of `times` (increasing) into `frame`'s locals.
    fn sample(&self, frame: &mut SkinFrame, ca: &Clip, cb: &Clip, times: &[f32]) {
        let (need_a, need_b) = self.needed();
        frame
            .sampler
            .sample(self.a, ca, times, &mut frame.la, need_a);
        frame
            .sampler
            .sample(self.b, cb, times, &mut frame.lb, need_b);
    }

    /// The world matrices of the frames `group` (at most [`LANES`]) of the run
    /// [`SkinPass::sample`] sampled (`a`'s turned), frame `group.start` in the first lane.
    #[inline(always)]
    fn world(&self, frame: &mut SkinFrame, group: std::ops::Range<usize>) {
        let (need_a, need_b) = self.needed();
        world_frames(self.a, &frame.la, group.clone(), &mut frame.wa, need_a);
        if let Some(turn) = &self.turn {
            for (b, w) in frame.wa.iter_mut().enumerate() {
                if need_a.is_none_or(|need| need[b]) {
                    *w = turned(turn, w);
                }
            }
        }
        world_frames(self.b, &frame.lb, group, &mut frame.wb, need_b);
    }

    /// Calls `see(frame, joint, error)` for every matrix compared in the first `frames` frames
    /// of the group [`SkinPass::world`] made, frame after frame (the first is 0).
    #[inline(always)]
    fn compare(
        &self,
        frame: &mut SkinFrame,
        frames: usize,
        mut see: impl FnMut(usize, usize, f32),
    ) {
        let SkinFrame {
            wa,
            wb,
            errors,
            bone_errors,
            ..
        } = frame;
        let height = self.height;
        bone_errors.clear();
        if let Some(change) = &self.changes {
            for j in 0..wa.len() {
                let ma = wa[j].e;
                let mb = times(&wb[j], &change[j]);
                bone_errors.push(error(&ma, &mb, height));
            }
        }
        errors.clear();
        for bind in &self.binds {
            let e = match bind.same_as.and_then(|k| errors.get(k)) {
                Some(&e) => e,
                None => {
                    let ma = times(&wa[bind.a], &bind.ibm_a);
                    let mb = times(&wb[bind.b], &bind.ibm_b);
                    error(&ma, &mb, height)
                }
            };
            errors.push(e);
        }
        for i in 0..frames {
            for (j, e) in bone_errors.iter().enumerate() {
                see(i, j, e[i] as f32);
            }
            for (bind, e) in self.binds.iter().zip(errors.iter()) {
                see(i, bind.a, e[i] as f32);
            }
        }
    }
}

/// The bones of `s` that are among `bones` or above one of them.
fn with_ancestors(s: &Skeleton, bones: impl Iterator<Item = usize>) -> Vec<bool> {
    let mut needed = vec![false; s.bones.len()];
    for b in bones {
        if let Some(slot) = needed.get_mut(b) {
            *slot = true;
        }
    }
    // Parents come before children: one backward pass marks every ancestor.
    for b in (0..needed.len()).rev() {
        if let (true, Some(p)) = (needed[b], s.bones[b].parent) {
            needed[p.index()] = true;
        }
    }
    needed
}

/// World matrices in f64 (from the f32 values stored) of the poses `group` of `locals` (one
/// per bone, frame after frame; at most [`LANES`] frames, the last repeated in lanes beyond
/// them), into `world`, one [`Frames`] per bone, so that the check's own rounding does not
/// hide or fake differences. Affine: the products of the upper 3×4 parts are those of the 4×4
/// matrices. Each lane's numbers are those a frame-by-frame pass
/// ([`Skeleton::accumulate_into`] of `DAffine3`s) makes, in the same order.
#[inline(always)]
fn world_frames(
    s: &Skeleton,
    locals: &[Transform],
    group: std::ops::Range<usize>,
    world: &mut Vec<Frames>,
    needed: Option<&[bool]>,
) {
    let n = s.bones.len();
    // Bones not needed are never read (their identity is kept from group to group).
    if world.len() != n {
        world.clear();
        world.resize(n, Frames::IDENTITY);
    }
    let base = Frames::splat(&Affine::of(&DAffine3::from_mat4(s.base.as_dmat4())));
    let last = group.end - 1;
    let at = [0, 1, 2, 3].map(|k| (group.start + k).min(last) * n);
    for (b, bone) in s.bones.iter().enumerate() {
        if needed.is_some_and(|need| !need[b]) {
            continue;
        }
        let l = [
            &locals[at[0] + b],
            &locals[at[1] + b],
            &locals[at[2] + b],
            &locals[at[3] + b],
        ];
        let q = in_lanes::<4>(l.map(|l| l.rotation.to_array()));
        let t = in_lanes::<3>(l.map(|l| l.translation.to_array()));
        // A scale of exactly 1 changes no column (`x * 1.0` is `x`): skipped when all are.
        let scale = if l.iter().all(|l| l.scale == Vec3::ONE) {
            None
        } else {
            Some(in_lanes::<3>(l.map(|l| l.scale.to_array())))
        };
        let local = local(q, scale, t);
        let w = compose(bone.parent.map_or(&base, |p| &world[p.index()]), &local);
        world[b] = w;
    }
}

/// Four frames' values of one part of a transform (`N` floats each) in `N` lanes of f64, one
/// frame per lane.
#[inline(always)]
fn in_lanes<const N: usize>(v: [[f32; N]; 4]) -> [F4; N] {
    let mut out = [F4::splat(0.0); N];
    let mut c = 0;
    while c < N {
        out[c] = [
            v[0][c] as f64,
            v[1][c] as f64,
            v[2][c] as f64,
            v[3][c] as f64,
        ];
        c += 1;
    }
    out
}

/// How closely a skeleton's rest matches the profile's T-pose, measured in the scene (see
/// [`rest`]) or in the frame the rest fix made it in ([`rest_in`]).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RestCheck {
    /// Largest angle between a mapped bone's direction (joint → tail) and the profile's,
    /// degrees; bones that keep their pitch (feet) count only their yaw.
    pub max_direction_deg: f32,
    /// The bone with that angle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_direction: Option<String>,
    /// Largest angle between a mapped bone's +Y and its tail, degrees.
    pub max_tail_deg: f32,
    /// The bone with that angle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_tail: Option<String>,
    /// Largest angle between a mapped bone's global rest rotation and the profile's, once the
    /// profile's frame is turned the least so that +Y points at the bone's tail (which is no
    /// turn at all for an exact T-pose), degrees.
    pub max_frame_deg: f32,
    /// The root or hips when its tail lies more than 90° from the profile's direction (its
    /// direction is not measured: the silhouette fix does not turn the body; its +Y and frame
    /// are).
    pub reversed_tails: Vec<String>,
    /// Whether the character faces +Z (its left-side bones lie at +X of its right-side ones).
    pub faces_plus_z: bool,
    /// Per bone with a roll line (hands: the palm; hips): the angle between the plane of its
    /// direction and roll line and the profile's, degrees.
    pub roll_deg: Vec<(String, f32)>,
    /// Mapped bones measured.
    pub bones: usize,
}

/// Measures skeleton `s`'s rest against the profile through `map`, in the scene (under its
/// base's rotation, when the base is a rotation and a uniform scale).
pub fn rest(s: &Skeleton, map: &BoneMap, profile: &Profile) -> RestCheck {
    rest_in(s, map, profile, scene_frame(s))
}

/// [`rest`] of skeleton `k` of `model` as the file's clients show it: under the model's view
/// turn (VRM 0.x clients turn the scene 180°), so a normalized VRM 0.x rest faces +Z there.
pub fn rest_as_shown(model: &Model, k: SkeletonId, map: &BoneMap, profile: &Profile) -> RestCheck {
    let s = model.skeleton(k);
    rest_in(s, map, profile, model.view_turn * scene_frame(s))
}

/// [`rest`] judged in another space: the rest below the base turned by `frame` (the frame the
/// rest fix reports it made the rest in, the rest report's `frame`: the skeleton's own
/// space when the scene kept its transform).
pub fn rest_in(s: &Skeleton, map: &BoneMap, profile: &Profile, frame: Quat) -> RestCheck {
    let world = skeleton_space(s, frame);
    let pos = |b: BoneId| world[b.index()].w_axis.truncate();
    let rot = |b: BoneId| rotation(&world[b.index()]);
    let reference = profile.reference_positions();
    let frames = profile.reference_rotations();
    let (lo, hi) = (0..s.bones.len()).fold((Vec3::MAX, Vec3::MIN), |(lo, hi), i| {
        let p = pos(BoneId(i as u32));
        (lo.min(p), hi.max(p))
    });
    let min_tail = BoneMap::MIN_TAIL * (hi - lo).max(Vec3::ZERO).length();
    let mut out = RestCheck {
        max_direction_deg: 0.0,
        worst_direction: None,
        max_tail_deg: 0.0,
        worst_tail: None,
        max_frame_deg: 0.0,
        reversed_tails: Vec::new(),
        faces_plus_z: false,
        roll_deg: Vec::new(),
        bones: 0,
    };
    for pk in profile.ids() {
        let Some(b) = map.get(pk) else { continue };
        out.bones += 1;
        let bone = profile.bone(pk);
        let name = &s.bones[b.index()].name;
        let frame = rot(b);
        let offset = |tails: &[ProfileBoneId]| {
            let mut sum = Vec3::ZERO;
            for &t in tails {
                sum += pos(map.get(t)?);
            }
            Some(sum / tails.len() as f32 - pos(b))
        };
        let Some(aim) = map.aimed_tails(profile, pk, offset, min_tail) else {
            let deg = rotation_angle(frame, frames[pk.index()]);
            if deg > out.max_frame_deg {
                out.max_frame_deg = deg;
            }
            continue;
        };
        let (tails, d) = (aim.tails, aim.offset);
        // Branches of which some hang elsewhere (shoulders below the upper chest) are no tail
        // the rest fix points at; the next joint of a chain is, wherever it hangs.
        let elsewhere = tails
            .iter()
            .any(|&t| map.get(t).is_some_and(|j| !s.is_ancestor(b, j)));
        if elsewhere && tails.len() > 1 {
            let deg = rotation_angle(frame, frames[pk.index()]);
            out.max_frame_deg = out.max_frame_deg.max(deg);
            continue;
        }
        let e = reference_tail(&reference, pk, &tails);
        let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
        let tail = angle_deg(frame * Vec3::Y, d);
        // The profile's frame turned the least so that +Y points at the tail (feet keep their
        // pitch; a tail of fallback bones may lie off the frame's +Y).
        let wanted = arc(frames[pk.index()] * Vec3::Y, d.normalize()) * frames[pk.index()];
        let framed = rotation_angle(frame, wanted);
        out.max_frame_deg = out.max_frame_deg.max(framed);
        if tail > out.max_tail_deg {
            out.max_tail_deg = tail;
            out.worst_tail = Some(format!("{name} ({})", bone.name));
        }
        if aim.further {
            // A tail on the joint: the bone points at what lies beyond, but is not turned.
            continue;
        }
        if angle_deg(d, e) > MAX_TAIL_DEG && profile.body_bone(pk) {
            // The rest fix does not turn such a bone (see `profile::MAX_TAIL_DEG`), but its +Y
            // points at its tail.
            out.reversed_tails.push(format!("{name} ({})", bone.name));
            continue;
        }
        let direction = if bone.keep_pitch {
            angle_deg(flat(d), flat(e))
        } else {
            angle_deg(d, e)
        };
        if direction > out.max_direction_deg {
            out.max_direction_deg = direction;
            out.worst_direction = Some(format!("{name} ({})", bone.name));
        }
        let roll = bone.roll.iter().find_map(|&(from, to)| {
            let v = pos(map.get(to)?) - pos(map.get(from)?);
            let w = reference[to.index()] - reference[from.index()];
            Some(angle_deg(d.cross(v), e.cross(w)))
        });
        if let Some(r) = roll {
            out.roll_deg.push((bone.name.clone(), r));
        }
    }
    let side_x = |side: Side| {
        let xs: Vec<f32> = profile
            .ids()
            .filter(|&p| profile.bone(p).side == side)
            .filter_map(|p| map.get(p))
            .map(|b| pos(b).x)
            .collect();
        (!xs.is_empty()).then(|| xs.iter().sum::<f32>() / xs.len() as f32)
    };
    out.faces_plus_z =
        matches!((side_x(Side::Left), side_x(Side::Right)), (Some(l), Some(r)) if l > r);
    out
}

/// Rest world matrices of `s` below its base, turned by `frame`.
fn skeleton_space(s: &Skeleton, frame: Quat) -> Vec<Mat4> {
    let locals = s.bones.iter().map(|b| b.rest.to_mat4());
    s.accumulate(Mat4::from_quat(frame), locals, |parent, local| {
        parent * local
    })
}

/// The rotation of the scene space `s`'s roots live in: its base's (which no direction's
/// translation or scale changes), or the identity for a base that is not a rotation and a
/// uniform scale.
fn scene_frame(s: &Skeleton) -> Quat {
    let r = rotation(&s.base);
    let back = Mat4::from_quat(r);
    let scale = s.base.x_axis.truncate().length();
    let similar = s.base.determinant() > 0.0
        && (0..3).all(|c| {
            (s.base.col(c).truncate() - back.col(c).truncate() * scale).length() <= 1e-4 * scale
        });
    if similar {
        r
    } else {
        Quat::IDENTITY
    }
}

/// The rotation of a matrix with uniform positive scale.
fn rotation(m: &Mat4) -> Quat {
    let scale = m.x_axis.truncate().length().max(1e-30);
    Quat::from_mat3(&glam::Mat3::from_mat4(*m).mul_scalar(1.0 / scale)).normalize()
}

/// Angle between two rotations in degrees, accurate near 0 (unlike `acos`).
pub fn rotation_angle(a: Quat, b: Quat) -> f32 {
    turn_deg(a.conjugate() * b)
}

/// Plays `clip` of skeleton `src` on skeleton `dst` by giving each bone mapped in both the
/// rotation relative to its nearest mapped ancestor that it has in the source (which is copying
/// local rotations when mapped bones are adjacent), and returns the largest angle between the
/// two skeletons' global bone directions (joint → tail, as the profile defines tails) over every
/// frame, degrees, with the profile bone and time where it is largest. Bones whose tail the clip
/// moves by translation keys are left out: copying rotations does not carry those. It is small only when
/// both rests correspond (normalized to `profile`).
pub fn transfer(
    src: (&Skeleton, &BoneMap, &Clip),
    dst: (&Skeleton, &BoneMap),
    profile: &Profile,
) -> (f32, String) {
    let (s, smap, clip) = src;
    let (d, dmap) = dst;
    let both: Vec<ProfileBoneId> = profile
        .ids()
        .filter(|&p| smap.get(p).is_some() && dmap.get(p).is_some())
        .collect();
    let anchor = |map: &BoneMap, p: ProfileBoneId| {
        let mut at = profile.bone(p).parent;
        while let Some(a) = at {
            if both.contains(&a) {
                return map.get(a);
            }
            at = profile.bone(a).parent;
        }
        None
    };
    let rot = rotation;
    let measured = measured_bones((s, smap, clip), (d, dmap, None), &both, profile);
    let mut pose = Pose::rest(d);
    over_frames((s, smap, clip), (d, dmap), &measured, profile, |_, sw| {
        // Each shared bone takes the source's rotation relative to its anchor; target bones
        // between anchor and bone keep their rest.
        pose.locals
            .iter_mut()
            .zip(&d.bones)
            .for_each(|(l, b)| l.rotation = b.rest.rotation);
        for &p in &both {
            let (sb, db) = (smap.get(p).expect("in both"), dmap.get(p).expect("in both"));
            let wanted_rel = match anchor(smap, p) {
                Some(a) => rot(&sw[a.index()]).inverse() * rot(&sw[sb.index()]),
                None => rot(&s.base).inverse() * rot(&sw[sb.index()]),
            };
            let dw = pose.world(d);
            let parent = d.parent_world(db, d.base, &dw);
            let anchor_world = anchor(dmap, p).map_or(d.base, |a| dw[a.index()]);
            let global = rot(&anchor_world) * wanted_rel;
            pose.locals[db.index()].rotation = (rot(&parent).inverse() * global).normalize();
        }
        pose.world(d)
    })
}

/// Plays `src`'s clip on its skeleton and `dst`'s clip on its own, and returns the largest angle
/// between the two skeletons' global bone directions (joint → tail) over every frame of the
/// source clip, degrees, with the profile bone and time where it is largest. This is how a clip
/// copied from one rig into another (by name, say) is judged: the same bones as [`transfer`]
/// are compared (tails moved by translation keys of either clip are left out).
pub fn directions(
    src: (&Skeleton, &BoneMap, &Clip),
    dst: (&Skeleton, &BoneMap, &Clip),
    profile: &Profile,
) -> (f32, String) {
    let smap = src.1;
    let (d, dmap, dclip) = dst;
    let both: Vec<ProfileBoneId> = profile
        .ids()
        .filter(|&p| smap.get(p).is_some() && dmap.get(p).is_some())
        .collect();
    let measured = measured_bones(src, (d, dmap, Some(dclip)), &both, profile);
    over_frames(src, (d, dmap), &measured, profile, |time, _| {
        Pose::sample(d, dclip, time).world(d)
    })
}

/// Samples the source clip at [`FPS`], poses the target by `target(time, source_world)`, and
/// returns the largest angle between the measured bones' directions, with where it is.
fn over_frames(
    src: (&Skeleton, &BoneMap, &Clip),
    dst: (&Skeleton, &BoneMap),
    measured: &[(ProfileBoneId, Vec<ProfileBoneId>)],
    profile: &Profile,
    mut target: impl FnMut(f32, &[Mat4]) -> Vec<Mat4>,
) -> (f32, String) {
    let (s, smap, clip) = src;
    let frames = (clip.duration() * FPS).floor() as usize + 1;
    let mut worst = (0.0f32, String::new());
    for f in 0..frames {
        let time = (f as f32 / FPS).min(clip.duration());
        let sw = Pose::sample(s, clip, time).world(s);
        let dw = target(time, &sw);
        compare_directions(
            measured,
            (s, smap, &sw),
            (dst.0, dst.1, &dw),
            time,
            profile,
            &mut worst,
        );
    }
    worst
}

/// The bones [`transfer`] and [`directions`] compare, with their tail bones: those both
/// skeletons define the same way, leaving out tails that translation keys move.
fn measured_bones(
    src: (&Skeleton, &BoneMap, &Clip),
    dst: (&Skeleton, &BoneMap, Option<&Clip>),
    both: &[ProfileBoneId],
    profile: &Profile,
) -> Vec<(ProfileBoneId, Vec<ProfileBoneId>)> {
    // Directions that translation keys move (a hips or a shoulder keyed away from its rest)
    // are not what copying rotations transfers: leave those bones out. Keys at the rest
    // (within 1e-5 of the height) move nothing.
    let moved = |(s, map, clip): (&Skeleton, &BoneMap, &Clip)| -> Vec<bool> {
        let rest_world = s.rest_world();
        let height = s.height().max(1e-6);
        profile
            .ids()
            .map(|p| {
                map.get(p).is_some_and(|b| {
                    let bone = &s.bones[b.index()];
                    let parent = s.parent_world(b, s.base, &rest_world);
                    let scale = parent.x_axis.truncate().length();
                    clip.tracks[b.index()]
                        .translation
                        .as_ref()
                        .is_some_and(|t| {
                            t.max_distance(bone.rest.translation, |a, b| a.distance(b)) * scale
                                > 1e-5 * height
                        })
                })
            })
            .collect()
    };
    let (d, dmap, dclip) = dst;
    let in_src = moved(src);
    let in_dst = dclip.map(|c| moved((d, dmap, c)));
    comparable((src.0, src.1), (d, dmap), both, profile)
        .into_iter()
        .filter(|(_, tails)| {
            !tails
                .iter()
                .any(|t| in_src[t.index()] || in_dst.as_ref().is_some_and(|m| m[t.index()]))
        })
        .collect()
}

/// Updates `worst` with the largest angle between the two posed skeletons' bone directions.
fn compare_directions(
    measured: &[(ProfileBoneId, Vec<ProfileBoneId>)],
    src: (&Skeleton, &BoneMap, &[Mat4]),
    dst: (&Skeleton, &BoneMap, &[Mat4]),
    time: f32,
    profile: &Profile,
    worst: &mut (f32, String),
) {
    let rot = rotation;
    for (p, tails) in measured {
        let dir = |(sk, map, w): (&Skeleton, &BoneMap, &[Mat4])| {
            let at = |b: ProfileBoneId| w[map.get(b).expect("mapped").index()].w_axis.truncate();
            let tail = tails.iter().map(|&t| at(t)).sum::<Vec3>() / tails.len() as f32;
            rot(&sk.base).inverse() * (tail - at(*p))
        };
        let e = angle_deg(dir(src), dir(dst));
        if e > worst.0 {
            *worst = (e, format!("{} at {time:.3} s", profile.bone(*p).name));
        }
    }
}

/// The bones whose joint → tail direction both skeletons define the same way (same tail
/// bones), leaving out the root (it points at the moving hips) and a root or hips whose tail
/// lies reversed at rest (see
/// [`MAX_TAIL_DEG`]).
fn comparable(
    s: (&Skeleton, &BoneMap),
    d: (&Skeleton, &BoneMap),
    both: &[ProfileBoneId],
    profile: &Profile,
) -> Vec<(ProfileBoneId, Vec<ProfileBoneId>)> {
    let reference = profile.reference_positions();
    let (ws, wd) = (
        skeleton_space(s.0, Quat::IDENTITY),
        skeleton_space(d.0, Quat::IDENTITY),
    );
    let reversed = |(w, map): (&[Mat4], &BoneMap), p: ProfileBoneId, tails: &[ProfileBoneId]| {
        let at = |b: ProfileBoneId| w[map.get(b).expect("mapped").index()].w_axis.truncate();
        let dir = tails.iter().map(|&t| at(t)).sum::<Vec3>() / tails.len() as f32 - at(p);
        let e = reference_tail(&reference, p, tails);
        profile.body_bone(p) && angle_deg(dir, e) > MAX_TAIL_DEG
    };
    both.iter()
        // The root's "direction" points at the hips, which move by translation, not rotation.
        .filter(|&&p| profile.root != Some(p))
        .filter_map(|&p| {
            let ts = s.1.attached_tail_bones(s.0, profile, p)?;
            let td = d.1.attached_tail_bones(d.0, profile, p)?;
            let keep = ts == td && !reversed((&ws, s.1), p, &ts) && !reversed((&wd, d.1), p, &td);
            keep.then_some((p, ts))
        })
        .collect()
}

#[cfg(test)]
mod tests;
