"""1.8 functions that no 2.x API computes, written once as 2.x source that both halves run.

The upgrader writes a kernel into the module that calls it (refactors/transformers/module_definitions.py,
`define_once`: `{name}`, `{paddle}`, `{numpy}` and a standard-library module such as `{os}` filled with the
module's own names); the shim runs the same text (`compiled`), its `paddle` resolving each function the way
the shim's adapters call them (runtime_shim/static_ops.py `kernel`), or paddle itself for a kernel that
builds no operator (`plain_kernel`: it reads a program, or splits a reader). So a fix to a kernel reaches
upgraded code and legacy code alike. Each kernel's docstring says "(paddle-upgrade)", the mark that tells a
definition the upgrade wrote (refactors/cpython.py); each transformer module says what its kernel computes,
and which fixtures/legacy program checks it against 1.8.5.
"""
from __future__ import annotations

import linecache
from typing import Any, Callable

IOU_SIMILARITY = '''\
def {name}(x, y, box_normalized=True):
    """fluid.layers.iou_similarity of Paddle 1.8 (paddle-upgrade): the [N, M] intersection over union of
    the boxes x [N, 4] and y [M, 4] (xmin, ymin, xmax, ymax), one pixel more per side length where the
    boxes are not normalized; x's LoD, and no gradient, as 1.8's operator."""
    offset = 0.0 if box_normalized else 1.0
    xmin1, ymin1, xmax1, ymax1 = {paddle}.split(x, 4, axis=1)
    xmin2, ymin2, xmax2, ymax2 = {paddle}.split({paddle}.transpose(y, [1, 0]), 4, axis=0)
    area1 = (ymax1 - ymin1 + offset) * (xmax1 - xmin1 + offset)
    area2 = (ymax2 - ymin2 + offset) * (xmax2 - xmin2 + offset)
    width = {paddle}.minimum(xmax1, xmax2) - {paddle}.maximum(xmin1, xmin2) + offset
    height = {paddle}.minimum(ymax1, ymax2) - {paddle}.maximum(ymin1, ymin2) + offset
    inter = {paddle}.clip(width, min=0.0) * {paddle}.clip(height, min=0.0)
    out = inter / (area1 + area2 - inter)
    out.stop_gradient = True
    return out
'''


SIGMOID_FOCAL_LOSS = '''\
def {name}(x, label, fg_num, gamma=2.0, alpha=0.25):
    """fluid.layers.sigmoid_focal_loss of Paddle 1.8 (paddle-upgrade): with p = sigmoid(x) and
    fg = max(fg_num, 1), -alpha / fg * (1 - p)**gamma * log(p) in the column of the row's label (class c
    in column c - 1), -(1 - alpha) / fg * p**gamma * log(1 - p) in the others, 0 where the label is -1;
    log(p) floored at log(FLT_MIN) with the gradient 1 - p, as 1.8's kernels computed them."""
    tiny = 1.1754943508222875e-38  # FLT_MIN
    columns = x.shape[-1] if x.shape[-1] >= 0 else {paddle}.shape(x)[-1]
    classes = {paddle}.arange(1, columns + 1, dtype=label.dtype)
    positive = {paddle}.cast(label == classes, x.dtype)
    negative = {paddle}.cast({paddle}.logical_and(label != -1, label != classes), x.dtype)
    fg = {paddle}.cast({paddle}.maximum(fg_num, {paddle}.ones_like(fg_num)), x.dtype)
    p = {paddle}.nn.functional.sigmoid(x)
    nonnegative = {paddle}.cast(x >= 0, x.dtype)
    log_1mp = -x * nonnegative - {paddle}.log1p({paddle}.exp(x - 2 * x * nonnegative))
    log_p = log_1mp + x
    floored = {paddle}.log({paddle}.clip(p, min=tiny))
    floor = floored - log_p  # the floor's value, without a gradient (Tensor.detach fails in static programs)
    floor.stop_gradient = True
    log_p = log_p + floor
    term_pos = {paddle}.pow({paddle}.clip(1 - p, min=tiny), gamma) * log_p
    term_neg = {paddle}.pow({paddle}.clip(p, min=tiny), gamma) * log_1mp
    return -positive * term_pos * (alpha / fg) - negative * term_neg * ((1 - alpha) / fg)
'''


