"""Cycles materials for dice and trays, built from the pure looks (needs bpy).

Dice: a Principled body (plain, marbled, wood-grained, pearly or translucent) with the
face atlas's ink painted over it and, for engraved pips, a bump from its height layer;
the rounded edges (the bevel's faces) get the body alone. Trays: felt (fine noise for
colour and bump, sheen), wood (wave-texture grain), leather and plain surfaces.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from vision.training.render.looks import RGB, DieLook, srgb_to_linear
from vision.training.render.scene import SurfaceSpec


def _rgba(rgb: RGB) -> tuple[float, float, float, float]:
    return (*srgb_to_linear(rgb), 1.0)


class Graph:
    """A material's node tree with short helpers (node, link, input by identifier)."""

    def __init__(self, bpy: Any, name: str) -> None:
        self.mat = bpy.data.materials.new(name)
        self.mat.use_nodes = True
        self.tree = self.mat.node_tree
        self.tree.nodes.clear()
        self.out = self.node("ShaderNodeOutputMaterial")

    def node(self, kind: str, **inputs: Any) -> Any:
        n = self.tree.nodes.new(kind)
        for key, value in inputs.items():
            if key in ("operation",):  # a node setting, not an input
                setattr(n, key, value)
            else:
                self.set(n, key.replace("_", " "), value)
        return n

    def set(self, node: Any, key: str, value: Any) -> None:
        sock = _socket(node.inputs, key)
        if hasattr(value, "links") or hasattr(value, "is_linked"):  # an output socket
            self.tree.links.new(value, sock)
        else:
            sock.default_value = value

    def mix(self, fac: Any, a: Any, b: Any) -> Any:
        """Colour mix node output: a where fac is 0, b where 1."""
        n = self.tree.nodes.new("ShaderNodeMix")
        n.data_type = "RGBA"
        self.set(n, "Factor_Float", fac)
        self.set(n, "A_Color", a)
        self.set(n, "B_Color", b)
        return _socket(n.outputs, "Result_Color")

    def ramp(self, fac: Any, stops: list[tuple[float, float]]) -> Any:
        """ColorRamp of `fac` through (position, grey) stops; its colour output."""
        n = self.tree.nodes.new("ShaderNodeValToRGB")
        els = n.color_ramp.elements
        while len(els) < len(stops):
            els.new(0.5)
        for el, (pos, grey) in zip(els, stops):
            el.position, el.color = pos, (grey, grey, grey, 1.0)
        self.tree.links.new(fac, n.inputs["Fac"])
        return n.outputs["Color"]

    def surface(self, shader: Any) -> None:
        self.tree.links.new(shader, self.out.inputs["Surface"])


def _socket(sockets: Any, key: str) -> Any:
    for s in sockets:
        if s.identifier == key:
            return s
    return sockets[key]


def _body(g: Graph, look: DieLook) -> Any:
    """The body colour output (plain, marbled, wood, pearl), varied per die object."""
    if look.style not in ("marbled", "wood", "pearl"):
        return _rgba(look.body)
    coord = g.node("ShaderNodeTexCoord").outputs["Object"]
    rand = g.node("ShaderNodeObjectInfo").outputs["Random"]
    w = g.node("ShaderNodeMath", operation="MULTIPLY")
    g.set(w, "Value", rand)
    w.inputs[1].default_value = 100.0
    if look.style == "wood":
        # growth rings round an axis outside the die: end grain on two faces,
        # gently curved grain on the others
        shift = g.node("ShaderNodeMapping", Vector=coord)
        shift.inputs["Location"].default_value = (0.0, 1.0 + look.pattern_seed % 3,
                                                  look.pattern_seed % 1.7)
        wave = g.node("ShaderNodeTexWave", Vector=shift.outputs["Vector"],
                      Scale=look.pattern_scale * 2, Distortion=4.0, Detail=2.0)
        wave.wave_type, wave.rings_direction = "RINGS", "X"
        fac = g.ramp(wave.outputs["Fac"], [(0.0, 0.0), (0.6, 0.2), (1.0, 1.0)])
    else:
        noise = g.node("ShaderNodeTexNoise", Vector=coord, W=w.outputs[0],
                       Scale=look.pattern_scale * 1.5, Detail=3.0, Distortion=1.5)
        noise.noise_dimensions = "4D"
        stops = [(0.0, 0.0), (0.47, 0.0), (0.5, 1.0), (0.53, 0.0), (1.0, 0.0)] \
            if look.style == "marbled" else [(0.2, 0.0), (0.8, 0.6)]
        fac = g.ramp(noise.outputs["Fac"], stops)
    bw = g.node("ShaderNodeRGBToBW")
    g.tree.links.new(fac, bw.inputs["Color"])
    return g.mix(bw.outputs["Val"], _rgba(look.body), _rgba(look.body2))


def _body_bsdf(g: Graph, look: DieLook, normal: Any = None) -> Any:
    bsdf = g.node("ShaderNodeBsdfPrincipled", Base_Color=_body(g, look),
                  Roughness=look.roughness, Coat_Weight=look.coat, Coat_Roughness=0.05,
                  Transmission_Weight=look.transmission, IOR=1.5)
    if look.style == "pearl":
        g.set(bsdf, "Sheen Weight", 0.6)
    if normal is not None:
        g.set(bsdf, "Normal", normal)
        g.set(bsdf, "Coat Normal", normal)
    return bsdf


