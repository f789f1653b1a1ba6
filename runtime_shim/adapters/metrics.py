"""`fluid.metrics` and `fluid.average`: 1.8's NumPy accumulators of fetched results, which 2.x dropped.

They compute in NumPy on values the program fetched; nothing of Paddle is involved, so they are 1.8's
classes again (`metrics.py:58-700`, `average.py:40`), with 1.8's checks and results.
"""
from __future__ import annotations

import copy
import warnings
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from runtime_shim.adapters import adapter
from runtime_shim.numpy_compat import legacy


def _is_numpy(var: Any) -> bool:
    return isinstance(var, (np.ndarray, np.generic))


def _is_number(var: Any) -> bool:
    return isinstance(var, (int, np.int64, float)) or (isinstance(var, np.ndarray) and var.shape == (1,))


def _is_number_or_matrix(var: Any) -> bool:
    return _is_number(var) or isinstance(var, np.ndarray)


@adapter("paddle.fluid.metrics.MetricBase", "paddle.metric.Metric (compute/update/accumulate/reset/name)")
class MetricBase:
    """1.8 `metrics.MetricBase(name)`: public attributes are the states `reset()` zeroes."""

    def __init__(self, name: Optional[str]) -> None:
        self._name = str(name) if name is not None else self.__class__.__name__

    def __str__(self) -> str:
        return self._name

    def _states(self) -> Dict[str, Any]:
        return {attr: value for attr, value in self.__dict__.items() if not attr.startswith("_")}

    def reset(self) -> None:
        for attr, value in self._states().items():
            if isinstance(value, int):
                setattr(self, attr, 0)
            elif isinstance(value, float):
                setattr(self, attr, 0.0)
            elif isinstance(value, (np.ndarray, np.generic)):
                setattr(self, attr, np.zeros_like(value))
            else:
                setattr(self, attr, None)

    def get_config(self) -> Dict[str, Any]:
        return {"name": self._name, "states": copy.deepcopy(self._states())}

    def update(self, preds: Any, labels: Any) -> None:
        raise NotImplementedError("Should not use it directly, please extend it.")

    def eval(self) -> Any:
        raise NotImplementedError("Should not use it directly, please extend it.")


@adapter("paddle.fluid.metrics.CompositeMetric", "a list of paddle.metric.Metric objects")
class CompositeMetric(MetricBase):
    """1.8 `metrics.CompositeMetric`: updates and evaluates its sub-metrics together."""

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__(name)
        self._metrics: List[MetricBase] = []

    def add_metric(self, metric: MetricBase) -> None:
        if not isinstance(metric, MetricBase):
            raise ValueError("SubMetric should be inherit from MetricBase.")
        self._metrics.append(metric)

    def update(self, preds: Any, labels: Any) -> None:
        for metric in self._metrics:
            metric.update(preds, labels)

    def eval(self) -> List[Any]:
        return [metric.eval() for metric in self._metrics]


@adapter("paddle.fluid.metrics.Precision", "paddle.metric.Precision (accumulate() where 1.8 called eval())")
class Precision(MetricBase):
    """1.8 `metrics.Precision`: preds rounded to 0/1; true and false positives counted."""

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__(name)
        self.tp = 0
        self.fp = 0

    def update(self, preds: Any, labels: Any) -> None:
        if not _is_numpy(preds):
            raise ValueError("The 'preds' must be a numpy ndarray.")
        if not _is_numpy(labels):
            raise ValueError("The 'labels' must be a numpy ndarray.")
        for pred, label in zip(np.rint(preds).astype("int32"), labels):
            if pred == 1:
                if pred == label:
                    self.tp += 1
                else:
                    self.fp += 1

    def eval(self) -> float:
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else 0.0


@adapter("paddle.fluid.metrics.Recall", "paddle.metric.Recall (accumulate() where 1.8 called eval())")
class Recall(MetricBase):
    """1.8 `metrics.Recall`: preds rounded to 0/1; true positives and false negatives counted."""

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__(name)
        self.tp = 0
        self.fn = 0

    def update(self, preds: Any, labels: Any) -> None:
        if not _is_numpy(preds):
            raise ValueError("The 'preds' must be a numpy ndarray.")
        if not _is_numpy(labels):
            raise ValueError("The 'labels' must be a numpy ndarray.")
        for pred, label in zip(np.rint(preds).astype("int32"), labels):
            if label == 1:
                if pred == label:
                    self.tp += 1
                else:
                    self.fn += 1

    def eval(self) -> float:
        recall = self.tp + self.fn
        return float(self.tp) / recall if recall != 0 else 0.0


@adapter("paddle.fluid.metrics.Auc", "paddle.metric.Auc (accumulate() where 1.8 called eval())")
class Auc(MetricBase):
    """1.8 `metrics.Auc(name, curve, num_thresholds)`: bucketed positive-class scores (`preds[:, 1]`), the
    area under the ROC curve by trapezoids."""

    def __init__(self, name: Optional[str], curve: str = "ROC", num_thresholds: int = 4095) -> None:
        super().__init__(name=name)
        self._curve = curve
        self._num_thresholds = num_thresholds
        self._stat_pos = [0] * (num_thresholds + 1)
        self._stat_neg = [0] * (num_thresholds + 1)

    def update(self, preds: Any, labels: Any) -> None:
        if not _is_numpy(labels):
            raise ValueError("The 'labels' must be a numpy ndarray.")
        if not _is_numpy(preds):
            raise ValueError("The 'predictions' must be a numpy ndarray.")
        for i, label in enumerate(labels):
            bucket = int(preds[i, 1] * self._num_thresholds)
            if bucket > self._num_thresholds:
                raise AssertionError(f"bucket {bucket} > {self._num_thresholds}")
            if label:
                self._stat_pos[bucket] += 1.0
            else:
                self._stat_neg[bucket] += 1.0

    @staticmethod
    def trapezoid_area(x1: float, x2: float, y1: float, y2: float) -> float:
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def eval(self) -> float:
        tot_pos = tot_neg = auc = 0.0
        for idx in range(self._num_thresholds, -1, -1):
            pos_prev, neg_prev = tot_pos, tot_neg
            tot_pos += self._stat_pos[idx]
            tot_neg += self._stat_neg[idx]
            auc += self.trapezoid_area(tot_neg, neg_prev, tot_pos, pos_prev)
        return auc / tot_pos / tot_neg if tot_pos > 0.0 and tot_neg > 0.0 else 0.0


