"""1.8 detection layers whose operators Paddle 3.3.1 still registers, run with their 1.8 inputs and attributes.

2.x removed these functions (or moved them to `paddle.vision.ops` with other arguments); the operators
remain, so `run_op` gives the 1.8 results in a legacy-IR program and in dygraph. The ROI operators take
the ROIs per image as counts in Paddle 3 (`RoisNum`) where 1.8's `rois_lod` gave offsets.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from runtime_shim.adapters import adapter
from runtime_shim.messages import LegacyArgumentError
from runtime_shim.static_ops import op, run_op


def _floats(value: Any) -> List[float]:
    return [float(v) for v in (value if isinstance(value, (list, tuple)) else [value])]


def _stopped(*outs: Any) -> Any:
    for out in outs:
        out.stop_gradient = True
    return outs[0] if len(outs) == 1 else outs


@adapter("paddle.fluid.layers.anchor_generator", "the `anchor_generator` operator (no 2.x API)")
def anchor_generator(input: Any, anchor_sizes: Any = None, aspect_ratios: Any = None,
                     variance: Sequence[float] = (0.1, 0.1, 0.2, 0.2), stride: Any = None, offset: float = 0.5,
                     name: Optional[str] = None) -> Tuple[Any, Any]:
    """1.8 `layers.anchor_generator` (`detection.py`): (anchors, variances), [H, W, num_anchors, 4] each."""
    if not (isinstance(stride, (list, tuple)) and len(stride) == 2):
        raise ValueError("stride should be a list or tuple with length 2, (stride_width, stride_height).")
    anchors, variances = run_op("anchor_generator", {"Input": input}, {
        "anchor_sizes": _floats(anchor_sizes), "aspect_ratios": _floats(aspect_ratios),
        "variances": _floats(variance), "stride": _floats(stride), "offset": float(offset)},
        outputs=("Anchors", "Variances"))
    return _stopped(anchors, variances)


@adapter("paddle.fluid.layers.bipartite_match", "the `bipartite_match` operator (no 2.x API)")
def bipartite_match(dist_matrix: Any, match_type: Optional[str] = None, dist_threshold: Optional[float] = None,
                    name: Optional[str] = None) -> Tuple[Any, Any]:
    """1.8 `layers.bipartite_match`: (column-to-row match indices, their distances)."""
    attrs = {}
    if match_type is not None:
        attrs["match_type"] = match_type
    if dist_threshold is not None:
        attrs["dist_threshold"] = float(dist_threshold)
    return run_op("bipartite_match", {"DistMat": dist_matrix}, attrs,
                  outputs=("ColToRowMatchIndices", "ColToRowMatchDist"), dtype=("int32", None))


@adapter("paddle.fluid.layers.box_clip", "the `box_clip` operator (no 2.x API)")
def box_clip(input: Any, im_info: Any, name: Optional[str] = None) -> Any:
    """1.8 `layers.box_clip`: boxes clipped to the image size given by `im_info` (height, width, scale)."""
    return run_op("box_clip", {"Input": input, "ImInfo": im_info}, outputs=("Output",))


@adapter("paddle.fluid.layers.box_coder", "paddle.vision.ops.box_coder")
def box_coder(prior_box: Any, prior_box_var: Any, target_box: Any, code_type: str = "encode_center_size",
              box_normalized: bool = True, name: Optional[str] = None, axis: int = 0) -> Any:
    """1.8 `layers.box_coder`: `prior_box_var` is a tensor or a list of four variances."""
    import paddle

    inputs = {"PriorBox": prior_box, "TargetBox": target_box}
    attrs = {"code_type": code_type, "box_normalized": box_normalized, "axis": axis}
    if isinstance(prior_box_var, (paddle.Tensor, paddle.base.framework.Variable)):
        inputs["PriorBoxVar"] = prior_box_var
    elif isinstance(prior_box_var, list):
        attrs["variance"] = [float(v) for v in prior_box_var]
    else:
        raise TypeError("Input variance of box_coder must be Variable or lisz")
    return run_op("box_coder", inputs, attrs, outputs=("OutputBox",))



@adapter("paddle.fluid.layers.generate_proposals", "the `generate_proposals` operator (paddle.vision.ops."
         "generate_proposals takes other inputs)")
def generate_proposals(scores: Any, bbox_deltas: Any, im_info: Any, anchors: Any, variances: Any,
                       pre_nms_top_n: int = 6000, post_nms_top_n: int = 1000, nms_thresh: float = 0.5,
                       min_size: float = 0.1, eta: float = 1.0, name: Optional[str] = None,
                       return_rois_num: bool = False) -> Tuple[Any, Any]:
    """1.8 `layers.generate_proposals` (`layers/detection.py:2767`): (rois, probabilities), LoD by image."""
    if return_rois_num:
        raise LegacyArgumentError("generate_proposals(return_rois_num=True): 1.8's third output (RpnRoisLod) "
                                  "is not served; Paddle 3's operator gives the count per image (RpnRoisNum)")
    rois, probs = run_op("generate_proposals", {
        "Scores": scores, "BboxDeltas": bbox_deltas, "ImInfo": im_info, "Anchors": anchors, "Variances": variances},
        {"pre_nms_topN": int(pre_nms_top_n), "post_nms_topN": int(post_nms_top_n), "nms_thresh": float(nms_thresh),
         "min_size": float(min_size), "eta": float(eta)}, outputs=("RpnRois", "RpnRoiProbs"))
    return _stopped(rois, probs)


@adapter("paddle.fluid.layers.collect_fpn_proposals", "the `collect_fpn_proposals` operator (no 2.x API)")
def collect_fpn_proposals(multi_rois: Sequence[Any], multi_scores: Sequence[Any], min_level: int, max_level: int,
                          post_nms_top_n: int, name: Optional[str] = None) -> Any:
    """1.8 `layers.collect_fpn_proposals` (`layers/detection.py:3673`): the levels' RoIs, the best
    `post_nms_top_n` of them by score, LoD by image."""
    levels = max_level - min_level + 1
    return _stopped(run_op("collect_fpn_proposals", {
        "MultiLevelRois": list(multi_rois[:levels]), "MultiLevelScores": list(multi_scores[:levels])},
        {"post_nms_topN": int(post_nms_top_n)}, outputs=("FpnRois",)))


@adapter("paddle.fluid.layers.distribute_fpn_proposals", "the `distribute_fpn_proposals` operator "
         "(paddle.vision.ops.distribute_fpn_proposals takes the RoIs per image as counts)")
def distribute_fpn_proposals(fpn_rois: Any, min_level: int, max_level: int, refer_level: int, refer_scale: int,
                             name: Optional[str] = None) -> Tuple[List[Any], Any]:
    """1.8 `layers.distribute_fpn_proposals` (`layers/detection.py:3524`), on LoD tensors of a static program:
    (the RoIs of each level, the index that restores their order). 1.8 measured RoIs with the pixel offset
    (width x2 - x1 + 1), Paddle 3's `pixel_offset=True`."""
    from paddle.base.layer_helper import LayerHelper

    from runtime_shim.mode import in_legacy_static

    if not in_legacy_static():
        raise LegacyArgumentError("distribute_fpn_proposals: 1.8 ran it on the LoD tensors of a static program only")
    helper = LayerHelper("distribute_fpn_proposals")
    multi_rois = [helper.create_variable_for_type_inference(fpn_rois.dtype) for _ in range(max_level - min_level + 1)]
    restore = helper.create_variable_for_type_inference("int32")
    helper.append_op(type="distribute_fpn_proposals", inputs={"FpnRois": fpn_rois},
                     outputs={"MultiFpnRois": multi_rois, "RestoreIndex": restore},
                     attrs={"min_level": int(min_level), "max_level": int(max_level), "refer_level": int(refer_level),
                            "refer_scale": int(refer_scale), "pixel_offset": True})
    return multi_rois, restore

