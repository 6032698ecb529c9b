"""Type stubs of skelnorm, the Python package over the Rust library skelnorm.

Quaternions are (x, y, z, w), as glTF stores them, unless a call takes ``order="wxyz"``.
Arrays come out as float32; arrays going in may be float32 or float64.
"""

import os
from typing import Any, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

PathLike = Union[str, "os.PathLike[str]"]
Order = Literal["xyzw", "wxyz"]
FloatArray = npt.NDArray[np.float32]
ArrayIn = Union[npt.NDArray[np.float32], npt.NDArray[np.float64]]

class Skeleton:
    """A skeleton: bones stored flat, every parent before its children."""

    @property
    def name(self) -> str: ...
    @property
    def names(self) -> list[str]:
        """Bone names, one per joint J."""
    @property
    def parents(self) -> npt.NDArray[np.int32]:
        """Parent of each bone, int32 (J,); -1 for a root."""
    @property
    def rest_translations(self) -> FloatArray:
        """Rest translations local to the parent, float32 (J, 3)."""
    @property
    def rest_rotations(self) -> FloatArray:
        """Rest rotations local to the parent, float32 (J, 4), (x, y, z, w) as glTF."""
    def rest_rotations_as(self, order: Order = "xyzw") -> FloatArray:
        """Rest rotations, float32 (J, 4), in (x, y, z, w) order as glTF or (w, x, y, z)."""
    @property
    def rest_scales(self) -> FloatArray:
        """Rest scales local to the parent, float32 (J, 3)."""
    @property
    def base(self) -> FloatArray:
        """World matrix of the space the roots live in, float32 (4, 4), row-major."""
    @property
    def nodes(self) -> list[Optional[int]]:
        """The glTF node each bone was read from (None for bones made in code)."""
    def __len__(self) -> int: ...

class Motion:
    """Local transforms of every bone at N times; rotations (x, y, z, w) as glTF unless made
    with order="wxyz"."""

    def __init__(
        self,
        times: ArrayIn,
        rotations: ArrayIn,
        translations: ArrayIn,
        *,
        scales: Optional[ArrayIn] = None,
        skeleton: Optional[Skeleton] = None,
        order: Order = "xyzw",
        name: str = "motion",
        curves: Optional[dict[str, ArrayIn]] = None,
    ) -> None:
        """times (N,), rotations (N, J, 4) in (x, y, z, w) order as glTF (or order="wxyz"),
        translations (N, J, 3), scales (N, J, 3) or ones; curves: float curves, name → values
        (N,), one per time. A BVH written from it keys the roots' channels and, on other bones,
        those that leave the rest value in some frame."""
    @property
    def name(self) -> str: ...
    @property
    def skeleton(self) -> Optional[Skeleton]:
        """The skeleton it animates (the one sampled from or given), or None."""
    @property
    def times(self) -> FloatArray:
        """Sample times in seconds, float32 (N,)."""
    @property
    def rotations(self) -> FloatArray:
        """Local rotations, float32 (N, J, 4), (x, y, z, w) as glTF unless `order` is "wxyz"."""
    @property
    def order(self) -> Order:
        """The quaternion order of `rotations`."""
    @property
    def translations(self) -> FloatArray:
        """Local translations, float32 (N, J, 3)."""
    @property
    def scales(self) -> FloatArray:
        """Local scales, float32 (N, J, 3)."""
    @property
    def curves(self) -> dict[str, FloatArray]:
        """Float curves, name → (N,) a value per time: the clip's curves sampled at `times`,
        or those given. Contacts for `Retargeter.retarget`: np.stack([c["FootLock_L"],
        c["FootLock_R"]], 1) >= 0.5."""
    def world_positions(self, skeleton: Optional[Skeleton] = None) -> FloatArray:
        """World positions of every bone, float32 (N, J, 3)."""
    def to_bvh(
        self,
        path: PathLike,
        skeleton: Optional[Skeleton] = None,
        *,
        bvh_order: str = "zxy",
        unit: Literal["cm", "m"] = "cm",
        fps: Optional[float] = None,
    ) -> None:
        """Writes the motion as BVH with the library's writer (as `skelnorm convert`)."""
    def __len__(self) -> int: ...

