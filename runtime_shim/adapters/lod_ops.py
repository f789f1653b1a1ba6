"""1.8 layers of sequence labelling and decoding whose operators Paddle 3.3.1 still registers.

`crf_decoding`, `chunk_eval`, `warpctc`, `ctc_greedy_decoder`, `im2sequence`, `beam_search` and
`beam_search_decode` each appended one or two operators (1.8.5 `layers/nn.py`, `loss.py`, `rnn.py`).
3.3.1 registers every one of them (`crf_decoding`, `chunk_eval`, `warpctc`, `ctc_align`, `im2sequence`,
`beam_search`, `beam_search_decode`) with the 1.8 inputs, outputs and attributes and the 1.8 kernels,
which read LoD: each adapter makes 1.8's checks, then appends them in the legacy-IR program being
built. 2.x has no function for any of them (`paddle.nn.functional.ctc_loss` takes padded input and
another reduction; `paddle.text.viterbi_decode` another transition layout).
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

from runtime_shim.adapters import adapter
from runtime_shim.adapters.sequence_lod import require_legacy_static
from runtime_shim.static_ops import append_op

# For the layers 1.8 did not refuse in dygraph: the shim appends their operators to programs only.
_PROGRAMS_ONLY = "the runtime shim serves this 1.8 layer in static programs only"

Pair = Union[int, Sequence[int]]


def _declare(variables: Any, dtypes: Sequence[str]) -> Any:
    """Give the outputs the dtypes 1.8 declared. 3.3.1's compile-time inference of some of these ops
    (`crf_decoding`, `chunk_eval`, ...) copies the input's dtype, though their kernels write the 1.8 one."""
    from paddle.base.framework import convert_np_dtype_to_proto_type

    for variable, dtype in zip(variables if isinstance(variables, tuple) else (variables,), dtypes):
        variable.desc.set_dtype(convert_np_dtype_to_proto_type(dtype))
    return variables


def _pair(value: Pair) -> List[int]:
    return [value, value] if isinstance(value, int) else list(value)


@adapter("paddle.fluid.layers.crf_decoding",
         "paddle.text.viterbi_decode (Paddle >= 2.2; other transition layout: no start/stop rows)")
def crf_decoding(input: Any, param_attr: Any, label: Any = None, length: Any = None) -> Any:
    """1.8 `layers.crf_decoding` (`layers/nn.py:2194`, op `crf_decoding`): the Viterbi path of each
    sequence under the transition parameter named `param_attr.name` (`[tags + 2, tags]`: start row,
    stop row, then the transitions), which must exist in the program already (1.8 looked it up; it is
    usually `linear_chain_crf`'s). With `label`, the path marks 1 where it equals the label.
    """
    import paddle
    from paddle.base.data_feeder import check_variable_and_dtype
    from paddle.base.layer_helper import LayerHelper

    require_legacy_static("paddle.fluid.layers.crf_decoding", _PROGRAMS_ONLY)
    check_variable_and_dtype(input, "input", ["float32", "float64"], "crf_decoding")
    helper = LayerHelper("crf_decoding")
    transition = helper.get_parameter(param_attr.name)
    path = append_op("crf_decoding", {"Emission": input, "Transition": transition, "Label": label,
                                      "Length": length},
                     outputs=("ViterbiPath",), dtype=paddle.int64, helper=helper)
    return _declare(path, ["int64"])