@adapter("paddle.fluid.layers.multiclass_nms", "the `multiclass_nms` operator (paddle.vision.ops.nms is "
         "another API)")
def multiclass_nms(bboxes: Any, scores: Any, score_threshold: float, nms_top_k: int, keep_top_k: int,
                   nms_threshold: float = 0.3, normalized: bool = True, nms_eta: float = 1.0,
                   background_label: int = 0, name: Optional[str] = None) -> Any:
    """1.8 `layers.multiclass_nms`: [label, score, x1, y1, x2, y2] rows kept per image (LoD by image)."""
    out = run_op("multiclass_nms", {"BBoxes": bboxes, "Scores": scores}, {
        "background_label": background_label, "score_threshold": float(score_threshold), "nms_top_k": nms_top_k,
        "nms_threshold": float(nms_threshold), "nms_eta": float(nms_eta), "keep_top_k": keep_top_k,
        "normalized": normalized})
    return _stopped(out)


@adapter("paddle.fluid.layers.matrix_nms", "the `matrix_nms` operator (paddle.vision.ops.matrix_nms returns the "
         "count per image beside it)")
def matrix_nms(bboxes: Any, scores: Any, score_threshold: float, post_threshold: float, nms_top_k: int,
               keep_top_k: int, use_gaussian: bool = False, gaussian_sigma: float = 2.0, background_label: int = 0,
               normalized: bool = True, return_index: bool = False, name: Optional[str] = None) -> Any:
    """1.8 `layers.matrix_nms` (`layers/detection.py:3397`): [label, score, x1, y1, x2, y2] rows kept per image,
    LoD by image, and with `return_index` their indices into the flattened boxes. Paddle 3.3.1 keeps the
    operator with 1.8's inputs and attributes, but gives the rows per image as counts (RoisNum) and sets no
    LoD, so in a program the LoD is set from them (`lod_reset`), as 1.8's kernel set it. Where no image keeps
    a box, 1.8's result had shape [0], Paddle 3's has [0, 6] ([0, 1] for the index): no rows in either."""
    from runtime_shim.adapters.sequence_lod import lod_offsets
    from runtime_shim.mode import in_legacy_static

    attrs = {"background_label": int(background_label), "score_threshold": float(score_threshold),
             "post_threshold": float(post_threshold), "nms_top_k": int(nms_top_k), "keep_top_k": int(keep_top_k),
             "gaussian_sigma": float(gaussian_sigma), "use_gaussian": bool(use_gaussian),
             "normalized": bool(normalized)}
    inputs = {"BBoxes": bboxes, "Scores": scores}
    if in_legacy_static():
        out, index, per_image = run_op("matrix_nms", inputs, attrs, outputs=("Out", "Index", "RoisNum"),
                                       dtype=(None, "int32", "int32"))
        offsets = lod_offsets(op("paddle.cast")(per_image, "int64"))
        out, index = (run_op("lod_reset", {"X": value, "Y": offsets}, {"target_lod": [], "append": False})
                      for value in (out, index))
    else:
        out, index = run_op("matrix_nms", inputs, attrs, outputs=("Out", "Index"))
    _stopped(out, index)
    return (out, index) if return_index else out