DENSITY_PRIOR_BOX = '''\
def {name}(input, image, densities=None, fixed_sizes=None, fixed_ratios=None,
        variance=[0.1, 0.1, 0.2, 0.2], clip=False, steps=[0.0, 0.0], offset=0.5, flatten_to_2d=False):
    """fluid.layers.density_prior_box of Paddle 1.8 (paddle-upgrade): (boxes, variances), [H, W, priors, 4]
    each: per feature cell, d x d boxes per fixed size (density d) and ratio, spaced int(mean step) // d
    apart around the cell centre, normalized by the image size, rounded as 1.8's kernel; no gradient."""
    if len(densities) != len(fixed_sizes):
        raise ValueError("densities and fixed_sizes length should be equal.")
    dtype = input.dtype

    def dim(value, axis, kind):  # one size, fixed by the program or read at run time
        if value.shape[axis] >= 0:
            return {paddle}.full([1], float(value.shape[axis]), kind)
        return {paddle}.cast({paddle}.shape(value)[axis], kind)

    def constant(values, kind):
        return {paddle}.cast({paddle}.assign({numpy}.asarray(values, "float64")), kind)

    image_h, image_w = dim(image, 2, "float64"), dim(image, 3, "float64")
    step_w, step_h = (float({numpy}.float32(step)) for step in steps)
    if step_w == 0 or step_h == 0:
        step_x, step_y = dim(image, 3, dtype) / dim(input, 3, dtype), dim(image, 2, dtype) / dim(input, 2, dtype)
    else:
        step_x, step_y = {paddle}.full([1], step_w, dtype), {paddle}.full([1], step_h, dtype)
    step_average = {paddle}.floor((step_x + step_y) * 0.5)
    density, column, row, half_w, half_h = [], [], [], [], []  # per prior: size, ratio, row, column
    roots = [{numpy}.float32({numpy}.sqrt(float(ratio))) for ratio in fixed_ratios]
    for size, count in zip(fixed_sizes, densities):
        size, count = {numpy}.float32(size), int(count)
        for root in roots:
            for i in range(count):
                for j in range(count):
                    density.append(count)
                    row.append(i)
                    column.append(j)
                    half_w.append(float({numpy}.float32(size * root)) / 2)
                    half_h.append(float({numpy}.float32(size / root)) / 2)
    shift = {paddle}.cast({paddle}.floor(step_average / constant(density, dtype)), "float64")
    spread = -{paddle}.cast(step_average, "float64") / 2 + shift / 2

    def corners(axis, step, index, half, extent):
        cells = input.shape[axis] if input.shape[axis] >= 0 else {paddle}.shape(input)[axis]
        centre = ({paddle}.cast({paddle}.arange(0, cells, dtype="int64"), dtype) + float(offset)) * step
        centre = {paddle}.reshape({paddle}.cast(centre, "float64"), [-1, 1])
        # the kernel's box centres are floats whatever the input's type
        offsets = {paddle}.cast(constant(index, "float64") * shift, "float32")
        grid = {paddle}.cast({paddle}.cast(centre + spread, "float32") + offsets, "float64")
        low = {paddle}.clip((grid - constant(half, "float64")) / extent, min=0.0)
        high = {paddle}.clip((grid + constant(half, "float64")) / extent, max=1.0)
        return {paddle}.cast(low, dtype), {paddle}.cast(high, dtype)

    x1, x2 = ({paddle}.unsqueeze(v, [0]) for v in corners(3, step_x, column, half_w, image_w))
    y1, y2 = ({paddle}.unsqueeze(v, [1]) for v in corners(2, step_y, row, half_h, image_h))
    zero_x, zero_y = x1 * 0, y1 * 0
    boxes = {paddle}.stack([x1 + zero_y, y1 + zero_x, x2 + zero_y, y2 + zero_x], axis=-1)
    if clip:
        boxes = {paddle}.clip(boxes, min=0.0, max=1.0)
    variances = boxes * 0 + constant([float(v) for v in variance], dtype)
    if flatten_to_2d:
        boxes, variances = {paddle}.reshape(boxes, [-1, 4]), {paddle}.reshape(variances, [-1, 4])
    boxes.stop_gradient = True
    variances.stop_gradient = True
    return boxes, variances
'''