@adapter("paddle.fluid.layers.chunk_eval", "a chunk counter over padded tag sequences (no 2.x API)")
def chunk_eval(input: Any, label: Any, chunk_scheme: str, num_chunk_types: int,
               excluded_chunk_types: Optional[Sequence[int]] = None,
               seq_length: Any = None) -> Tuple[Any, ...]:
    """1.8 `layers.chunk_eval` (`layers/nn.py:2394`, op `chunk_eval`): precision, recall, F1 (float32)
    and the numbers of inferred, labelled and correct chunks (int64) of IOB/IOE/IOBES/plain tags, over
    the sequences of the LoD (or the padded rows with `seq_length`)."""
    import paddle
    from paddle.base.data_feeder import check_variable_and_dtype

    require_legacy_static("paddle.fluid.layers.chunk_eval", _PROGRAMS_ONLY)
    check_variable_and_dtype(input, "input", ["int64"], "chunk_eval")
    check_variable_and_dtype(label, "label", ["int64"], "chunk_eval")
    dtypes = ["float32"] * 3 + ["int64"] * 3
    return _declare(append_op("chunk_eval", {"Inference": input, "Label": label, "SeqLength": seq_length},
                              {"num_chunk_types": num_chunk_types, "chunk_scheme": chunk_scheme,
                               "excluded_chunk_types": list(excluded_chunk_types or [])},
                              outputs=("Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks",
                                       "NumCorrectChunks"),
                              dtype=[getattr(paddle, name) for name in dtypes]), dtypes)


@adapter("paddle.fluid.layers.warpctc",
         "paddle.nn.functional.ctc_loss on padded input (reduction='none', other input layout)")
def warpctc(input: Any, label: Any, blank: int = 0, norm_by_times: bool = False, input_length: Any = None,
            label_length: Any = None) -> Any:
    """1.8 `layers.warpctc` (`layers/loss.py:497`, op `warpctc`): the CTC loss `[sequences, 1]` of
    unnormalised logits, LoD sequences (or padded `[T, N, C]` with both lengths) against int32 labels."""
    from paddle.base.data_feeder import check_variable_and_dtype

    require_legacy_static("paddle.fluid.layers.warpctc", _PROGRAMS_ONLY)
    check_variable_and_dtype(input, "input", ["float32"], "warpctc")
    check_variable_and_dtype(label, "label", ["int32"], "warpctc")
    inputs = {"Logits": input, "Label": label}
    if input_length is not None and label_length is not None:
        check_variable_and_dtype(input_length, "LogitsLength", ["int64"], "warpctc")
        check_variable_and_dtype(label_length, "LabelLength", ["int64"], "warpctc")
        inputs.update(LogitsLength=input_length, LabelLength=label_length)
    loss, _ = append_op("warpctc", inputs, {"blank": blank, "norm_by_times": norm_by_times},
                        outputs=("Loss", "WarpCTCGrad"))
    return loss


@adapter("paddle.fluid.layers.ctc_greedy_decoder",
         "paddle.argmax over classes, then drop repeats and blanks per sequence")
def ctc_greedy_decoder(input: Any, blank: int, input_length: Any = None, padding_value: int = 0,
                       name: Optional[str] = None) -> Any:
    """1.8 `layers.ctc_greedy_decoder` (`layers/nn.py:6549`): `topk(input, 1)` then op `ctc_align`
    (repeats merged, blanks dropped). A LoD input gives the LoD result; a padded `[N, T, C]` input with
    `input_length` gives `(padded ids, lengths)`, padded with `padding_value`."""
    import paddle

    require_legacy_static("paddle.fluid.layers.ctc_greedy_decoder", _PROGRAMS_ONLY)
    _, indices = append_op("top_k", {"X": input}, {"k": 1}, outputs=("Out", "Indices"),
                           dtype=[input.dtype, paddle.int64])
    if input_length is None:
        return append_op("ctc_align", {"Input": indices}, {"merge_repeated": True, "blank": blank},
                         outputs=("Output",), dtype=paddle.int64)
    ids, _ = append_op("squeeze2", {"X": indices}, {"axes": [2]}, outputs=("Out", "XShape"))
    return append_op("ctc_align", {"Input": ids, "InputLength": input_length},
                     {"merge_repeated": True, "blank": blank, "padding_value": padding_value},
                     outputs=("Output", "OutputLength"), dtype=paddle.int64)