def _round_half_away(value: Any) -> Any:
    """C's round(): halves away from zero (`paddle.round` rounds them to even)."""
    size = op("paddle.abs")(value)
    whole = op("paddle.floor")(size)
    return op("paddle.sign")(value) * (whole + op("paddle.cast")(size - whole >= 0.5, value.dtype))


def _retina_decode(deltas: Any, anchors: Any, im_info: Any) -> Any:
    """The boxes 1.8's retinanet_detection_output decodes from one level's deltas [N, M, 4] and anchors
    [M, 4] (pixel sizes, +1), scaled back by each image's scale and clipped to its rounded size."""
    dx, dy, dw, dh = op("paddle.split")(deltas, 4, axis=2)
    ax0, ay0, ax1, ay1 = op("paddle.split")(anchors, 4, axis=1)
    height, width, scale = (op("paddle.reshape")(part, [-1, 1, 1]) for part in op("paddle.split")(im_info, 3, axis=1))
    anchor_w, anchor_h = ax1 - ax0 + 1, ay1 - ay0 + 1
    center_x, center_y = dx * anchor_w + (ax0 + anchor_w / 2), dy * anchor_h + (ay0 + anchor_h / 2)
    box_w, box_h = op("paddle.exp")(dw) * anchor_w, op("paddle.exp")(dh) * anchor_h
    corners = [(center_x - box_w / 2) / scale, (center_y - box_h / 2) / scale,
               (center_x + box_w / 2 - 1) / scale, (center_y + box_h / 2 - 1) / scale]
    right, bottom = _round_half_away(width / scale) - 1, _round_half_away(height / scale) - 1
    clipped = [op("paddle.clip")(op("paddle.minimum")(v, bound), min=0.0)
               for v, bound in zip(corners, (right, bottom, right, bottom))]
    return op("paddle.concat")(clipped, axis=2)