BOX_DECODER_AND_ASSIGN = '''\
def {name}(prior_box, prior_box_var, target_box, box_score, box_clip):
    """fluid.layers.box_decoder_and_assign of Paddle 1.8 (paddle-upgrade): the boxes decoded per class from
    the priors [N, 4] (pixel sizes, +1), the variance tensor and the deltas [N, classes * 4], the size
    deltas cut at box_clip; and the box of the best class other than 0 (the prior where none scores
    above -1). The decoded boxes have the deltas' LoD, the assigned ones the priors'; no gradient, as 1.8's
    operator."""
    copies = []
    for value in (prior_box, prior_box_var, target_box, box_score):
        copies.append({paddle}.assign(value))
        copies[-1].stop_gradient = True
    prior, variances, deltas, scores = copies
    x1, y1, x2, y2 = {paddle}.split({paddle}.reshape(prior, [-1, 1, 4]), 4, axis=2)
    v0, v1, v2, v3 = {paddle}.split({paddle}.reshape(variances, [4]), 4)
    t0, t1, t2, t3 = {paddle}.split({paddle}.reshape(deltas, [0, -1, 4]), 4, axis=2)
    width, height = x2 - x1 + 1, y2 - y1 + 1
    centre_x, centre_y = x1 + width / 2, y1 + height / 2
    box_w = {paddle}.exp({paddle}.clip(v2 * t2, max=float(box_clip))) * width
    box_h = {paddle}.exp({paddle}.clip(v3 * t3, max=float(box_clip))) * height
    box_x = v0 * t0 * width + centre_x
    box_y = v1 * t1 * height + centre_y
    corners = [box_x - box_w / 2, box_y - box_h / 2, box_x + box_w / 2 - 1, box_y + box_h / 2 - 1]
    per_class = {paddle}.concat(corners, axis=2)
    decoded = deltas * 0 + {paddle}.reshape(per_class, [-1, target_box.shape[1]])  # the deltas' LoD
    chosen = prior
    if box_score.shape[1] != 1:
        foreground = scores[:, 1:]
        rows = {paddle}.arange(0, {paddle}.shape(scores)[0], dtype="int64")
        best = {paddle}.argmax(foreground, axis=1) + 1
        chosen = {paddle}.gather_nd(per_class, {paddle}.stack([rows, best], axis=1))  # [N, 4]
        scored = {paddle}.max(foreground, axis=1, keepdim=True) > -1.0
        chosen = {paddle}.where({paddle}.expand_as(scored, chosen), chosen, prior)
    assigned = prior * 0 + chosen  # the priors' LoD
    decoded.stop_gradient = False  # as 1.8's outputs: stopped inputs do not stop them
    assigned.stop_gradient = False
    return decoded, assigned
'''


# fluid.contrib.memory_usage (1.8.5 contrib/memory_usage_calc.py). 1.8 read a legacy program; Paddle 3
# builds PIR programs unless the legacy IR is selected (runtime_shim.enable_static(), which the upgrade
# writes), so a PIR program is read too, as what 1.8 counted: not the data and parameters, which 1.8 made
# without an operator of the program, and an in-place result as its operand (1.8 wrote the same variable).
MEMORY_USAGE = '''\
def {name}(program, batch_size):
    """fluid.contrib.memory_usage of Paddle 1.8 (paddle-upgrade): an estimate of the memory the dense
    tensors written by the operators of the program's global block take, a negative dimension counted as
    batch_size times its magnitude; (1.05 and 1.1 times the total, unit), the unit B, KB or MB. Over the
    operators the program has: where 2.x builds a layer of other operators than 1.8, their tensors count."""
    if not isinstance(program, {paddle}.static.Program):
        raise TypeError("Calculating Memory Usage requires Program as its Parameter."
                        "But you passed in %s" % (type(program)))
    if batch_size <= 0:
        raise ValueError("The batch size need to be positive.")
    sizes = {{"FLOAT16": 2, "FLOAT32": 4, "FLOAT64": 8, "INT16": 2, "INT32": 4, "INT64": 8, "BOOL": 1, "UINT8": 1}}
    sizes.update(FP16=2, FP32=4, FP64=8)  # a dtype's name: paddle.float32 in 3.x, VarType.FP32 in 2.x
    block = program.global_block()

    def legacy_tensors():  # 1.8's own reading: each variable an operator writes, once
        seen = {{"@EMPTY@"}}
        for op in block.ops:
            for var_name in op.output_arg_names:
                if var_name not in seen:
                    seen.add(var_name)
                    var = block.vars[var_name]
                    if str(var.type).rpartition(".")[2] in ("LOD_TENSOR", "DENSE_TENSOR"):  # (3.x's name)
                        yield var_name, var.shape, var.dtype

    def pir_tensors():  # each result once; an in-place one is the tensor of its operand
        core = {paddle}.framework.core  # compiled: its pir module is Paddle 3's (tests/test_memory_usage.py)
        inplace_of = core.pir.get_op_inplace_info  # an operator's {{result index: operand index}}
        seen, tensor_of = set(), {{}}
        for op in block.ops:
            if op.name() in ("pd_op.data", "builtin.parameter"):  # no operator of 1.8's program
                continue
            inplace = inplace_of(op)
            for index, value in enumerate(op.results()):
                if not value.initialized():  # an optional output the operator does not write
                    continue
                key = value.id
                if index in inplace:
                    operand = op.operand_source(inplace[index]).id
                    key = tensor_of[key] = tensor_of.get(operand, operand)
                if key not in seen:
                    seen.add(key)
                    if value.is_dense_tensor_type():
                        yield value.name if value.has_name else op.name(), value.shape, value.dtype

    total = 0.0
    for var_name, shape, dtype in legacy_tensors() if hasattr(block, "vars") else pir_tensors():
        count, negative = 1, 0
        for dim in shape:
            if dim < 0:
                if negative:
                    raise ValueError("Var %s has more than one negative dim." % (var_name))
                negative += 1
                count *= batch_size * (-dim)
            else:
                count *= dim
        total += count * sizes[str(dtype).rpartition(".")[2].upper()]
    unit = "B"
    if total > 1024:
        total, unit = total / 1024, "KB"
        if total > 1024:
            total, unit = total / 1024, "MB"
    return total * 1.05, total * 1.1, unit
'''