@adapter("paddle.fluid.layers.im2sequence", "paddle.nn.functional.unfold(input, kernel_sizes, strides, paddings)")
def im2sequence(input: Any, filter_size: Pair = 1, stride: Pair = 1, padding: Pair = 0,
                input_image_size: Any = None, out_stride: Pair = 1, name: Optional[str] = None) -> Any:
    """1.8 `layers.im2sequence` (`layers/nn.py:6797`, op `im2sequence`): every `filter_size` patch of
    each image as one step, `[N * patches, C * kh * kw]`, one sequence per image. Paddings of two
    values mean (up, left) and are repeated for (down, right)."""
    from paddle.base.data_feeder import check_variable_and_dtype

    require_legacy_static("paddle.fluid.layers.im2sequence")
    check_variable_and_dtype(input, "input", ["float32"], "im2sequence")
    paddings = _pair(padding)
    if len(paddings) == 2:
        paddings += paddings
    attrs = {"kernels": _pair(filter_size), "strides": _pair(stride), "paddings": paddings}
    inputs = {"X": input}
    if input_image_size is not None:
        inputs["Y"] = input_image_size
        attrs["out_stride"] = _pair(out_stride)
    out = append_op("im2sequence", inputs, attrs)
    out.desc.set_lod_level(1)  # one sequence per image, as 1.8 declared it
    return out


@adapter("paddle.fluid.layers.beam_search", "paddle.nn.BeamSearchDecoder with paddle.nn.dynamic_decode")
def beam_search(pre_ids: Any, pre_scores: Any, ids: Any, scores: Any, beam_size: int, end_id: int,
                level: int = 0, is_accumulated: bool = True, name: Optional[str] = None,
                return_parent_idx: bool = False) -> Tuple[Any, ...]:
    """1.8 `layers.beam_search` (`layers/rnn.py:2826`, op `beam_search`): one step of beam search over
    the candidates of each prefix (LoD of level `level`); returns the selected ids and scores, with the
    LoD that maps them to their source, and with `return_parent_idx` the int32 index of each parent."""
    import paddle
    from paddle.base.data_feeder import check_type, check_variable_and_dtype
    from paddle.base.framework import Variable

    require_legacy_static("paddle.fluid.layers.beam_search", _PROGRAMS_ONLY)
    check_variable_and_dtype(pre_ids, "pre_ids", ["int64"], "beam_search")
    check_variable_and_dtype(pre_scores, "pre_scores", ["float32", "float64"], "beam_search")
    check_type(ids, "ids", (Variable, type(None)), "beam_search")
    check_variable_and_dtype(scores, "scores", ["float32", "float64"], "beam_search")
    selected_ids, selected_scores, parent_idx = append_op(
        "beam_search", {"pre_ids": pre_ids, "pre_scores": pre_scores, "ids": ids, "scores": scores},
        {"level": level, "beam_size": beam_size, "end_id": end_id, "is_accumulated": is_accumulated},
        outputs=("selected_ids", "selected_scores", "parent_idx"),
        dtype=[pre_ids.dtype, pre_scores.dtype, paddle.int32])
    _declare(parent_idx, ["int32"])
    if return_parent_idx:
        return selected_ids, selected_scores, parent_idx
    return selected_ids, selected_scores


@adapter("paddle.fluid.layers.beam_search_decode", "paddle.nn.BeamSearchDecoder with paddle.nn.dynamic_decode")
def beam_search_decode(ids: Any, scores: Any, beam_size: int, end_id: int, name: Optional[str] = None) -> Any:
    """1.8 `layers.beam_search_decode` (`layers/rnn.py:2983`, op `beam_search_decode`): back-traces the
    arrays of selected ids and scores of every step into full sentences, a 2-level LoD tensor each."""
    from paddle.base.data_feeder import check_variable_and_dtype

    require_legacy_static("paddle.fluid.layers.beam_search_decode", _PROGRAMS_ONLY)
    check_variable_and_dtype(ids, "ids", ["int64"], "beam_search_encode")
    check_variable_and_dtype(scores, "scores", ["float32"], "beam_search_encode")
    return append_op("beam_search_decode", {"Ids": ids, "Scores": scores}, {"beam_size": beam_size, "end_id": end_id},
                     outputs=("SentenceIds", "SentenceScores"), dtype=[ids.dtype, scores.dtype])
