"""`fluid.save_dygraph` / `fluid.load_dygraph` with the 1.8 file names, format and return value.

1.8 (`dygraph/checkpoint.py:33`, `:96`; api_mapping/SEMANTICS.md 32): the suffix is chosen from the first value
(`.pdparams` for parameters, else `.pdopt`), missing directories are created, the file is a pickle of
NumPy arrays plus the `StructuredToParameterName@@` name table, and loading strips either suffix and
returns `(param_dict, opt_dict or None)`. Files written here are read by 1.8 and the other way round.
"""
from __future__ import annotations

import os
import pickle
from typing import Any, Dict, Optional, Tuple

from runtime_shim.adapters import adapter

NAME_TABLE = "StructuredToParameterName@@"


def _is_parameter(value: Any) -> bool:
    from paddle.base import framework

    kinds = tuple(k for k in (getattr(framework, "EagerParamBase", None), getattr(framework, "Parameter", None))
                  if k is not None)
    return isinstance(value, kinds)


def _is_tensor(value: Any) -> bool:
    import paddle

    return isinstance(value, (paddle.Tensor, paddle.base.framework.Variable))


@adapter("paddle.fluid.dygraph.save_dygraph",
         "paddle.save(state_dict, path + '.pdparams') / paddle.save(opt.state_dict(), path + '.pdopt')",
         semantics=(32,))
def save_dygraph(state_dict: Dict[str, Any], model_path: str) -> None:
    """Write `model_path + '.pdparams'` (or `.pdopt` for optimizer state) in the 1.8 format."""
    base_name = os.path.basename(model_path)
    if base_name == "":
        raise AssertionError("The input model_path MUST be format of dirname/filename [dirname\\filename in "
                             "Windows system], but received filename is empty string.")
    if len(state_dict) == 0:
        raise AssertionError("state_dict is empty, no need to save")
    suffix = ".pdparams"
    for value in state_dict.values():
        if not _is_parameter(value):
            suffix = ".pdopt"
        break  # 1.8 looks at the first value only
    model_dict: Dict[str, Any] = {}
    name_table: Dict[str, str] = {}
    for key, value in state_dict.items():
        if _is_tensor(value):
            model_dict[key] = value.numpy()
            name_table[key] = value.name
        else:
            model_dict[key] = value
    model_dict[NAME_TABLE] = name_table
    file_name = model_path + suffix
    dir_name = os.path.dirname(file_name)
    if dir_name and not os.path.exists(dir_name):
        os.makedirs(dir_name)
    with open(file_name, "wb") as fh:
        pickle.dump(model_dict, fh, protocol=2)


@adapter("paddle.fluid.dygraph.load_dygraph",
         "paddle.load(path + '.pdparams'), paddle.load(path + '.pdopt') if it exists else None",
         semantics=(32,))
def load_dygraph(model_path: str, keep_name_table: bool = False) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]]]:
    """Return `(param_dict, opt_dict or None)` of NumPy arrays; either suffix may be given."""
    prefix = model_path
    if prefix.endswith(".pdparams"):
        prefix = prefix[: -len(".pdparams")]
    elif prefix.endswith(".pdopt"):
        prefix = prefix[: -len(".pdopt")]
    params_file = prefix + ".pdparams"
    if not os.path.exists(params_file):
        raise RuntimeError(f"Parameter file [ {params_file} ] not exists")
    para_dict = _read(params_file)
    if not keep_name_table:
        para_dict.pop(NAME_TABLE, None)
    opt_file = prefix + ".pdopt"
    opt_dict = _read(opt_file) if os.path.exists(opt_file) else None
    return para_dict, opt_dict


def _read(path: str) -> Dict[str, Any]:
    with open(path, "rb") as fh:
        return pickle.load(fh, encoding="latin1")