# contrib.reader.distributed_batch_reader (1.8.5 contrib/reader/distributed_reader.py).
DISTRIBUTED_BATCHES = '''\
def {name}(batch_reader):
    """1.8's fluid.contrib.reader.distributed_batch_reader (paddle-upgrade): of each PADDLE_TRAINERS_NUM
    batches in a row, this trainer (PADDLE_TRAINER_ID) reads one; an incomplete last run is dropped."""
    trainers = int({os}.environ.get("PADDLE_TRAINERS_NUM", 1))
    trainer = int({os}.environ.get("PADDLE_TRAINER_ID", 0))
    assert trainer < trainers

    def batches():
        if trainers > 1:  # 1.8's log line
            print("start data reader (trainers_num: {{}}, trainer_id: {{}})".format(trainers, trainer))
        for run in zip(*[iter(batch_reader())] * trainers):
            yield run[trainer]
    return batches
'''


RNN_CELL_BASE = '''\
class {name}({paddle}.nn.RNNCellBase):
    """fluid.layers.RNNCell of Paddle 1.8 (paddle-upgrade): a cell computes in `call`, and its initial
    states are zeros of `state_shape` (and `state_dtype`, else float32) for the batch of `batch_ref`."""

    def forward(self, inputs, states, **kwargs):
        return self.call(inputs, states, **kwargs)

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0, batch_dim_idx=0):
        while isinstance(batch_ref, (list, tuple)):
            batch_ref = batch_ref[0]
        shapes = self.state_shape if shape is None else shape
        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                dtype = "float32"

        def is_shape(value):
            return isinstance(value, (list, tuple)) and all(isinstance(d, int) for d in value)

        def leaves(value):
            return [value] if not isinstance(value, (list, tuple)) else [x for v in value for x in leaves(v)]

        if len(leaves(dtype)) == 1:
            dtype = leaves(dtype)[0]

        def fill(shape, dtype):
            if not is_shape(shape):
                dtypes = dtype if isinstance(dtype, (list, tuple)) else [dtype] * len(shape)
                return type(shape)(fill(s, d) for s, d in zip(shape, dtypes))
            shape = list(shape[1:]) if shape and shape[0] == -1 else list(shape)
            batch = {paddle}.shape(batch_ref)[batch_dim_idx]
            return {paddle}.full([batch] + shape, init_value, dtype)

        return fill(shapes, dtype)
'''


# A parameter of 1.8's LSTMCell and GRUCell: their BasicLSTMUnit/BasicGRUUnit (contrib/layers/rnn_impl.py) made
# it on the first call through a Layer helper, which took the attribute's name, else generated
# <unit>.w_N (.b_N for a bias) with N counting in the unit; a checkpoint of 1.8 loads by these names.
RNN_UNIT_PARAMETER = '''\
def {name}(unit, attr, shape, dtype, is_bias=False, tail=""):
    """A parameter of 1.8's LSTMCell or GRUCell (paddle-upgrade), named as 1.8's BasicLSTMUnit and BasicGRUUnit
    named it: its attribute's name followed by `tail` (GRU's "_gate"/"_candidate"), else unit.w_N (unit.b_N
    for a bias)."""
    if attr is None or attr is True or isinstance(attr, str):
        attr = {paddle}.ParamAttr(name=attr if isinstance(attr, str) else None)
    else:
        attr = {copy}.copy(attr)
    if attr.name is None:
        attr.name = {paddle}.utils.unique_name.generate(unit + (".b" if is_bias else ".w"))
    else:
        attr.name += tail
    return {paddle}.static.create_parameter(shape, dtype, attr=attr, is_bias=is_bias)
'''


