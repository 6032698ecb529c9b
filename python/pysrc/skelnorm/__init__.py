"""skelnorm: normalize humanoid skeletons and retarget clips (glTF/GLB/VRM/VRMA/FBX/BVH), with
numpy arrays. The work is done by the Rust library, through the extension module
`skelnorm._native`, whose names this package makes its own; `skelnorm.dask` runs batches on a
Dask cluster."""

from ._native import *  # noqa: F401,F403 (the package's API is the extension's)
from ._native import __version__  # noqa: F401