class Clip:
    """An animation clip of one skeleton."""

    @property
    def name(self) -> str: ...
    @property
    def duration(self) -> float:
        """Last key time, in seconds."""
    @property
    def skeleton_index(self) -> int:
        """Index of its skeleton in `Asset.skeletons`."""
    @property
    def skeleton(self) -> Skeleton: ...
    @property
    def curves(self) -> dict[str, Tuple[FloatArray, FloatArray]]:
        """Float curves (an FBX file's animated user properties, Unreal's animation curves
        such as FootLock_L), name → (times (K,), values (K,)) keyed linearly; {} when none."""
    def sample(self, fps: Optional[float] = None, *, order: Order = "xyzw") -> Motion:
        """Local transforms per frame; fps None: the clip's own key times when every track
        shares them, else 30 fps. Rotations (x, y, z, w) as glTF, or (w, x, y, z) with
        order="wxyz"."""

class Asset:
    """A file as skelnorm reads it."""

    @property
    def path(self) -> str: ...
    @property
    def skeletons(self) -> list[Skeleton]: ...
    @property
    def clips(self) -> list[Clip]: ...
    @property
    def warnings(self) -> list[str]: ...
    def save(self, path: PathLike) -> None:
        """Writes .gltf, .glb, .vrm or .vrma, as the CLI writes its outputs."""

class Retargeter:
    """The library's runtime retargeter: built once per pair of (normalized) skeletons.

    A skeleton whose kept nodes above turn its up axis (its `base`) is read with that turn
    folded into its root bones; poses in and out stay in each skeleton's own space."""

    def __init__(
        self, source_skeleton: Skeleton, target_skeleton: Skeleton, **settings: Any
    ) -> None: ...
    @property
    def source_hips(self) -> int:
        """Source bone whose local translation `root_translation` gives."""
    @property
    def target_hips(self) -> int:
        """Target bone whose local translation `retarget` returns as root."""
    @property
    def plan(self) -> dict[str, Any]: ...
    def retarget(
        self,
        rotations: ArrayIn,
        root_translation: Optional[ArrayIn] = None,
        *,
        order: Order = "xyzw",
        all_translations: bool = False,
        contacts: Optional[npt.ArrayLike] = None,
    ) -> Tuple[FloatArray, FloatArray]:
        """Source local rotations (J, 4) or (N, J, 4), (x, y, z, w) as glTF or order="wxyz",
        and the source hips' translation (3,) or (N, 3) → target local rotations in the same
        order and the target hips' translation (or every bone's, all_translations=True).
        contacts: bools (2,) or (N, 2), each frame's (left, right) feet in contact, as
        set_contacts before each frame; the contacts set before are back after the call."""
    def retarget_at(
        self,
        rotations: ArrayIn,
        root_translation: Optional[ArrayIn] = None,
        dt: Optional[float] = None,
        *,
        order: Order = "xyzw",
        all_translations: bool = False,
        contacts: Optional[npt.ArrayLike] = None,
    ) -> Tuple[FloatArray, FloatArray]:
        """`retarget` with dt, the seconds since the previous frame (above 0; between the frames
        of a batch too), which planting's speeds and the filter use."""
    def reset(self) -> None:
        """Forgets what the ops that keep state (planting, the filter) saw."""
    def set_treadmill(self, velocity: Optional[Sequence[float]] = None) -> None:
        """The ground planting plants on: (x, z) or (x, y, z) source units per second (y
        ignored), None for a ground that stands still. Stays until set again."""
    @property
    def treadmill(self) -> Optional[Tuple[float, float, float]]: ...
    def set_contacts(self, contacts: Optional[Tuple[bool, bool]] = None) -> None:
        """Each foot's contact (left, right) for the frames to come, instead of detecting them
        from foot height and speed; None detects them again. Stays until set again."""
    @property
    def contacts(self) -> Optional[Tuple[bool, bool]]: ...