# `{base}`: the name the module's RNN_CELL_BASE was written under (the shim passes its own class);
# `{parameter}`: the name RNN_UNIT_PARAMETER was written under.
LSTM_CELL_CLASS = '''\
class {name}({base}):
    """fluid.layers.LSTMCell of Paddle 1.8 (paddle-upgrade): input size read on the first call, weight
    [input + hidden, 4 * hidden] and bias named as 1.8's BasicLSTMUnit named them, gates i, j, f, o, and
    forget_bias added to f; sigmoid and tanh whatever gate_activation and activation say, as 1.8's unit
    computed."""

    def __init__(self, hidden_size, param_attr=None, bias_attr=None, gate_activation=None, activation=None,
                 forget_bias=1.0, dtype="float32", name="LSTMCell"):
        super().__init__()
        self.hidden_size = hidden_size
        self._unit = {paddle}.utils.unique_name.generate(name + "/BasicLSTMUnit")
        self._attrs = (param_attr, bias_attr)
        self._forget_bias = forget_bias
        self._cell_dtype = dtype
        self._weight = None

    def call(self, inputs, states):
        pre_hidden, pre_cell = states
        if self._weight is None:
            rows, hidden, dtype = inputs.shape[-1] + self.hidden_size, self.hidden_size, self._cell_dtype
            self._weight = {parameter}(self._unit, self._attrs[0], [rows, 4 * hidden], dtype)
            self._bias = {parameter}(self._unit, self._attrs[1], [4 * hidden], dtype, True)
        gates = {paddle}.matmul({paddle}.concat([inputs, pre_hidden], 1), self._weight) + self._bias
        i, j, f, o = {paddle}.split(gates, 4, axis=-1)
        sigmoid = {paddle}.nn.functional.sigmoid
        new_cell = pre_cell * sigmoid(f + self._forget_bias) + sigmoid(i) * {paddle}.tanh(j)
        new_hidden = {paddle}.tanh(new_cell) * sigmoid(o)
        return new_hidden, [new_hidden, new_cell]

    @property
    def state_shape(self):
        return [[self.hidden_size], [self.hidden_size]]
'''


# `{base}` and `{parameter}` as for LSTM_CELL_CLASS.
GRU_CELL_CLASS = '''\
class {name}({base}):
    """fluid.layers.GRUCell of Paddle 1.8 (paddle-upgrade): input size read on the first call, a gate weight
    [input + hidden, 2 * hidden] (r, then u), a candidate weight [input + hidden, hidden] and their biases,
    named as 1.8's BasicGRUUnit named them; new hidden = u * hidden + (1 - u) * candidate."""

    def __init__(self, hidden_size, param_attr=None, bias_attr=None, gate_activation=None, activation=None,
                 dtype="float32", name="GRUCell"):
        super().__init__()
        self.hidden_size = hidden_size
        self._unit = {paddle}.utils.unique_name.generate(name + "/BasicGRUUnit")
        self._attrs = (param_attr, bias_attr)
        self._gate_activation = gate_activation or {paddle}.nn.functional.sigmoid
        self._activation = activation or {paddle}.tanh
        self._cell_dtype = dtype
        self._gate_weight = None

    def call(self, inputs, states):
        if self._gate_weight is None:  # (1.8's order: both weights, then both biases)
            rows, hidden, dtype = inputs.shape[-1] + self.hidden_size, self.hidden_size, self._cell_dtype
            weight, bias = self._attrs
            self._gate_weight = {parameter}(self._unit, weight, [rows, 2 * hidden], dtype, tail="_gate")
            self._candidate_weight = {parameter}(self._unit, weight, [rows, hidden], dtype, tail="_candidate")
            self._gate_bias = {parameter}(self._unit, bias, [2 * hidden], dtype, True, "_gate")
            self._candidate_bias = {parameter}(self._unit, bias, [hidden], dtype, True, "_candidate")
        gates = {paddle}.matmul({paddle}.concat([inputs, states], 1), self._gate_weight) + self._gate_bias
        r, u = {paddle}.split(self._gate_activation(gates), 2, axis=1)
        candidate = {paddle}.matmul({paddle}.concat([inputs, r * states], 1), self._candidate_weight)
        candidate = self._activation(candidate + self._candidate_bias)
        new_hidden = u * states + (1 - u) * candidate
        return new_hidden, new_hidden

    @property
    def state_shape(self):
        return [self.hidden_size]
'''


RESIZE_NEAREST_CORNERS = '''\
def {name}(input, out_shape=None, scale=None, actual_shape=None, data_format="NCHW"):
    """fluid.layers.resize_nearest of Paddle 1.8 with align_corners=True (paddle-upgrade): output row k reads
    input row int(ratio * k + 0.5), ratio = (in - 1) / (out - 1) in float, and the same for columns; the
    output size is actual_shape, else out_shape, else int(in * scale) in float, as 1.8's operator chose it."""
    h_axis, w_axis = (2, 3) if data_format == "NCHW" else (1, 2)

    def size(axis):  # fixed by the program, or read at run time
        return input.shape[axis] if input.shape[axis] >= 0 else {paddle}.shape(input)[axis]

    def as_float(n):
        if isinstance(n, int):
            return {paddle}.full([1], float(n), "float32")
        return {paddle}.cast({paddle}.reshape(n, [1]), "float32")

    in_h, in_w = size(h_axis), size(w_axis)
    if actual_shape is not None:
        out_h, out_w = actual_shape[0], actual_shape[1]
    elif out_shape is not None:
        out_h, out_w = out_shape[0], out_shape[1]
    else:
        number = isinstance(scale, (int, float, {numpy}.number))
        factor = float(scale) if number else {paddle}.cast({paddle}.reshape(scale, [1]), "float32")
        out_h, out_w = (int({numpy}.float32(n) * {numpy}.float32(scale)) if number and isinstance(n, int) else
                        {paddle}.cast({paddle}.floor(as_float(n) * factor), "int64") for n in (in_h, in_w))

    def rows(n_in, n_out):
        steps = {paddle}.arange(0, n_out, dtype="int64")
        ratio = (as_float(n_in) - 1) / {paddle}.maximum(as_float(n_out) - 1, {paddle}.ones([1], "float32"))
        picked = {paddle}.cast({paddle}.cast(steps, "float32") * ratio, "float64") + 0.5
        return {paddle}.cast({paddle}.floor(picked), "int64")

    out = {paddle}.index_select(input, rows(in_h, out_h), axis=h_axis)
    return {paddle}.index_select(out, rows(in_w, out_w), axis=w_axis)
'''

