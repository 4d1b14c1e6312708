"""The Blender side: a scene built from a SceneSpec, dice added, Cycles run on the CPU.

Needs Blender as a Python module (`pip install '.[render]'`: bpy 4.5 LTS, Python 3.11).
One `Stage` per process (bpy holds one global scene). The tray, camera and lamps are
built once per SceneSpec and kept while it stays the same, so a pinned table renders
frame after frame with only its dice replaced. Each render also writes the
object-index pass (die k has index k + 1), from which the labels' boxes come.
"""
from __future__ import annotations

import atexit
import contextlib
import math
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.training.render import geometry, materials, post, textures
from vision.training.render.looks import DieLook
from vision.training.render.scene import DieSpec, LightSpec, SceneSpec

BEVEL_SEGMENTS = 4


def import_bpy() -> Any:
    """bpy, or a clear error saying how to install it."""
    try:
        import bpy
    except ImportError as e:
        raise RuntimeError("rendering needs Blender as a Python module: "
                           "pip install '.[render]' (bpy 4.5, Python 3.11)") from e
    return bpy


@contextlib.contextmanager
def _quiet(log: Path) -> Iterator[None]:
    """Send Cycles' progress lines (C-level stdout/stderr) to `log` while rendering."""
    with open(log, "wb") as sink:
        saved = os.dup(1), os.dup(2)
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