@adapter("paddle.fluid.metrics.Accuracy", "a running weighted mean of the batch accuracies")
class Accuracy(MetricBase):
    """1.8 `metrics.Accuracy(name)`: `update(value, weight)` accumulates, `eval()` is the weighted mean."""

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__(name)
        self.value = 0.0
        self.weight = 0.0

    def update(self, value: Any, weight: Any) -> None:
        if not _is_number_or_matrix(value):
            raise ValueError("The 'value' must be a number(int, float) or a numpy ndarray.")
        if not _is_number(weight):
            raise ValueError("The 'weight' must be a number(int, float).")
        if weight < 0:
            raise ValueError("The 'weight' can not be negative")
        self.value += value * weight
        self.weight += weight

    def eval(self) -> Any:
        if self.weight == 0:
            raise ValueError("There is no data in Accuracy Metrics. Please check layers.accuracy output has added "
                             "to Accuracy.")
        return self.value / self.weight


@adapter("paddle.fluid.metrics.ChunkEvaluator", "precision, recall and F1 from accumulated chunk counts")
class ChunkEvaluator(MetricBase):
    """1.8 `metrics.ChunkEvaluator`: precision, recall and F1 of accumulated chunk counts."""

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__(name)
        self.num_infer_chunks = 0
        self.num_label_chunks = 0
        self.num_correct_chunks = 0

    def update(self, num_infer_chunks: Any, num_label_chunks: Any, num_correct_chunks: Any) -> None:
        for name, value in (("num_infer_chunks", num_infer_chunks), ("num_label_chunks", num_label_chunks),
                            ("num_correct_chunks", num_correct_chunks)):
            if not _is_number_or_matrix(value):
                raise ValueError(f"The '{name}' must be a number(int) or a numpy ndarray.")
        # shape-[1] counts read as scalars in eval(), as under NumPy 1.x (`numpy_compat`)
        self.num_infer_chunks = legacy(self.num_infer_chunks + num_infer_chunks)
        self.num_label_chunks = legacy(self.num_label_chunks + num_label_chunks)
        self.num_correct_chunks = legacy(self.num_correct_chunks + num_correct_chunks)

    def eval(self) -> Tuple[Any, Any, Any]:
        precision = float(self.num_correct_chunks) / self.num_infer_chunks if self.num_infer_chunks else 0
        recall = float(self.num_correct_chunks) / self.num_label_chunks if self.num_label_chunks else 0
        f1_score = float(2 * precision * recall) / (precision + recall) if self.num_correct_chunks else 0
        return precision, recall, f1_score


@adapter("paddle.fluid.metrics.EditDistance", "the mean distance and the share of sequences with errors")
class EditDistance(MetricBase):
    """1.8 `metrics.EditDistance(name)`: mean distance per sequence, and the share of wrong sequences."""

    def __init__(self, name: Optional[str]) -> None:
        super().__init__(name)
        self.total_distance = 0.0
        self.seq_num = 0
        self.instance_error = 0

    def update(self, distances: Any, seq_num: Any) -> None:
        if not _is_numpy(distances):
            raise ValueError("The 'distances' must be a numpy ndarray.")
        if not _is_number(seq_num):
            raise ValueError("The 'seq_num' must be a number(int, float).")
        self.seq_num += seq_num
        self.instance_error += seq_num - np.sum(distances == 0)
        self.total_distance += np.sum(distances)

    def eval(self) -> Tuple[Any, Any]:
        if self.seq_num == 0:
            raise ValueError("There is no data in EditDistance Metric. Please check layers.edit_distance output "
                             "has been added to EditDistance.")
        return self.total_distance / self.seq_num, self.instance_error / float(self.seq_num)


@adapter("paddle.fluid.average.WeightedAverage", "a running weighted mean in NumPy")
class WeightedAverage:
    """1.8 `average.WeightedAverage` (deprecated in 1.8 already): `add(value, weight)`, `eval()`."""

    def __init__(self) -> None:
        warnings.warn(f"The {self.__class__.__name__} is deprecated, please use fluid.metrics.Accuracy instead.",
                      Warning)
        self.reset()

    def reset(self) -> None:
        self.numerator: Any = None
        self.denominator: Any = None

    def add(self, value: Any, weight: Any) -> None:
        if not _is_number_or_matrix(value):
            raise ValueError("The 'value' must be a number(int, float) or a numpy ndarray.")
        if not _is_number(weight):
            raise ValueError("The 'weight' must be a number(int, float).")
        if self.numerator is None or self.denominator is None:
            self.numerator = value * weight
            self.denominator = weight
        else:
            self.numerator += value * weight
            self.denominator += weight

    def eval(self) -> Any:
        if self.numerator is None or self.denominator is None:
            raise ValueError("There is no data to be averaged in WeightedAverage.")
        return self.numerator / self.denominator