IMG_CONV_GROUP = '''\
def {name}(
        input, conv_num_filter, pool_size, conv_padding=1, conv_filter_size=3, conv_act=None, param_attr=None,
        conv_with_batchnorm=False, conv_batchnorm_drop_rate=0.0, pool_stride=1, pool_type="max", use_cudnn=True):
    """fluid.nets.img_conv_group of Paddle 1.8 (paddle-upgrade): a conv2d for each of conv_num_filter
    (padding, filter size, param_attr, batch norm and drop rate given once or one per convolution), with
    conv_act, or a batch_norm with conv_act and a dropout where the rate is not 0; then one pooling of
    pool_size and pool_stride without padding. Static programs only, as 1.8's."""
    assert isinstance(conv_num_filter, (list, tuple))
    if pool_type not in ("max", "avg"):
        raise ValueError("Unknown Attr(pool_type): '%s'. It can only be 'max' or 'avg'." % pool_type)

    def each(value):  # 1.8's rule: one value for all, or one per convolution (anything with a len)
        if not hasattr(value, "__len__"):
            return [value] * len(conv_num_filter)
        assert len(value) == len(conv_num_filter)
        return value

    padding, filter_size, attr = each(conv_padding), each(conv_filter_size), each(param_attr)
    batchnorm, drop_rate = each(conv_with_batchnorm), each(conv_batchnorm_drop_rate)
    out = input
    for i, num_filters in enumerate(conv_num_filter):
        act = None if batchnorm[i] else conv_act
        out = {paddle}.static.nn.conv2d(
            out, num_filters, filter_size[i], padding=padding[i], param_attr=attr[i], act=act, use_cudnn=use_cudnn)
        if batchnorm[i]:
            out = {paddle}.static.nn.batch_norm(out, act=conv_act)
            if abs(drop_rate[i]) > 1e-5:
                out = {paddle}.nn.functional.dropout(out, drop_rate[i], mode="downscale_in_infer")
    if pool_type == "max":
        return {paddle}.nn.functional.max_pool2d(out, pool_size, stride=pool_stride)
    return {paddle}.nn.functional.avg_pool2d(out, pool_size, stride=pool_stride)
'''


# fluid.profiler.reset_profiler where the module does not show the profiler it resets (1.8.5 profiler.py:107).
PROFILER_RESET = '''\
def {name}():
    """1.8's fluid.profiler.reset_profiler (paddle-upgrade): the running paddle.profiler.Profiler is stopped
    and started again, so that its summary holds only the events after this call; nothing when none runs.
    1.8's profiler was one for the process; a Profiler is an object of the code that made it, found here
    among the live objects (Paddle runs one at a time)."""
    classes = [{paddle}.profiler.Profiler]
    for cls in classes:
        classes.extend(cls.__subclasses__())
    for prof in {gc}.get_referrers(*classes):  # (an instance refers to its class)
        if isinstance(prof, {paddle}.profiler.Profiler) and prof.record_event is not None:  # started, not stopped
            prof.stop()
            prof.start()
'''


# `with fluid.profiler.profiler(state, sorted_key, profile_path):` whose state or sorted_key is known at run time
# only (1.8.5 profiler.py:129, 196, 253).
PROFILER_BLOCK = '''\
@{contextlib}.contextmanager
def {name}(state, sorted_key=None, profile_path="/tmp/profile"):
    """1.8's `with fluid.profiler.profiler(state, sorted_key, profile_path):` (paddle-upgrade) on a
    paddle.profiler.Profiler, which the block gets. As in 1.8, the state is checked before the block, the
    key after it, and nothing is reported when the block raises. The summary is sorted by sorted_key's
    2.x key; by CPU total time for None (1.8: the order of first end) and 'calls' (2.x has no count key)."""
    if state not in ("CPU", "GPU", "All"):
        raise ValueError("The state must be 'CPU' or 'GPU' or 'All'.")
    cpu, gpu = {paddle}.profiler.ProfilerTarget.CPU, {paddle}.profiler.ProfilerTarget.GPU
    targets = {{"CPU": [cpu], "GPU": [cpu, gpu], "All": None}}[state]  # 1.8's GPU state lists host events too
    prof = {paddle}.profiler.Profiler(targets=targets, on_trace_ready={paddle}.profiler.export_protobuf(profile_path))
    prof.start()
    yield prof
    keys = {{None: "CPUTotal", "default": "CPUTotal", "calls": "CPUTotal", "total": "CPUTotal", "max": "CPUMax",
            "min": "CPUMin", "ave": "CPUAvg"}}
    if sorted_key not in keys:  # (before the stop: 1.8's profiler then ran on)
        raise ValueError("The sorted_key must be None or in 'calls', 'total', 'max', 'min' and 'ave'")
    prof.stop()
    prof.summary(sorted_by=getattr({paddle}.profiler.SortedKeys, keys[sorted_key]))
'''