def load(path: PathLike, *, bvh_scale: Optional[float] = None) -> Asset:
    """Reads glTF, GLB, VRM, VRMA, FBX or BVH. OSError (FileNotFoundError, PermissionError,
    IsADirectoryError) if unreadable, ValueError if invalid."""

def map(
    asset: Asset,
    *,
    skeleton: Optional[int] = None,
    profile: Optional[PathLike] = None,
    bone_map: Optional[PathLike] = None,
    **settings: Any,
) -> dict[str, Any]:
    """What `skelnorm map FILE --json` prints: each skeleton's bones mapped to the profile
    (`missing_required` lists what a partial map lacks). profile/bone_map: RON files, as
    --profile/--bone-map; other settings as for normalize (map={"ignore_vrm": True})."""

def normalize(
    src: PathLike,
    dst: PathLike,
    *,
    skeleton: Optional[int] = None,
    bvh_scale: Optional[float] = None,
    **settings: Any,
) -> dict[str, Any]:
    """Writes what `skelnorm normalize src -o dst` writes; returns its --json report (the
    `skelnorm/2` JSON model: report["files"][0]["normalize"]["skeletons"], warnings as dicts).
    Settings: sections of the RON file as dicts (rest={"fix_silhouette": False}), over
    settings="file.ron"."""

def retarget(
    source: PathLike,
    target: PathLike,
    dst: Optional[PathLike] = None,
    *,
    clip: Union[None, str, Sequence[str]] = None,
    prefix: str = "",
    suffix: str = "",
    output: Literal["original", "normalized"] = "original",
    source_skeleton: Optional[int] = None,
    target_skeleton: Optional[int] = None,
    bvh_scale: Optional[float] = None,
    **settings: Any,
) -> Tuple[Asset, dict[str, Any]]:
    """As `skelnorm retarget --source SRC --target TGT -o DST`; returns the target asset
    with its new clips and the retarget report (`skelnorm/2`'s retarget part): per new clip,
    `measured` holds math.md's measures on the clip written: `segments` (direction error per
    segment, mean and worst degrees) and `segments_not_measured` (with a reason, never a 0),
    `skate` per foot in leg lengths over the source's contacts (`contact_pairs`, `reason`
    `no_contact_in_source` when the clip has none) and, with ops on, `ops.legs` (the thighs'
    and shins' direction cost beside `ops.skate_without`). Clip names clash ignoring case:
    the settings' `clips.on_clash` (rename, the default; replace; refuse) decides."""

def batch(
    input: PathLike,
    output: PathLike,
    *,
    files: Optional[Sequence[PathLike]] = None,
    shard: Optional[str] = None,
    jobs: Optional[int] = None,
    existing: Literal["overwrite", "skip", "error"] = "overwrite",
    prefix: str = "",
    suffix: str = "",
    replace: Optional[dict[str, str]] = None,
    retarget_to: Optional[PathLike] = None,
    retarget_output: Literal["original", "normalized", "animation_only"] = "original",
    bvh_scale: Optional[float] = None,
    **settings: Any,
) -> dict[str, Any]:
    """As `skelnorm batch INPUT -o OUTPUT`; returns its report (`skelnorm/2`, as --report writes
    it). files: only these paths relative to INPUT (the whole folder still decides colliding
    outputs); shard: "K/N". Settings sections apply over settings="file.ron" and over each
    folder's skelnorm.ron, as the CLI's flags do. OSError if a folder cannot be read or made,
    ValueError for bad options."""

def batch_files(input: PathLike) -> list[str]:
    """The files `batch(input, …)` takes, relative to INPUT, in its report's order: those it
    reads, then those it reports as skipped."""

def merge_reports(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Reports of parts of one batch joined, as `skelnorm report merge` joins shard reports
    (ValueError if a file is in two)."""

def write_html(report: dict[str, Any], path: PathLike) -> None:
    """Writes the HTML report of `report` (as `batch` returns it) to PATH, as `skelnorm batch
    --html` does."""
