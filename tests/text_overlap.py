"""Whether a figure's text labels overlap, as a reader would see them: each label's
box turned by its rotation, compared by the separating axis theorem."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text


def _corners(text: Text, renderer: object) -> np.ndarray:
    """The four corners (display units) of *text* as drawn: its unrotated box turned
    about its anchor by its rotation (rotation_mode 'anchor')."""
    rotation = text.get_rotation()
    text.set_rotation(0)
    box = text.get_window_extent(renderer)
    text.set_rotation(rotation)
    anchor = np.array(text.get_transform().transform(text.get_position()))
    corners = np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1],
                        [box.x0, box.y1]]) - anchor
    turn = math.radians(rotation)
    rotate = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    centre = corners.mean(axis=0)
    shrunk = centre + (corners - centre) * 0.97  # touching is not overlapping
    return shrunk @ rotate.T + anchor


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two convex quadrilaterals overlap (separating axis theorem)."""
    for quad in (a, b):
        for i in range(4):
            edge = quad[(i + 1) % 4] - quad[i]
            axis = np.array([-edge[1], edge[0]])
            pa, pb = a @ axis, b @ axis
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return True


def overlapping_labels(figure: Figure) -> list[tuple[str, str]]:
    """The pairs of non-empty texts of *figure* that overlap once drawn: its own, and
    each axes' texts, title and (when its axis is shown) tick labels."""
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    every: list[Text] = list(figure.texts)
    for ax in figure.axes:
        every += [*ax.texts, ax.title]
        if ax.axison:
            every += [*ax.get_xticklabels(), *ax.get_yticklabels()]
    texts = [t for t in every if t.get_text() and t.get_visible()]
    quads = [_corners(t, renderer) for t in texts]
    low = np.array([q.min(axis=0) for q in quads])
    high = np.array([q.max(axis=0) for q in quads])
    near = ((low[:, None, 0] < high[None, :, 0]) & (low[None, :, 0] < high[:, None, 0])
            & (low[:, None, 1] < high[None, :, 1]) & (low[None, :, 1] < high[:, None, 1]))
    return [(texts[i].get_text(), texts[j].get_text())
            for i, j in zip(*np.nonzero(np.triu(near, 1)), strict=True)
            if _overlap(quads[i], quads[j])]