LEARNING_RATE_DECAY = '''\
class {name}({paddle}.optimizer.lr.LRScheduler):
    """fluid.dygraph.LearningRateDecay of Paddle 1.8 (paddle-upgrade): a subclass's `step()` is the rate at
    `step_num`; calling the object takes that rate, as a [1] tensor of `dtype`, and advances `step_num` by
    `step_size`, as each 1.8 `minimize` did. A 2.x optimizer calls it once per update and takes a number; its
    `get_lr()` calls it too, and is 1.8's `current_step_lr()`: the rate the last update took, else `step()`,
    advancing nothing."""

    _taken = None  # the rate the last update took, as 1.8's [1] variable of `dtype` held it
    _var_name = None
    verbose = False

    def __init__(self, begin=0, step=1, dtype="float32"):
        self.step_num = begin
        self.step_size = step
        self.dtype = dtype

    def __call__(self):
        caller, optimizer = {sys}._getframe(1), {paddle}.optimizer.Optimizer
        if caller.f_code is optimizer.get_lr.__code__:
            return self._taken if self._taken is not None else self._number(self.step())
        lr = self.step()
        lr = lr if isinstance(lr, {paddle}.Tensor) else self.create_lr_var(lr)
        self._taken = self._number(lr)
        self.step_num += self.step_size
        return self._taken if caller.f_globals.get("__name__") == optimizer.__module__ else lr

    @staticmethod
    def _number(lr):
        return float(lr.numpy().reshape(-1)[0]) if isinstance(lr, {paddle}.Tensor) else float(lr)

    def create_lr_var(self, lr):
        return {paddle}.full([1], float(lr), self.dtype)

    def step(self):
        raise NotImplementedError()

    def state_keys(self):
        self._state_keys()

    def _state_keys(self):
        self.keys = ["step_num"]
'''