class Stage:
    """The Blender scene of this process: `render(spec, dice, seed)` -> float BGR picture
    (0-1, the scene's frame size, lens distortion applied) and its object-index map."""

    def __init__(self, *, threads: int = 1) -> None:
        self.bpy = import_bpy()
        self.threads = threads
        self.spec: SceneSpec | None = None
        self.builds = 0  # tables built so far (a pinned table is built once)
        self.dice_objects: list[Any] = []
        self.looks: dict[DieLook, tuple[Any, Any, Any]] = {}
        self.tmp = Path(tempfile.mkdtemp(prefix="dice-render-"))
        atexit.register(self.close)  # Blender's scratch pictures go with the process

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- the table ------------------------------------------------------------------
    def _build(self, spec: SceneSpec) -> None:
        bpy = self.bpy
        bpy.ops.wm.read_factory_settings(use_empty=True)
        self.dice_objects, self.looks = [], {}
        sc = bpy.context.scene
        wr, hr, fr = post.render_size(spec)
        sc.render.engine = "CYCLES"
        sc.render.resolution_x, sc.render.resolution_y = wr, hr
        sc.render.resolution_percentage = 100
        sc.render.threads_mode, sc.render.threads = "FIXED", self.threads
        sc.render.use_persistent_data = True
        sc.render.image_settings.file_format = "PNG"
        sc.render.image_settings.color_depth = "16"
        sc.render.image_settings.color_mode = "RGB"
        sc.view_settings.view_transform = "Standard"
        c = sc.cycles
        c.device, c.samples = "CPU", spec.samples
        c.use_adaptive_sampling, c.adaptive_threshold = True, 0.05
        c.use_denoising, c.denoiser = True, "OPENIMAGEDENOISE"
        c.denoising_prefilter, c.denoising_quality = "FAST", "FAST"
        c.max_bounces, c.diffuse_bounces, c.glossy_bounces = 4, 1, 1
        c.use_light_tree = False
        c.transmission_bounces, c.transparent_max_bounces = 4, 2
        c.caustics_reflective = c.caustics_refractive = False
        c.blur_glossy, c.sample_clamp_indirect = 1.0, 5.0
        self._camera(sc, spec, wr, fr)
        colours, ambient = spec.light_colours()
        for k, (lamp, colour) in enumerate(zip(spec.lights, colours)):
            self._lamp(sc, k, lamp, colour)
        world = bpy.data.worlds.new("world")
        world.use_nodes = True
        bg = world.node_tree.nodes["Background"]
        bg.inputs["Color"].default_value = (*ambient, 1.0)
        bg.inputs["Strength"].default_value = spec.ambient
        world.cycles.sampling_method = "NONE"  # an even colour: no map to build or sample
        sc.world = world
        self._tray(spec)
        self._compositor(sc)

    def _camera(self, sc: Any, spec: SceneSpec, wr: int, fr: float) -> None:
        from mathutils import Matrix
        cam = self.bpy.data.cameras.new("camera")
        cam.sensor_fit = "HORIZONTAL"
        cam.angle = 2 * math.atan(wr / 2 / fr)
        cam.clip_start, cam.clip_end = 0.002, 100.0
        obj = self.bpy.data.objects.new("camera", cam)
        obj.matrix_world = Matrix(spec.camera.matrix().tolist())
        sc.collection.objects.link(obj)
        sc.camera = obj

    def _lamp(self, sc: Any, k: int, lamp: LightSpec, colour: tuple[float, float, float]
              ) -> None:
        from mathutils import Vector
        data = self.bpy.data.lights.new(f"lamp{k}", "AREA")
        data.shape, data.size, data.energy, data.color = "SQUARE", lamp.size, lamp.power, colour
        obj = self.bpy.data.objects.new(f"lamp{k}", data)
        obj.location = (lamp.x, lamp.y, lamp.z)
        aim = Vector((0.0, 0.0, 0.0)) - obj.location
        obj.rotation_euler = aim.to_track_quat("-Z", "Y").to_euler()
        sc.collection.objects.link(obj)

    def _prism(self, name: str, outline: np.ndarray, z0: float, z1: float, mat: Any) -> None:
        """An upright prism of the convex (n, 2) outline between heights z0 and z1."""
        import bmesh
        bm = bmesh.new()
        bottom = [bm.verts.new((float(x), float(y), z0)) for x, y in outline]
        top = [bm.verts.new((float(x), float(y), z1)) for x, y in outline]
        bm.faces.new(top)
        bm.faces.new(bottom[::-1])
        n = len(outline)
        for i in range(n):
            j = (i + 1) % n
            bm.faces.new((bottom[i], bottom[j], top[j], top[i]))
        bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
        mesh = self.bpy.data.meshes.new(name)
        bm.to_mesh(mesh)
        bm.free()
        mesh.materials.append(mat)
        obj = self.bpy.data.objects.new(name, mesh)
        self.bpy.context.scene.collection.objects.link(obj)

    def _tray(self, spec: SceneSpec) -> None:
        t = spec.tray
        floor = materials.surface_material(self.bpy, "floor", t.floor)
        if t.shape == "table":
            self._prism("table", t.polygon(), -0.02, 0.0, floor)
            return
        inner = t.polygon()
        outer = _offset(inner, t.wall_thickness)
        self._prism("floor", outer, -t.floor_thickness, 0.0, floor)
        wall = materials.surface_material(self.bpy, "wall", t.wall)
        n = len(inner)
        for i in range(n):
            j = (i + 1) % n
            quad = np.array([inner[i], inner[j], outer[j], outer[i]])
            self._prism(f"wall{i}", quad, -t.floor_thickness, t.wall_height, wall)
        table = materials.surface_material(self.bpy, "table", t.table)
        self._prism("table", np.array([(-20, -20), (20, -20), (20, 20), (-20, 20)]),
                    -t.floor_thickness - 0.02, -t.floor_thickness, table)

    def _compositor(self, sc: Any) -> None:
        sc.view_layers[0].use_pass_object_index = True
        sc.use_nodes = True
        tree = sc.node_tree
        tree.nodes.clear()
        layers = tree.nodes.new("CompositorNodeRLayers")
        comp = tree.nodes.new("CompositorNodeComposite")
        tree.links.new(layers.outputs["Image"], comp.inputs["Image"])
        out = tree.nodes.new("CompositorNodeOutputFile")
        out.base_path = str(self.tmp)
        out.format.file_format, out.format.color_depth = "OPEN_EXR", "32"
        out.file_slots[0].path = "ids"
        tree.links.new(layers.outputs["IndexOB"], out.inputs[0])

    # -- the dice --------------------------------------------------------------------
    def _look(self, look: DieLook, px: float) -> tuple[Any, Any, Any]:
        """(mesh, faces material, edges material) shared by the dice of one look."""
        if look not in self.looks:
            k = len(self.looks)
            cell = 64 if px < 40 else 128 if px < 110 else 256
            ink, height = textures.atlas(look, cell=cell)
            height4 = np.repeat(height[..., None], 4, axis=2)
            height4[..., 3] = 1
            faces, edges = materials.die_materials(
                self.bpy, f"die{k}", look,
                materials.image(self.bpy, f"ink{k}", ink, colour=True),
                materials.image(self.bpy, f"height{k}", height4 + 1, colour=False))
            self.looks[look] = (_die_mesh(self.bpy, f"die{k}", faces, edges), faces, edges)
        return self.looks[look]

    def _dice(self, spec: SceneSpec, dice: Sequence[DieSpec]) -> None:
        from mathutils import Matrix
        bpy = self.bpy
        for obj in self.dice_objects:
            bpy.data.objects.remove(obj, do_unlink=True)
        self.dice_objects = []
        f = spec.focal()
        for k, die in enumerate(dice):
            px = f * die.look.size / max(spec.camera.height - die.look.size, 1e-3)
            mesh, _, _ = self._look(die.look, px)
            obj = bpy.data.objects.new(f"die{k}", mesh)
            mod = obj.modifiers.new("bevel", "BEVEL")
            mod.width, mod.segments, mod.limit_method = die.look.bevel, BEVEL_SEGMENTS, "NONE"
            mod.material, mod.harden_normals = 1, True
            obj.matrix_world = Matrix(die.matrix().tolist())
            obj.pass_index = k + 1
            bpy.context.scene.collection.objects.link(obj)
            self.dice_objects.append(obj)

    def render(self, spec: SceneSpec, dice: Sequence[DieSpec], *, seed: int = 0
               ) -> tuple[np.ndarray, np.ndarray]:
        """Float BGR picture (0-1) and int32 object-index map, both at the frame size."""
        if spec != self.spec:
            self._build(spec)
            self.spec = spec
            self.builds += 1
        self._dice(spec, dice)
        sc = self.bpy.context.scene
        sc.cycles.seed = seed % 2**31
        sc.frame_current = 1
        sc.render.filepath = str(self.tmp / "frame.png")
        for old in self.tmp.glob("ids*.exr"):
            old.unlink()
        log = self.tmp / "cycles.log"
        try:
            with _quiet(log):
                self.bpy.ops.render.render(write_still=True)
        except RuntimeError as e:
            raise RuntimeError(f"{e}; {log.read_text(errors='replace')[-2000:]}") from e
        rgb = cv2.imread(str(self.tmp / "frame.png"), cv2.IMREAD_UNCHANGED)
        if rgb is None:
            raise RuntimeError("Blender wrote no picture")
        ids = self._read_ids(next(self.tmp.glob("ids*.exr")))
        return post.distort_frame(rgb.astype(np.float32) / 65535, ids, spec)

    def _read_ids(self, path: Path) -> np.ndarray:
        img = self.bpy.data.images.load(str(path))
        try:
            w, h = img.size
            px = np.empty(w * h * img.channels, np.float32)
            img.pixels.foreach_get(px)
        finally:
            self.bpy.data.images.remove(img)
        return np.rint(px.reshape(h, w, -1)[::-1, :, 0]).astype(np.int32)


