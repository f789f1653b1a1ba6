"""1.8's in-program readers (`layers.py_reader`, `create_py_reader_by_data`, `read_file`, `double_buffer`).

2.x removed them for `paddle.io.DataLoader`; Paddle 3.3.1 still has the non-iterable loader they became
(`paddle.base.reader.DataLoader.from_generator(..., iterable=False)`), which adds the same reading
operators to the program: the program's data variables are filled by the reader, `exe.run` needs no
feed, and the end of the data raises `fluid.core.EOFException` until `reader.reset()`.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

from runtime_shim.adapters import adapter


class LegacyPyReader:
    """What 1.8's `py_reader` returned: the reader, with its `decorate_*`, `start()`, `reset()` and `queue`."""

    def __init__(self, feed_list: List[Any], capacity: int, use_double_buffer: bool) -> None:
        from paddle.base.reader import DataLoader

        self.feed_list = feed_list
        self._loader = DataLoader.from_generator(feed_list=feed_list, capacity=capacity,
                                                 use_double_buffer=use_double_buffer, iterable=False)

    def decorate_sample_list_generator(self, reader: Callable[[], Any], places: Any = None) -> None:
        """A reader of sample batches (`paddle.batch(reader, n)`), each sample one value per variable."""
        self._loader.set_sample_list_generator(reader, places)

    decorate_paddle_reader = decorate_sample_list_generator

    def decorate_batch_generator(self, reader: Callable[[], Any], places: Any = None) -> None:
        """A reader of whole batches: one array (or LoDTensor) per variable."""
        self._loader.set_batch_generator(reader, places)

    decorate_tensor_provider = decorate_batch_generator

    def decorate_sample_generator(self, sample_generator: Callable[[], Any], batch_size: int,
                                  drop_last: bool = True, places: Any = None) -> None:
        self._loader.set_sample_generator(sample_generator, batch_size, drop_last, places)

    def start(self) -> None:
        self._loader.start()

    def reset(self) -> None:
        self._loader.reset()

    @property
    def queue(self) -> Any:
        """The loader's blocking queue, whose `size()` 1.8 code logs (api_mapping/SEMANTICS.md 57)."""
        return self._loader.queue


def _reader(feed_list: List[Any], capacity: int, use_double_buffer: bool) -> LegacyPyReader:
    import logging

    logging.warning("paddle.fluid.layers.py_reader() may be deprecated in the near future. "
                    "Please use paddle.fluid.io.DataLoader.from_generator() instead.")
    return LegacyPyReader(feed_list, capacity, use_double_buffer)


@adapter("paddle.fluid.layers.py_reader", "paddle.io.DataLoader (or paddle.base.reader.DataLoader.from_generator("
         "feed_list, capacity, iterable=False) in a static program)")
def py_reader(capacity: int, shapes: Sequence[Sequence[int]], dtypes: Sequence[Any],
              lod_levels: Optional[Sequence[int]] = None, name: Optional[str] = None,
              use_double_buffer: bool = True) -> LegacyPyReader:
    """1.8 `layers.py_reader` (`layers/io.py:554`): a reader of variables with these shapes and dtypes."""
    import paddle

    lod_levels = list(lod_levels) if lod_levels is not None else [0] * len(shapes)
    prefix = name or paddle.utils.unique_name.generate("py_reader")
    feed_list = [paddle.static.data(f"{prefix}_{i}", list(shape), dtype, lod_level=lod)
                 for i, (shape, dtype, lod) in enumerate(zip(shapes, dtypes, lod_levels))]
    return _reader(feed_list, capacity, use_double_buffer)


@adapter("paddle.fluid.layers.create_py_reader_by_data",
         "paddle.base.reader.DataLoader.from_generator(feed_list, capacity, iterable=False)")
def create_py_reader_by_data(capacity: int, feed_list: List[Any], name: Optional[str] = None,
                             use_double_buffer: bool = True) -> LegacyPyReader:
    """1.8 `layers.create_py_reader_by_data` (`layers/io.py:723`): a reader that fills `feed_list`."""
    if not isinstance(feed_list, list):
        raise TypeError(f"feed_list should be a list of Variable instead of {type(feed_list)}")
    return _reader(feed_list, capacity, use_double_buffer)


@adapter("paddle.fluid.layers.double_buffer", "nothing: DataLoader.from_generator(use_double_buffer=True)")
def double_buffer(reader: LegacyPyReader, place: Any = None, name: Optional[str] = None) -> LegacyPyReader:
    """1.8 `layers.double_buffer`: prefetch into a second buffer; the loader already double-buffers."""
    return reader


@adapter("paddle.fluid.layers.read_file", "the feed_list variables of the DataLoader")
def read_file(reader: LegacyPyReader) -> Any:
    """1.8 `layers.read_file(reader)` (`layers/io.py:863`): the reader's variables (one, or a list)."""
    out = reader.feed_list
    return out[0] if len(out) == 1 else list(out)


@adapter("paddle.fluid.contrib.reader.distributed_batch_reader",
         "a function of the module (the upgrade writes it): no 2.x reader decorator splits batches between trainers")
def distributed_batch_reader(batch_reader: Callable[[], Any]) -> Callable[[], Any]:
    """1.8 `contrib/reader/distributed_reader.py`: of each PADDLE_TRAINERS_NUM batches in a row, trainer
    PADDLE_TRAINER_ID reads one (the variables read now, as 1.8 did); an incomplete last run is dropped. The
    function the upgrade writes, compiled from the same text."""
    from api_mapping.kernels import DISTRIBUTED_BATCHES
    from runtime_shim.static_ops import plain_kernel

    return plain_kernel(DISTRIBUTED_BATCHES, "distributed_batch_reader", "os")(batch_reader)
