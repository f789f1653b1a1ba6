"""1.8's averaging helpers that are plain Python (no program, no operator) become a class of the module.

`fluid.average.WeightedAverage` (1.8.5 `average.py:40`) and `fluid.metrics.Accuracy` (`metrics.py:472`,
on `MetricBase`) keep a running weighted mean of the values the script hands them (`add`/`update`, `eval`,
`reset`); `fluid.metrics.ChunkEvaluator` (`metrics.py:513`) sums chunk counts and gives precision, recall
and F1 from them. 2.x removed them; `paddle.metric.Accuracy` computes accuracy from predictions instead. The
rewrite writes each class once in the module (refactors/transformers/module_definitions.py) with 1.8's
behaviour: the same checks of the arguments (Python numbers or NumPy arrays; `numpy.float32` is not a
number to 1.8), the same errors when nothing was added, and `reset` returning each state to the zero of
its type as MetricBase did. Only 1.8's deprecation warning at construction is not kept.
"""
from __future__ import annotations

import libcst as cst

from refactors.engine import Context, Site
from refactors.transformers import module_definitions, register

WEIGHTED_AVERAGE = '''\
class {name}(object):
    """fluid.average.WeightedAverage of Paddle 1.8 (paddle-upgrade): the mean of the values given to
    add(), weighted."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.numerator = None
        self.denominator = None

    def add(self, value, weight):
        if not isinstance(value, (int, float, {numpy}.ndarray)):
            raise ValueError("value must be an int, a float or a numpy array")
        if not (isinstance(weight, (int, float)) or isinstance(weight, {numpy}.ndarray) and weight.shape == (1,)):
            raise ValueError("weight must be an int, a float or a numpy array of shape (1,)")
        if self.numerator is None or self.denominator is None:
            self.numerator, self.denominator = value * weight, weight
        else:
            self.numerator += value * weight
            self.denominator += weight

    def eval(self):
        if self.numerator is None or self.denominator is None:
            raise ValueError("nothing was added to average")
        return self.numerator / self.denominator
'''

# The methods 1.8's MetricBase (metrics.py:75) gives every metric: its name, and reset/get_config over the
# public attributes, each reset to the zero of its type.
METRIC_BASE = '''\
    def __str__(self):
        return self._name

    def _states(self):
        return {{attr: value for attr, value in self.__dict__.items() if not attr.startswith("_")}}

    def reset(self):
        for attr, value in self._states().items():
            if isinstance(value, int):
                setattr(self, attr, 0)
            elif isinstance(value, float):
                setattr(self, attr, 0.0)
            elif isinstance(value, ({numpy}.ndarray, {numpy}.generic)):
                setattr(self, attr, {numpy}.zeros_like(value))
            else:
                setattr(self, attr, None)

    def get_config(self):
        return {{"name": self._name, "states": {{k: {numpy}.copy(v) if isinstance(v, {numpy}.ndarray) else v
                                              for k, v in self._states().items()}}}}

'''

ACCURACY = '''\
class {name}(object):
    """fluid.metrics.Accuracy of Paddle 1.8 (paddle-upgrade): the mean of the batch accuracies given to
    update(), weighted by their batch sizes."""

    def __init__(self, name=None):
        self._name = str(name) if name is not None else "Accuracy"
        self.value = 0.0
        self.weight = 0.0

''' + METRIC_BASE + '''    def update(self, value, weight):
        number = isinstance(weight, (int, {numpy}.int64, float)) or isinstance(weight, {numpy}.ndarray) and \\
            weight.shape == (1,)
        if not isinstance(value, (int, {numpy}.int64, float, {numpy}.ndarray)):
            raise ValueError("value must be an int, a float or a numpy array")
        if not number:
            raise ValueError("weight must be an int, a float or a numpy array of shape (1,)")
        if weight < 0:
            raise ValueError("weight must not be negative")
        self.value += value * weight
        self.weight += weight

    def eval(self):
        if self.weight == 0:
            raise ValueError("no accuracy was given to update()")
        return self.value / self.weight
'''

CHUNK_EVALUATOR = '''\
class {name}(object):
    """fluid.metrics.ChunkEvaluator of Paddle 1.8 (paddle-upgrade): precision, recall and F1 of the chunk
    counts given to update()."""

    def __init__(self, name=None):
        self._name = str(name) if name is not None else "ChunkEvaluator"
        self.num_infer_chunks = 0
        self.num_label_chunks = 0
        self.num_correct_chunks = 0

''' + METRIC_BASE + '''    def update(self, num_infer_chunks, num_label_chunks, num_correct_chunks):
        for count in (num_infer_chunks, num_label_chunks, num_correct_chunks):
            if not isinstance(count, (int, {numpy}.int64, float, {numpy}.ndarray)):
                raise ValueError("a chunk count must be an int, a float or a numpy array")
        self.num_infer_chunks += num_infer_chunks
        self.num_label_chunks += num_label_chunks
        self.num_correct_chunks += num_correct_chunks

    def eval(self):
        # 1.8 took float() of counts that may be [1] arrays, which NumPy 2 refuses: their one element is read
        correct = float({numpy}.asarray(self.num_correct_chunks).item())
        precision = correct / self.num_infer_chunks if self.num_infer_chunks else 0
        recall = correct / self.num_label_chunks if self.num_label_chunks else 0
        if not self.num_correct_chunks:
            return precision, recall, 0
        return precision, recall, float({numpy}.asarray(2 * precision * recall).item()) / (precision + recall)
'''


@register("weighted_average_class")
def weighted_average_class(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return module_definitions.call_definition(ctx, site, node, "WeightedAverage", WEIGHTED_AVERAGE)


@register("accuracy_metric_class")
def accuracy_metric_class(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return module_definitions.call_definition(ctx, site, node, "Accuracy", ACCURACY)


@register("chunk_evaluator_class")
def chunk_evaluator_class(ctx: Context, site: Site, node: cst.Call) -> cst.BaseExpression:
    return module_definitions.call_definition(ctx, site, node, "ChunkEvaluator", CHUNK_EVALUATOR)