def image(bpy: Any, name: str, pixels: np.ndarray, *, colour: bool) -> Any:
    """A packed Blender image from (h, w, 4) float pixels (numpy rows top to bottom)."""
    h, w = pixels.shape[:2]
    img = bpy.data.images.new(name, w, h, alpha=True, float_buffer=True)
    img.colorspace_settings.name = "sRGB" if colour else "Non-Color"
    img.pixels.foreach_set(np.ascontiguousarray(pixels[::-1], np.float32).ravel())
    img.pack()
    return img


def die_materials(bpy: Any, name: str, look: DieLook, ink: Any, height: Any) -> tuple[Any, Any]:
    """(faces material, rounded-edges material) for dice of `look`; `ink` and `height`
    are the atlas images (textures.atlas)."""
    faces = Graph(bpy, name + "-faces")
    uv = faces.node("ShaderNodeUVMap").outputs["UV"]
    tex = faces.node("ShaderNodeTexImage", Vector=uv)
    tex.image, tex.interpolation = ink, "Linear"
    normal = None
    if look.engraved > 0:
        htex = faces.node("ShaderNodeTexImage", Vector=uv)
        htex.image = height
        bump = faces.node("ShaderNodeBump", Strength=1.0, Distance=look.engraved * 4)
        faces.set(bump, "Height", htex.outputs["Color"])
        normal = bump.outputs["Normal"]
    body = _body_bsdf(faces, look, normal)
    print_ = faces.node("ShaderNodeBsdfPrincipled", Base_Color=tex.outputs["Color"],
                        Roughness=min(0.8, look.roughness + 0.15), Coat_Weight=look.coat)
    if normal is not None:
        faces.set(print_, "Normal", normal)
    mix = faces.node("ShaderNodeMixShader", Fac=tex.outputs["Alpha"])
    faces.tree.links.new(body.outputs[0], mix.inputs[1])
    faces.tree.links.new(print_.outputs[0], mix.inputs[2])
    faces.surface(mix.outputs[0])
    edges = Graph(bpy, name + "-edges")
    edges.surface(_body_bsdf(edges, look).outputs[0])
    return faces.mat, edges.mat


def surface_material(bpy: Any, name: str, spec: SurfaceSpec) -> Any:
    """A tray or table material; patterns are in object space, metres. Cheap on purpose
    (one or two single-octave textures): the floor fills most of the frame, and its
    fibres are finer than a pixel anyway."""
    g = Graph(bpy, name)
    coord = g.node("ShaderNodeTexCoord").outputs["Object"]
    scale = 1.0 / max(spec.scale, 1e-4)
    height = None
    if spec.kind == "wood":
        stretch = g.node("ShaderNodeMapping", Vector=coord)  # grain runs along y
        stretch.inputs["Scale"].default_value = (1.0, 0.15, 1.0)
        wave = g.node("ShaderNodeTexWave", Vector=stretch.outputs["Vector"], Scale=scale * 0.3,
                      Distortion=8.0, Detail=2.0, Detail_Scale=1.0)
        wave.bands_direction = "X"
        soft = g.node("ShaderNodeMath", operation="MULTIPLY")  # grain, not zebra stripes
        g.set(soft, "Value", wave.outputs["Fac"])
        soft.inputs[1].default_value = 0.6
        colour = g.mix(soft.outputs[0], _rgba(spec.colour), _rgba(spec.colour2))
    else:
        blotch = g.node("ShaderNodeTexNoise", Vector=coord, Scale=scale * 0.02, Detail=0.0)
        fac = g.node("ShaderNodeMath", operation="MULTIPLY")
        g.set(fac, "Value", blotch.outputs["Fac"])
        fac.inputs[1].default_value = 0.6 if spec.kind == "felt" else 0.25
        colour = g.mix(fac.outputs[0], _rgba(spec.colour), _rgba(spec.colour2))
        if spec.kind == "leather":
            height = g.node("ShaderNodeTexVoronoi", Vector=coord,
                            Scale=scale * 0.5).outputs["Distance"]
        elif spec.kind == "felt":
            height = g.node("ShaderNodeTexNoise", Vector=coord, Scale=scale,
                            Detail=1.0).outputs["Fac"]
    bsdf = g.node("ShaderNodeBsdfPrincipled", Base_Color=colour, Roughness=spec.roughness)
    if height is not None and spec.bump > 0:
        bump = g.node("ShaderNodeBump", Strength=spec.bump, Distance=spec.scale * 0.5)
        g.set(bump, "Height", height)
        g.set(bsdf, "Normal", bump.outputs["Normal"])
    if spec.kind == "felt":
        g.set(bsdf, "Sheen Weight", 0.8)
        g.set(bsdf, "Sheen Roughness", 0.5)
        g.set(bsdf, "Specular IOR Level", 0.2)
    g.surface(bsdf.outputs[0])
    return g.mat