def _offset(poly: np.ndarray, d: float) -> np.ndarray:
    """The convex polygon grown outwards by `d` (mitred corners)."""
    n = len(poly)
    ccw = np.sign(np.sum(poly[:, 0] * np.roll(poly[:, 1], -1) - np.roll(poly[:, 0], -1)
                         * poly[:, 1])) or 1.0
    out = []
    for i in range(n):
        prev, cur, nxt = poly[i - 1], poly[i], poly[(i + 1) % n]
        normals = []
        for a, b in ((prev, cur), (cur, nxt)):
            e = (b - a) / np.linalg.norm(b - a)
            normals.append(np.array([e[1], -e[0]]) * ccw)
        bis = normals[0] + normals[1]
        bis /= np.linalg.norm(bis)
        out.append(cur + bis * d / float(np.dot(bis, normals[0])))
    return np.array(out)


def _die_mesh(bpy: Any, name: str, faces: Any, edges: Any) -> Any:
    """A unit cube whose six faces map to their atlas cells (geometry.SLOT_AXES)."""
    import bmesh
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    uv = bm.loops.layers.uv.new("UVMap")
    for face in bm.faces:
        slot = int(np.argmax(geometry.SLOT_NORMALS @ np.array(face.normal)))
        right, up = geometry.SLOT_AXES[slot]
        col, row = slot % 3, slot // 3
        for loop in face.loops:
            co = np.array(loop.vert.co)
            a, b = 0.5 + co @ right, 0.5 + co @ up
            loop[uv].uv = ((col + a) / 3, 1 - (row + 1) / 2 + b / 2)
        face.material_index = 0
        face.smooth = True
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(faces)
    mesh.materials.append(edges)
    return mesh