@adapter("paddle.fluid.layers.retinanet_detection_output", "decoding, per-level top-k and the `multiclass_nms3` "
         "operator, composed as 1.8's kernel ran them (no 2.x API)")
def retinanet_detection_output(bboxes: Sequence[Any], scores: Sequence[Any], anchors: Sequence[Any], im_info: Any,
                               score_threshold: float = 0.05, nms_top_k: int = 1000, keep_top_k: int = 100,
                               nms_threshold: float = 0.3, nms_eta: float = 1.0) -> Any:
    """1.8 `layers.retinanet_detection_output` (`layers/detection.py:2959`; Paddle 3.3.1 dropped the operator):
    per image and FPN level, the (anchor, class) scores above `score_threshold` (above 0 on the last level),
    the best `nms_top_k` of them (ties in index order); their anchors' boxes decoded, scaled back and
    clipped; class-wise NMS over all levels (pixel IoU) and the best `keep_top_k`; rows [label + 1, score,
    box] by descending score, LoD by image, no gradient. 1.8 ran the operator with nms_eta 1.0 whatever
    was passed (`detection.py:3106`), so the NMS threshold never adapts.

    The NMS is the `multiclass_nms3` operator, whose per-class order (score, then index over the levels
    in order) and keep_top_k are 1.8's: scores not selected are -inf under a threshold of -FLT_MAX. Its
    rows come grouped by class; a stable sort by score within each image restores 1.8's order."""
    import paddle

    from runtime_shim.adapters.sequence_lod import lod_offsets
    from runtime_shim.mode import in_legacy_static

    kept, boxes = [], []
    for level, (deltas, score, anchor) in enumerate(zip(bboxes, scores, anchors)):
        threshold = float(score_threshold) if level < len(scores) - 1 else 0.0
        flat = op("paddle.reshape")(score, [0, -1])
        chosen = op("paddle.ones_like")(flat)
        if int(nms_top_k) > -1:
            order = op("paddle.argsort")(flat, axis=1, descending=True, stable=True)
            best = op("paddle.slice")(order, axes=[1], starts=[0], ends=[int(nms_top_k)])
            chosen = op("paddle.put_along_axis")(op("paddle.zeros_like")(flat), best, 1.0, axis=1)
        selected = op("paddle.logical_and")(chosen > 0.5, flat > threshold)
        masked = op("paddle.where")(selected, flat, op("paddle.full_like")(flat, float("-inf")))
        kept.append(op("paddle.reshape")(masked, [0, -1, score.shape[-1]]))
        boxes.append(_retina_decode(deltas, anchor, im_info))
    out, _, per_image = run_op("multiclass_nms3", {
        "BBoxes": op("paddle.concat")(boxes, axis=1),
        "Scores": op("paddle.transpose")(op("paddle.concat")(kept, axis=1), [0, 2, 1])}, {
        "background_label": -1, "score_threshold": -3.4028234663852886e38, "nms_top_k": -1,
        "nms_threshold": float(nms_threshold), "nms_eta": 1.0, "keep_top_k": int(keep_top_k),
        "normalized": False}, outputs=("Out", "Index", "NmsRoisNum"), dtype=(None, "int32", "int32"))
    image = op("paddle.repeat_interleave")(op("paddle.arange")(0, op("paddle.shape")(per_image)[0], dtype="int32"),
                                            per_image)
    by_score = op("paddle.argsort")(out[:, 1], descending=True, stable=True)
    order = op("paddle.gather")(by_score, op("paddle.argsort")(op("paddle.gather")(image, by_score), stable=True))
    rows = op("paddle.gather")(out, order)
    out = op("paddle.concat")([rows[:, :1] + 1, rows[:, 1:]], axis=1)
    if in_legacy_static():
        out = run_op("lod_reset", {"X": out, "Y": lod_offsets(op("paddle.cast")(per_image, paddle.int64))},
                     {"target_lod": [], "append": False})
    return _stopped(out)