# 1.8's dygraph schedules (`dygraph/learning_rate_scheduler.py`) over the written LEARNING_RATE_DECAY, whose
# name fills `{base}`: each `step()` is 1.8's formula at `step_num`, in Python numbers (1.8 computed it in
# float32 operators; the base hands the rate over as 1.8's float32 variable). Keyed by the 1.8 class name.
_RATE_DECAY_INIT = """
    def __init__(self, learning_rate, decay_steps, decay_rate, staircase=False, begin=0, step=1,
                 dtype="float32"):
        super().__init__(begin, step, dtype)
        self.learning_rate = learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
"""
_RATE_DECAY_DIV = """
    def _div(self):
        div = self.step_num / self.decay_steps
        return {math}.floor(div) if self.staircase else div
"""
DYGRAPH_DECAYS = {
    "PiecewiseDecay": '''\
class {name}({base}):
    """fluid.dygraph.PiecewiseDecay of Paddle 1.8 (paddle-upgrade): values[i] before boundaries[i], the last
    value after the last boundary, at step_num from `begin`, advanced by `step` on each optimizer update."""

    def __init__(self, boundaries, values, begin, step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        self.boundaries = boundaries
        self.values = values

    def step(self):
        for i in range(len(self.boundaries)):
            if self.step_num < self.boundaries[i]:
                return float(self.values[i])
        return float(self.values[len(self.values) - 1])
''',
    "NaturalExpDecay": '''\
class {name}({base}):
    """fluid.dygraph.NaturalExpDecay of Paddle 1.8 (paddle-upgrade): learning_rate * exp(-decay_rate *
    step_num / decay_steps), the ratio floored when `staircase`, advanced on each optimizer update."""
''' + _RATE_DECAY_INIT + _RATE_DECAY_DIV + '''
    def step(self):
        return self.learning_rate * {math}.exp(-1 * self.decay_rate * self._div())
''',
    "ExponentialDecay": '''\
class {name}({base}):
    """fluid.dygraph.ExponentialDecay of Paddle 1.8 (paddle-upgrade): learning_rate * decay_rate **
    (step_num / decay_steps), the ratio floored when `staircase`, advanced on each optimizer update."""
''' + _RATE_DECAY_INIT + _RATE_DECAY_DIV + '''
    def step(self):
        return self.learning_rate * self.decay_rate ** self._div()
''',
    "InverseTimeDecay": '''\
class {name}({base}):
    """fluid.dygraph.InverseTimeDecay of Paddle 1.8 (paddle-upgrade): learning_rate / (1 + decay_rate *
    step_num / decay_steps), the ratio floored when `staircase`, advanced on each optimizer update."""
''' + _RATE_DECAY_INIT + _RATE_DECAY_DIV + '''
    def step(self):
        return self.learning_rate / (1 + self.decay_rate * self._div())
''',
    "PolynomialDecay": '''\
class {name}({base}):
    """fluid.dygraph.PolynomialDecay of Paddle 1.8 (paddle-upgrade): (learning_rate - end_learning_rate) *
    (1 - step / decay_steps) ** power + end_learning_rate, the step capped at decay_steps, or with `cycle` the
    decay steps stretched to the next multiple; advanced on each optimizer update."""

    def __init__(self, learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False, begin=0,
                 step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        self.learning_rate = learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle

    def step(self):
        step_num, decay_steps = self.step_num, self.decay_steps
        if self.cycle:
            div = 1.0 if step_num == 0 else {math}.ceil(step_num / float(decay_steps))
            decay_steps = decay_steps * div
        else:
            step_num = min(step_num, decay_steps)
        return ((self.learning_rate - self.end_learning_rate) * (1 - step_num / decay_steps) ** self.power
                + self.end_learning_rate)
''',
    "CosineDecay": '''\
class {name}({base}):
    """fluid.dygraph.CosineDecay of Paddle 1.8 (paddle-upgrade): learning_rate * 0.5 * (cos(epoch * pi / epochs)
    + 1), epoch = floor(step_num / step_each_epoch), advanced on each optimizer update."""

    def __init__(self, learning_rate, step_each_epoch, epochs, begin=0, step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        self.learning_rate = learning_rate
        self.step_each_epoch = step_each_epoch
        self.epochs = epochs

    def step(self):
        epoch = {math}.floor(self.step_num / self.step_each_epoch)
        return self.learning_rate * 0.5 * ({math}.cos(epoch * {math}.pi / self.epochs) + 1)
''',
    "NoamDecay": '''\
class {name}({base}):
    """fluid.dygraph.NoamDecay of Paddle 1.8 (paddle-upgrade): learning_rate * d_model ** -0.5 *
    min(step_num ** -0.5, warmup_steps ** -1.5 * step_num), from `begin` 1, advanced on each optimizer update."""

    def __init__(self, d_model, warmup_steps, begin=1, step=1, dtype="float32", learning_rate=1.0):
        super().__init__(begin, step, dtype)
        self.learning_rate = learning_rate
        self.d_model = d_model
        self.warmup_steps = warmup_steps

    def step(self):
        a = self.step_num ** -0.5
        b = self.warmup_steps ** -1.5 * self.step_num
        return self.learning_rate * self.d_model ** -0.5 * min(a, b)
''',
    "LinearLrWarmup": '''\
class {name}({base}):
    """fluid.dygraph.LinearLrWarmup of Paddle 1.8.5 (paddle-upgrade): (end_lr - start_lr) / warmup_steps *
    step_num before warmup_steps (1.8.5 adds no start_lr), then learning_rate; a 1.8 schedule given as
    learning_rate is advanced on every update, warm-up included, as 1.8.5 advanced it."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, begin=1, step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        if not isinstance(learning_rate, (int, float, {base})):
            raise TypeError("the type of learning_rate should be [int, float or LearningRateDecay], the "
                            "current type is {{}}".format(learning_rate))
        if not end_lr > start_lr:
            raise AssertionError("end_lr {{}} must be greater than start_lr {{}}".format(end_lr, start_lr))
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps
        self.lr_ratio_before_warmup = (float(end_lr) - float(start_lr)) / float(warmup_steps)

    def step(self):
        base_lr = self.learning_rate
        if isinstance(base_lr, {base}):
            base_lr = base_lr()
        if self.step_num < self.warmup_steps:
            return self.lr_ratio_before_warmup * self.step_num
        return base_lr
''',
}


def compiled(template: str, name: str, paddle: Any, numpy: Any, **stdlib: Any) -> Callable[..., Any]:
    """The function `template` defines, named `name`, run with `paddle` and `numpy` as the given objects, and
    each standard-library module it names (`{os}`) as given by keyword.

    Its source is registered with linecache, so a traceback through it shows the kernel's lines.
    """
    source = template.format(name=name, paddle="paddle", numpy="numpy", **{module: module for module in stdlib})
    filename = f"<paddle-upgrade kernel {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"paddle": paddle, "numpy": numpy, **stdlib}
    exec(compile(source, filename, "exec"), namespace)  # (our own text, never the user's)
    return namespace[name]