@adapter("paddle.fluid.layers.detection_output", "box_coder then the `multiclass_nms` operator (no 2.x API)")
def detection_output(loc: Any, scores: Any, prior_box: Any, prior_box_var: Any, background_label: int = 0,
                     nms_threshold: float = 0.3, nms_top_k: int = 400, keep_top_k: int = 200,
                     score_threshold: float = 0.01, nms_eta: float = 1.0, return_index: bool = False) -> Any:
    """1.8 `layers.detection_output` (`layers/detection.py:558`): boxes decoded from the priors, class scores
    softmaxed, then `multiclass_nms` (`multiclass_nms2` with the index). As 1.8, it runs with background
    label 0 and nms_eta 1.0 whatever was passed."""
    decoded = box_coder(prior_box, prior_box_var, loc, code_type="decode_center_size")
    scores = op("paddle.transpose")(op("paddle.nn.functional.softmax")(scores), perm=[0, 2, 1])
    scores.stop_gradient = True
    attrs = {"background_label": 0, "nms_threshold": float(nms_threshold), "nms_top_k": nms_top_k,
             "keep_top_k": keep_top_k, "score_threshold": float(score_threshold), "nms_eta": 1.0}
    inputs = {"Scores": scores, "BBoxes": decoded}
    if return_index:
        out, index = run_op("multiclass_nms2", inputs, attrs, outputs=("Out", "Index"), dtype=(None, "int32"))
        return _stopped(out, index)
    return _stopped(run_op("multiclass_nms", inputs, attrs))


def _rois_num(rois_lod: Any) -> Any:
    """1.8's `rois_lod` (offsets [0, n1, n1 + n2, ...]) as Paddle 3's `RoisNum` (counts [n1, n2, ...])."""
    if rois_lod is None:
        return None
    return op("paddle.cast")(rois_lod[1:] - rois_lod[:-1], "int32")


@adapter("paddle.fluid.layers.roi_align", "paddle.vision.ops.roi_align(x, boxes, boxes_num, output_size, "
         "spatial_scale, sampling_ratio, aligned=False)")
def roi_align(input: Any, rois: Any, pooled_height: int = 1, pooled_width: int = 1, spatial_scale: float = 1.0,
              sampling_ratio: int = -1, name: Optional[str] = None, rois_lod: Any = None) -> Any:
    """1.8 `layers.roi_align` (op `roi_align`, not aligned)."""
    return run_op("roi_align", {"X": input, "ROIs": rois, "RoisNum": _rois_num(rois_lod)}, {
        "pooled_height": pooled_height, "pooled_width": pooled_width, "spatial_scale": float(spatial_scale),
        "sampling_ratio": sampling_ratio, "aligned": False})


@adapter("paddle.fluid.layers.roi_pool", "paddle.vision.ops.roi_pool(x, boxes, boxes_num, output_size, "
         "spatial_scale)")
def roi_pool(input: Any, rois: Any, pooled_height: int = 1, pooled_width: int = 1, spatial_scale: float = 1.0,
             rois_lod: Any = None) -> Any:
    """1.8 `layers.roi_pool` (op `roi_pool`): max pooling per ROI."""
    out, _ = run_op("roi_pool", {"X": input, "ROIs": rois, "RoisNum": _rois_num(rois_lod)}, {
        "pooled_height": pooled_height, "pooled_width": pooled_width, "spatial_scale": float(spatial_scale)},
        outputs=("Out", "Argmax"))
    return out


@adapter("paddle.fluid.layers.psroi_pool", "paddle.vision.ops.psroi_pool(x, boxes, boxes_num, output_size, "
         "spatial_scale)")
def psroi_pool(input: Any, rois: Any, output_channels: int, spatial_scale: float, pooled_height: int,
               pooled_width: int, name: Optional[str] = None) -> Any:
    """1.8 `layers.psroi_pool` (op `psroi_pool`): position-sensitive average pooling per ROI."""
    for arg, kind in ((output_channels, int), (spatial_scale, float), (pooled_height, int), (pooled_width, int)):
        if not isinstance(arg, kind):
            raise TypeError(f"{arg!r} must be {kind.__name__} type")
    return run_op("psroi_pool", {"X": input, "ROIs": rois}, {
        "output_channels": output_channels, "spatial_scale": spatial_scale, "pooled_height": pooled_height,
        "pooled_width": pooled_width})


@adapter("paddle.fluid.layers.add_position_encoding", "the `add_position_encoding` operator (no 2.x API)")
def add_position_encoding(input: Any, alpha: float, beta: float, name: Optional[str] = None) -> Any:
    """1.8 `layers.add_position_encoding`: alpha * input + beta * sinusoid position encoding."""
    return run_op("add_position_encoding", {"X": input}, {"alpha": float(alpha), "beta": float(beta)})


@adapter("paddle.fluid.layers.multi_box_head", "prior boxes (paddle.vision.ops.prior_box) and two "
                                                "paddle.static.nn.conv2d per feature map")
def multi_box_head(inputs: Any, image: Any, base_size: int, num_classes: int, aspect_ratios: Any,
                   min_ratio: Optional[int] = None, max_ratio: Optional[int] = None, min_sizes: Any = None,
                   max_sizes: Any = None, steps: Any = None, step_w: Any = None, step_h: Any = None,
                   offset: float = 0.5, variance: Sequence[float] = (0.1, 0.1, 0.2, 0.2), flip: bool = True,
                   clip: bool = False, kernel_size: int = 1, pad: int = 0, stride: int = 1,
                   name: Optional[str] = None, min_max_aspect_ratios_order: bool = False) -> Tuple[Any, ...]:
    """1.8 `layers.multi_box_head` (`layers/detection.py:2006`), a static-graph composite that 2.x removed:
    per feature map its prior boxes, then a location and a confidence conv2d (default names, in that order,
    so the parameters are named as in 1.8), laid out NHWC and flattened; all concatenated.
    Returns (mbox_locs [N, boxes, 4], mbox_confs [N, boxes, num_classes], boxes, variances)."""
    import math

    import paddle

    from runtime_shim.adapters.layers import prior_box

    if not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs should be a list or tuple.")
    layers = len(inputs)
    if layers <= 2:
        assert min_sizes is not None and max_sizes is not None
        assert len(min_sizes) == layers and len(max_sizes) == layers
    elif min_sizes is None and max_sizes is None:
        step = int(math.floor((max_ratio - min_ratio) / (layers - 2)))
        ratios = range(min_ratio, max_ratio + 1, step)
        min_sizes = [base_size * .10] + [base_size * r / 100. for r in ratios]
        max_sizes = [base_size * .20] + [base_size * (r + step) / 100. for r in ratios]
    for given, what in ((aspect_ratios, "aspect_ratios"), (step_h, "step_h"), (step_w, "step_w"), (steps, "steps")):
        if given is not None and not (isinstance(given, (list, tuple)) and len(given) == layers):
            raise ValueError(f"{what} should be list or tuple, and the length of inputs and {what} should be the same.")
    if steps is not None:
        step_w = step_h = steps

    def listed(value: Any) -> List[Any]:
        return list(value) if isinstance(value, (list, tuple)) else [value]

    locs, confs, boxes, variances = [], [], [], []
    for i, input in enumerate(inputs):
        ratio = [] if aspect_ratios is None else listed(aspect_ratios[i])
        step = [step_w[i] if step_w else 0.0, step_h[i] if step_w else 0.0]  # 1.8 tests step_w for both
        box, var = prior_box(input, image, listed(min_sizes[i]), listed(max_sizes[i]), ratio, list(variance),
                             flip, clip, step, offset, None, min_max_aspect_ratios_order)
        boxes.append(box)
        variances.append(var)
        for width, into in ((4, locs), (num_classes, confs)):
            out = paddle.static.nn.conv2d(input=input, num_filters=box.shape[2] * width, filter_size=kernel_size,
                                          padding=pad, stride=stride)
            into.append(paddle.flatten(paddle.transpose(out, perm=[0, 2, 3, 1]), start_axis=1))
    if layers == 1:
        box, var, loc, conf = boxes[0], variances[0], locs[0], confs[0]
    else:
        box = paddle.concat([paddle.reshape(b, [-1, 4]) for b in boxes])
        var = paddle.concat([paddle.reshape(v, [-1, 4]) for v in variances])
        loc = paddle.reshape(paddle.concat(locs, axis=1), [0, -1, 4])
        conf = paddle.reshape(paddle.concat(confs, axis=1), [0, -1, num_classes])
    box.stop_gradient = True
    var.stop_gradient = True
    return loc, conf, box, var
