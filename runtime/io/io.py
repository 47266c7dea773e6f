"""Data iterators (``mxnet.io``): DataDesc, DataBatch, DataIter, ResizeIter, PrefetchingIter,
NDArrayIter (ported from MXNet 1.9.1, Apache-2.0) and CSVIter (MXNet's C++ iterator, in Python).

MXNet's other C++ file iterators are re-implemented beside it: ``ImageRecordIter`` below,
``MNISTIter`` (``mnist.py``), ``LibSVMIter`` (``libsvm.py``) and ``ImageDetRecordIter`` (``imagedet.py``).
"""
import os
import threading
from collections import namedtuple

import numpy as np

from ..base import DataFileError, mx_real_t
from ..ndarray import NDArray, array, concat, tile
from .utils import _getdata_by_idx, _has_instance, _init_data, _slice_along_batch_axis


class CSRNDArray:  # sparse storage is not part of the runtime: nothing is an instance
    pass


class DataDesc(namedtuple('DataDesc', ['name', 'shape'])):
    """DataDesc is used to store name, shape, type and layout
    information of the data or the label.

    The `layout` describes how the axes in `shape` should be interpreted,
    for example for image data setting `layout=NCHW` indicates
    that the first axis is number of examples in the batch(N),
    C is number of channels, H is the height and W is the width of the image.

    For sequential data, by default `layout` is set to ``NTC``, where
    N is number of examples in the batch, T the temporal axis representing time
    and C is the number of channels.

    Parameters
    ----------
    cls : DataDesc
         The class.
    name : str
         Data name.
    shape : tuple of int
         Data shape.
    dtype : np.dtype, optional
         Data type.
    layout : str, optional
         Data layout.
    """
    def __new__(cls, name, shape, dtype=mx_real_t, layout='NCHW'): # pylint: disable=super-on-old-class
        ret = super(cls, DataDesc).__new__(cls, name, shape)
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self):
        return "DataDesc[%s,%s,%s,%s]" % (self.name, self.shape, self.dtype,
                                          self.layout)

    @staticmethod
    def get_batch_axis(layout):
        """Get the dimension that corresponds to the batch size.

        When data parallelism is used, the data will be automatically split and
        concatenated along the batch-size dimension. Axis can be -1, which means
        the whole array will be copied for each data-parallelism device.

        Parameters
        ----------
        layout : str
            layout string. For example, "NCHW".

        Returns
        -------
        int
            An axis indicating the batch_size dimension.
        """
        if layout is None:
            return 0
        return layout.find('N')

    @staticmethod
    def get_list(shapes, types):
        """Get DataDesc list from attribute lists.

        Parameters
        ----------
        shapes : a tuple of (name_, shape_)
        types : a tuple of  (name_, np.dtype)
        """
        if types is not None:
            type_dict = dict(types)
            return [DataDesc(x[0], x[1], type_dict[x[0]]) for x in shapes]
        else:
            return [DataDesc(x[0], x[1]) for x in shapes]

class DataBatch:
    """A data batch.

    MXNet's data iterator returns a batch of data for each `next` call.
    This data contains `batch_size` number of examples.

    If the input data consists of images, then shape of these images depend on
    the `layout` attribute of `DataDesc` object in `provide_data` parameter.

    If `layout` is set to 'NCHW' then, images should be stored in a 4-D matrix
    of shape ``(batch_size, num_channel, height, width)``.
    If `layout` is set to 'NHWC' then, images should be stored in a 4-D matrix
    of shape ``(batch_size, height, width, num_channel)``.
    The channels are often in RGB order.

    Parameters
    ----------
    data : list of `NDArray`, each array containing `batch_size` examples.
          A list of input data.
    label : list of `NDArray`, each array often containing a 1-dimensional array. optional
          A list of input labels.
    pad : int, optional
          The number of examples padded at the end of a batch. It is used when the
          total number of examples read is not divisible by the `batch_size`.
          These extra padded examples are ignored in prediction.
    index : numpy.array, optional
          The example indices in this batch.
    bucket_key : int, optional
          The bucket key, used for bucketing module.
    provide_data : list of `DataDesc`, optional
          A list of `DataDesc` objects. `DataDesc` is used to store
          name, shape, type and layout information of the data.
          The *i*-th element describes the name and shape of ``data[i]``.
    provide_label : list of `DataDesc`, optional
          A list of `DataDesc` objects. `DataDesc` is used to store
          name, shape, type and layout information of the label.
          The *i*-th element describes the name and shape of ``label[i]``.
    """
    def __init__(self, data, label=None, pad=None, index=None,
                 bucket_key=None, provide_data=None, provide_label=None):
        if data is not None:
            assert isinstance(data, (list, tuple)), "Data must be list of NDArrays"
        if label is not None:
            assert isinstance(label, (list, tuple)), "Label must be list of NDArrays"
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index

        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        data_shapes = [d.shape for d in self.data]
        if self.label:
            label_shapes = [l.shape for l in self.label]
        else:
            label_shapes = None
        return f"{self.__class__.__name__}: data shapes: {data_shapes} label shapes: {label_shapes}"

class DataIter:
    """The base class for an MXNet data iterator.

    All I/O in MXNet is handled by specializations of this class. Data iterators
    in MXNet are similar to standard-iterators in Python. On each call to `next`
    they return a `DataBatch` which represents the next batch of data. When
    there is no more data to return, it raises a `StopIteration` exception.

    Parameters
    ----------
    batch_size : int, optional
        The batch size, namely the number of items in the batch.

    See Also
    --------
    NDArrayIter : Data-iterator for MXNet NDArray or numpy-ndarray objects.
    CSVIter : Data-iterator for csv data.
    LibSVMIter : Data-iterator for libsvm data.
    ImageIter : Data-iterator for images.
    """
    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        """Reset the iterator to the begin of the data."""

    def next(self):
        """Get next data batch from iterator.

        Returns
        -------
        DataBatch
            The data of next batch.

        Raises
        ------
        StopIteration
            If the end of the data is reached.
        """
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), \
                    pad=self.getpad(), index=self.getindex())
        else:
            raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        """Move to the next batch.

        Returns
        -------
        boolean
            Whether the move is successful.
        """

    def getdata(self):
        """Get data of current batch.

        Returns
        -------
        list of NDArray
            The data of the current batch.
        """

    def getlabel(self):
        """Get label of the current batch.

        Returns
        -------
        list of NDArray
            The label of the current batch.
        """

    def getindex(self):
        """Get index of the current batch.

        Returns
        -------
        index : numpy.array
            The indices of examples in the current batch.
        """
        return

    def getpad(self):
        """Get the number of padding examples in the current batch.

        Returns
        -------
        int
            Number of padding examples in the current batch.
        """

class ResizeIter(DataIter):
    """Resize a data iterator to a given number of batches.

    Parameters
    ----------
    data_iter : DataIter
        The data iterator to be resized.
    size : int
        The number of batches per epoch to resize to.
    reset_internal : bool
        Whether to reset internal iterator on ResizeIter.reset.


    Examples
    --------
    >>> nd_iter = mx.io.NDArrayIter(mx.nd.ones((100,10)), batch_size=25)
    >>> resize_iter = mx.io.ResizeIter(nd_iter, 2)
    >>> for batch in resize_iter:
    ...     print(batch.data)
    [<NDArray 25x10 @cpu(0)>]
    [<NDArray 25x10 @cpu(0)>]
    """
    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None

        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, 'default_bucket_key'):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()

        self.cur += 1
        return True

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad

class PrefetchingIter(DataIter):
    """Performs pre-fetch for other data iterators.

    This iterator will create another thread to perform ``iter_next`` and then
    store the data in memory. It potentially accelerates the data read, at the
    cost of more memory usage.

    Parameters
    ----------
    iters : DataIter or list of DataIter
        The data iterators to be pre-fetched.
    rename_data : None or list of dict
        The *i*-th element is a renaming map for the *i*-th iter, in the form of
        {'original_name' : 'new_name'}. Should have one entry for each entry
        in iter[i].provide_data.
    rename_label : None or list of dict
        Similar to ``rename_data``.

    Examples
    --------
    >>> iter1 = mx.io.NDArrayIter({'data':mx.nd.ones((100,10))}, batch_size=25)
    >>> iter2 = mx.io.NDArrayIter({'data':mx.nd.ones((100,10))}, batch_size=25)
    >>> piter = mx.io.PrefetchingIter([iter1, iter2],
    ...                               rename_data=[{'data': 'data_1'}, {'data': 'data_2'}])
    >>> print(piter.provide_data)
    [DataDesc[data_1,(25, 10L),<type 'numpy.float32'>,NCHW],
     DataDesc[data_2,(25, 10L),<type 'numpy.float32'>,NCHW]]
    """
    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        if not isinstance(iters, list):
            iters = [iters]
        self.n_iter = len(iters)
        assert self.n_iter > 0
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.data_ready = [threading.Event() for i in range(self.n_iter)]
        self.data_taken = [threading.Event() for i in range(self.n_iter)]
        for i in self.data_taken:
            i.set()
        self.started = True
        self.current_batch = [None for i in range(self.n_iter)]
        self.next_batch = [None for i in range(self.n_iter)]
        def prefetch_func(self, i):
            """Thread entry"""
            while True:
                self.data_taken[i].wait()
                if not self.started:
                    break
                try:
                    self.next_batch[i] = self.iters[i].next()
                except StopIteration:
                    self.next_batch[i] = None
                self.data_taken[i].clear()
                self.data_ready[i].set()
        self.prefetch_threads = [threading.Thread(target=prefetch_func, args=[self, i]) \
                                 for i in range(self.n_iter)]
        for thread in self.prefetch_threads:
            thread.daemon = True
            thread.start()

    def __del__(self):
        self.started = False
        for i in self.data_taken:
            i.set()
        for thread in self.prefetch_threads:
            thread.join()

    @property
    def provide_data(self):
        if self.rename_data is None:
            return sum([i.provide_data for i in self.iters], [])
        else:
            return sum([[
                DataDesc(r[x.name], x.shape, x.dtype)
                if isinstance(x, DataDesc) else DataDesc(*x)
                for x in i.provide_data
            ] for r, i in zip(self.rename_data, self.iters)], [])

    @property
    def provide_label(self):
        if self.rename_label is None:
            return sum([i.provide_label for i in self.iters], [])
        else:
            return sum([[
                DataDesc(r[x.name], x.shape, x.dtype)
                if isinstance(x, DataDesc) else DataDesc(*x)
                for x in i.provide_label
            ] for r, i in zip(self.rename_label, self.iters)], [])

    def reset(self):
        for i in self.data_ready:
            i.wait()
        for i in self.iters:
            i.reset()
        for i in self.data_ready:
            i.clear()
        for i in self.data_taken:
            i.set()

    def iter_next(self):
        for i in self.data_ready:
            i.wait()
        if self.next_batch[0] is None:
            for i in self.next_batch:
                assert i is None, "Number of entry mismatches between iterators"
            return False
        else:
            for batch in self.next_batch:
                assert batch.pad == self.next_batch[0].pad, \
                    "Number of entry mismatches between iterators"
            self.current_batch = DataBatch(sum([batch.data for batch in self.next_batch], []),
                                           sum([batch.label for batch in self.next_batch], []),
                                           self.next_batch[0].pad,
                                           self.next_batch[0].index,
                                           provide_data=self.provide_data,
                                           provide_label=self.provide_label)
            for i in self.data_ready:
                i.clear()
            for i in self.data_taken:
                i.set()
            return True

    def next(self):
        if self.iter_next():
            return self.current_batch
        else:
            raise StopIteration

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class NDArrayIter(DataIter):
    """Returns an iterator for ``mx.nd.NDArray``, ``numpy.ndarray``, ``h5py.Dataset``
    ``mx.nd.sparse.CSRNDArray`` or ``scipy.sparse.csr_matrix``.

    Examples
    --------
    >>> data = np.arange(40).reshape((10,2,2))
    >>> labels = np.ones([10, 1])
    >>> dataiter = mx.io.NDArrayIter(data, labels, 3, True, last_batch_handle='discard')
    >>> for batch in dataiter:
    ...     print batch.data[0].asnumpy()
    ...     batch.data[0].shape
    ...
    [[[ 36.  37.]
      [ 38.  39.]]
     [[ 16.  17.]
      [ 18.  19.]]
     [[ 12.  13.]
      [ 14.  15.]]]
    (3L, 2L, 2L)
    [[[ 32.  33.]
      [ 34.  35.]]
     [[  4.   5.]
      [  6.   7.]]
     [[ 24.  25.]
      [ 26.  27.]]]
    (3L, 2L, 2L)
    [[[  8.   9.]
      [ 10.  11.]]
     [[ 20.  21.]
      [ 22.  23.]]
     [[ 28.  29.]
      [ 30.  31.]]]
    (3L, 2L, 2L)
    >>> dataiter.provide_data # Returns a list of `DataDesc`
    [DataDesc[data,(3, 2L, 2L),<type 'numpy.float32'>,NCHW]]
    >>> dataiter.provide_label # Returns a list of `DataDesc`
    [DataDesc[softmax_label,(3, 1L),<type 'numpy.float32'>,NCHW]]

    In the above example, data is shuffled as `shuffle` parameter is set to `True`
    and remaining examples are discarded as `last_batch_handle` parameter is set to `discard`.

    Usage of `last_batch_handle` parameter:

    >>> dataiter = mx.io.NDArrayIter(data, labels, 3, True, last_batch_handle='pad')
    >>> batchidx = 0
    >>> for batch in dataiter:
    ...     batchidx += 1
    ...
    >>> batchidx  # Padding added after the examples read are over. So, 10/3+1 batches are created.
    4
    >>> dataiter = mx.io.NDArrayIter(data, labels, 3, True, last_batch_handle='discard')
    >>> batchidx = 0
    >>> for batch in dataiter:
    ...     batchidx += 1
    ...
    >>> batchidx # Remaining examples are discarded. So, 10/3 batches are created.
    3
    >>> dataiter = mx.io.NDArrayIter(data, labels, 3, False, last_batch_handle='roll_over')
    >>> batchidx = 0
    >>> for batch in dataiter:
    ...     batchidx += 1
    ...
    >>> batchidx # Remaining examples are rolled over to the next iteration.
    3
    >>> dataiter.reset()
    >>> dataiter.next().data[0].asnumpy()
    [[[ 36.  37.]
      [ 38.  39.]]
     [[ 0.  1.]
      [ 2.  3.]]
     [[ 4.  5.]
      [ 6.  7.]]]
    (3L, 2L, 2L)

    `NDArrayIter` also supports multiple input and labels.

    >>> data = {'data1':np.zeros(shape=(10,2,2)), 'data2':np.zeros(shape=(20,2,2))}
    >>> label = {'label1':np.zeros(shape=(10,1)), 'label2':np.zeros(shape=(20,1))}
    >>> dataiter = mx.io.NDArrayIter(data, label, 3, True, last_batch_handle='discard')

    `NDArrayIter` also supports ``mx.nd.sparse.CSRNDArray``
    with `last_batch_handle` set to `discard`.

    >>> csr_data = mx.nd.array(np.arange(40).reshape((10,4))).tostype('csr')
    >>> labels = np.ones([10, 1])
    >>> dataiter = mx.io.NDArrayIter(csr_data, labels, 3, last_batch_handle='discard')
    >>> [batch.data[0] for batch in dataiter]
    [
    <CSRNDArray 3x4 @cpu(0)>,
    <CSRNDArray 3x4 @cpu(0)>,
    <CSRNDArray 3x4 @cpu(0)>]

    Parameters
    ----------
    data: array or list of array or dict of string to array
        The input data.
    label: array or list of array or dict of string to array, optional
        The input label.
    batch_size: int
        Batch size of data.
    shuffle: bool, optional
        Whether to shuffle the data.
        Only supported if no h5py.Dataset inputs are used.
    last_batch_handle : str, optional
        How to handle the last batch. This parameter can be 'pad', 'discard' or
        'roll_over'.
        If 'pad', the last batch will be padded with data starting from the begining
        If 'discard', the last batch will be discarded
        If 'roll_over', the remaining elements will be rolled over to the next iteration and
        note that it is intended for training and can cause problems if used for prediction.
    data_name : str, optional
        The data name.
    label_name : str, optional
        The label name.
    layout : str, optional
        The data layout
    """
    def __init__(self, data, label=None, batch_size=1, shuffle=False,
                 last_batch_handle='pad', data_name='data',
                 label_name='softmax_label', layout='NCHW'):
        super().__init__(batch_size)

        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(label, allow_empty=True, default_name=label_name)

        if ((_has_instance(self.data, CSRNDArray) or
             _has_instance(self.label, CSRNDArray)) and
                (last_batch_handle != 'discard')):
            raise NotImplementedError("`NDArrayIter` only supports ``CSRNDArray``" \
                                      " with `last_batch_handle` set to `discard`.")

        self.idx = np.arange(self.data[0][1].shape[0])
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.batch_size = batch_size
        self.cursor = -self.batch_size
        self.num_data = self.idx.shape[0]
        # shuffle
        self.reset()

        self.data_list = [x[1] for x in self.data] + [x[1] for x in self.label]
        self.num_source = len(self.data_list)
        # used for 'roll_over'
        self._cache_data = None
        self._cache_label = None
        self.layout = layout

    @property
    def provide_data(self):
        """The name and shape of data provided by this iterator."""
        batch_axis = self.layout.find('N')
        return [
            DataDesc(k, tuple(list(v.shape[:batch_axis]) + \
                              [self.batch_size] + list(v.shape[batch_axis + 1:])),
                     v.dtype, layout=self.layout)
            for k, v in self.data
        ]

    @property
    def provide_label(self):
        """The name and shape of label provided by this iterator."""
        batch_axis = self.layout.find('N')
        return [
            DataDesc(k, tuple(list(v.shape[:batch_axis]) + \
                              [self.batch_size] + list(v.shape[batch_axis + 1:])),
                     v.dtype, layout=self.layout)
            for k, v in self.label
        ]

    def hard_reset(self):
        """Ignore roll over data and set to start."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self):
        """Resets the iterator to the beginning of the data."""
        if self.shuffle:
            self._shuffle_data()
        # the range below indicate the last batch
        if self.last_batch_handle == 'roll_over' and \
            self.num_data - self.batch_size < self.cursor < self.num_data:
            # (self.cursor - self.num_data) represents the data we have for the last batch
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self):
        """Increments the coursor by batch_size for next batch
        and check current cursor if it exceed the number of data points."""
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        """Returns the next batch of data."""
        if not self.iter_next():
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        # iter should stop when last batch is not complete
        if data[0].shape[self.layout.find('N')] != self.batch_size:
        # in this case, cache it for next epoch
            self._cache_data = data
            self._cache_label = label
            raise StopIteration
        return DataBatch(data=data, label=label, \
            pad=self.getpad(), index=None)

    def _getdata(self, data_source, start=None, end=None):
        """Load data from underlying arrays."""
        assert start is not None or end is not None, 'should at least specify start or end'
        start = start if start is not None else 0
        if end is None:
            end = data_source[0][1].shape[0] if data_source else 0
        s = slice(start, end)
        return [
            _slice_along_batch_axis(x[1], s, self.layout.find('N'))
            if isinstance(x[1], (np.ndarray, NDArray)) else
            # h5py (only supports indices in increasing order)
            array(x[1][sorted(self.idx[s])][[
                list(self.idx[s]).index(i)
                for i in sorted(self.idx[s])
            ]]) for x in data_source
        ]

    def _concat(self, first_data, second_data):
        """Helper function to concat two NDArrays."""
        if (not first_data) or (not second_data):
            return first_data if first_data else second_data
        assert len(first_data) == len(
            second_data), 'data source should contain the same size'
        return [
            concat(
                first_data[i],
                second_data[i],
                dim=self.layout.find('N')
            ) for i in range(len(first_data))
        ]

    def _tile(self, data, repeats):
        if not data:
            return []
        res = []
        for datum in data:
            reps = [1] * len(datum.shape)
            reps[0] = repeats
            res.append(tile(datum, reps))
        return res

    def _batchify(self, data_source):
        """Load data from underlying arrays, internal use only."""
        assert self.cursor < self.num_data, 'DataIter needs reset.'
        # first batch of next epoch with 'roll_over'
        if self.last_batch_handle == 'roll_over' and \
            -self.batch_size < self.cursor < 0:
            assert self._cache_data is not None or self._cache_label is not None, \
                'next epoch should have cached data'
            cache_data = self._cache_data if self._cache_data is not None else self._cache_label
            second_data = self._getdata(
                data_source, end=self.cursor + self.batch_size)
            if self._cache_data is not None:
                self._cache_data = None
            else:
                self._cache_label = None
            return self._concat(cache_data, second_data)
        # last batch with 'pad'
        elif self.last_batch_handle == 'pad' and \
            self.cursor + self.batch_size > self.num_data:
            pad = self.batch_size - self.num_data + self.cursor
            first_data = self._getdata(data_source, start=self.cursor)
            if pad > self.num_data:
                repeats = pad // self.num_data
                second_data = self._tile(self._getdata(data_source, end=self.num_data), repeats)
                if pad % self.num_data != 0:
                    second_data = self._concat(second_data, self._getdata(data_source, end=pad % self.num_data))
            else:
                second_data = self._getdata(data_source, end=pad)
            return self._concat(first_data, second_data)
        # normal case
        else:
            if self.cursor + self.batch_size < self.num_data:
                end_idx = self.cursor + self.batch_size
            # get incomplete last batch
            else:
                end_idx = self.num_data
            return self._getdata(data_source, self.cursor, end_idx)

    def getdata(self):
        """Get data."""
        return self._batchify(self.data)

    def getlabel(self):
        """Get label."""
        return self._batchify(self.label)

    def getpad(self):
        """Get pad value of DataBatch."""
        if self.last_batch_handle == 'pad' and \
           self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        # check the first batch
        elif self.last_batch_handle == 'roll_over' and \
            -self.batch_size < self.cursor < 0:
            return -self.cursor
        else:
            return 0

    def _shuffle_data(self):
        """Shuffle the data."""
        # shuffle index
        np.random.shuffle(self.idx)
        # get the data by corresponding index
        self.data = _getdata_by_idx(self.data, self.idx)
        self.label = _getdata_by_idx(self.label, self.idx)


class CSVIter(DataIter):
    """Batches of rows of a CSV file (``mxnet.io.CSVIter``), as MXNet's C++ iterator produces them.

    Each row of ``data_csv`` is one sample reshaped to ``data_shape``; ``label_csv`` likewise to
    ``label_shape`` (without it every label is 0). With ``round_batch`` (the default) the last batch is
    completed from the start of the file, ``pad`` counts the borrowed rows, and the next epoch starts
    after them, as MXNet's batch loader does; without it the last batch's ``pad`` slots keep the
    previous batch's rows.
    """

    def __init__(self, data_csv, data_shape, label_csv=None, label_shape=(1,), batch_size=1,
                 round_batch=True, dtype=None, data_name="data", label_name="softmax_label", **kwargs):
        super().__init__(batch_size)
        self.dtype = np.dtype(dtype or mx_real_t)
        self.data_shape = tuple(int(d) for d in data_shape)
        self.label_shape = tuple(int(d) for d in label_shape)
        self._data = self._load(data_csv, self.data_shape)
        if label_csv is None or label_csv == "NULL":
            self._label = np.zeros((len(self._data),) + self.label_shape, dtype=self.dtype)
        else:
            self._label = self._load(label_csv, self.label_shape)
            if len(self._label) != len(self._data):
                raise DataFileError(label_csv, f"{len(self._label)} label rows for {len(self._data)} data rows")
        if int(np.prod(self.label_shape)) == 1:
            self._label = self._label.reshape(len(self._label))
        if int(np.prod(self.data_shape)) == 1:
            self._data = self._data.reshape(len(self._data))
        self.round_batch = bool(round_batch)
        self._names = (data_name, label_name)
        self._buf_data = np.zeros(self._batch_shape(self.data_shape), dtype=self.dtype)
        self._buf_label = np.zeros(self._batch_shape(self.label_shape), dtype=self.dtype)
        self._pos = 0
        self._overflow = 0
        self._pad = 0
        self._batch = None

    def _load(self, path, shape):
        try:
            with open(path, encoding="utf-8") as f:
                rows = [line.strip() for line in f if line.strip()]
        except OSError as e:
            raise DataFileError(path, f"cannot open the CSV file: {e.strerror}") from None
        width = int(np.prod(shape))
        out = np.empty((len(rows), width), dtype=self.dtype)
        for i, row in enumerate(rows):
            vals = row.split(",")
            if len(vals) != width:
                raise DataFileError(path, f"line {i + 1} has {len(vals)} values, shape {shape} needs {width}")
            try:
                out[i] = np.asarray([float(v) for v in vals], dtype=np.float64)
            except ValueError:
                raise DataFileError(path, f"line {i + 1} is not a row of numbers: {row[:60]!r}") from None
        return out.reshape((len(rows),) + tuple(shape))

    def _batch_shape(self, shape):
        # MXNet's batch loader: a one-element instance shape gives a (batch_size,) batch
        return (self.batch_size,) if int(np.prod(shape)) == 1 else (self.batch_size,) + shape

    @property
    def provide_data(self):
        return [DataDesc(self._names[0], self._batch_shape(self.data_shape), self.dtype)]

    @property
    def provide_label(self):
        return [DataDesc(self._names[1], self._batch_shape(self.label_shape), self.dtype)]

    def reset(self):
        if not self.round_batch or self._overflow == 0:
            self._pos = 0
        else:
            self._overflow = 0

    def iter_next(self):
        self._pad = 0
        if self._overflow != 0:
            return False
        n = len(self._data)
        top = 0
        while self._pos < n and top < self.batch_size:
            self._buf_data[top] = self._data[self._pos]
            self._buf_label[top] = self._label[self._pos]
            self._pos += 1
            top += 1
        if top == 0:
            return False
        if top < self.batch_size:
            if self.round_batch:
                self._pos = 0
                while top < self.batch_size:
                    if self._pos >= n:
                        raise ValueError("number of input must be bigger than batch size")
                    self._buf_data[top] = self._data[self._pos]
                    self._buf_label[top] = self._label[self._pos]
                    self._pos += 1
                    top += 1
                    self._overflow += 1
                self._pad = self._overflow
            else:
                self._pad = self.batch_size - top
        self._batch = DataBatch([array(self._buf_data.copy(), dtype=self.dtype)],
                                [array(self._buf_label.copy(), dtype=self.dtype)], pad=self._pad)
        return True

    def next(self):
        if self.iter_next():
            return self._batch
        raise StopIteration

    def getdata(self):
        return self._batch.data[0]  # MXNet's C++ iterators return the array, not a list

    def getlabel(self):
        return self._batch.label[0]

    def getpad(self):
        return self._pad


#: parameters of MXNet's ImageRecordIter the runtime does not implement: refused unless at their
#: default (the accepted spellings of the default)
_IMAGE_RECORD_ITER_UNSUPPORTED = {
    "random_resized_crop": ("False", "0"), "max_rotate_angle": ("0", "0.0"), "max_aspect_ratio": ("0", "0.0"),
    "min_aspect_ratio": ("None",), "max_shear_ratio": ("0", "0.0"), "max_crop_size": ("-1",),
    "min_crop_size": ("-1",), "max_random_scale": ("1", "1.0"), "min_random_scale": ("1", "1.0"),
    "max_random_area": ("1", "1.0"), "min_random_area": ("1", "1.0"), "max_img_size": ("1e10", "10000000000.0"),
    "min_img_size": ("0", "0.0"), "brightness": ("0", "0.0"), "contrast": ("0", "0.0"),
    "saturation": ("0", "0.0"), "pca_noise": ("0", "0.0"), "random_h": ("0",), "random_s": ("0",),
    "random_l": ("0",), "rotate": ("-1", "-1.0"), "pad": ("0",), "inter_method": ("1",),
    "max_random_illumination": ("0", "0.0"), "max_random_contrast": ("0", "0.0"),
    "num_parts": ("1",), "part_index": ("0",), "shuffle_chunk_size": ("0",), "path_imglist": ("",),
    "mean_a": ("0", "0.0"), "std_a": ("1", "1.0"),
}


def _std_uniform_int(engine, high: int) -> int:
    """libstdc++'s ``std::uniform_int_distribution(0, high)(mt19937)`` (downscaling by division,
    rejecting the top of the range; one draw even when ``high`` is 0)."""
    span = high + 1
    scaling = 0xFFFFFFFF // span
    past = span * scaling
    r = int(engine.random_raw())
    while r >= past:
        r = int(engine.random_raw())
    return r // scaling


def _std_coin_flip(engine) -> bool:
    """libstdc++'s ``std::bernoulli_distribution(0.5)(mt19937)``: ``generate_canonical<double>`` of two
    32-bit draws, below 0.5."""
    lo, hi = float(engine.random_raw()), float(engine.random_raw())
    r = (lo + hi * 4294967296.0) / 18446744073709551616.0
    return min(r, np.nextafter(1.0, 0.0)) < 0.5


class ImageRecordIter(DataIter):
    """Batches of images from a RecordIO file (``mxnet.io.ImageRecordIter``, MXNet's C++ iterator, in
    Python; decoding through Pillow, the ``image`` extra).

    Each record is ``recordio.pack``'d (label header + encoded image). Per image, as MXNet's default
    augmenter: shorter edge resized to ``resize`` (bilinear) when given, a ``data_shape`` crop (centre,
    or random with ``rand_crop``), a random horizontal flip with ``rand_mirror``, then
    ``(pixel - mean) / std * scale`` per RGB channel; batches are float32 NCHW. ``round_batch`` and
    ``shuffle`` (needs ``path_imgidx``) as MXNet's; labels are ``(batch,)`` for ``label_width`` 1.
    ``mean_img`` as MXNet's: a per-pixel mean image loaded from the file, or computed over the
    records and saved there when the file does not exist. With ``seed_aug``, ``rand_crop`` and
    ``rand_mirror`` draw from MXNet's generator re-seeded per record, so the batches are MXNet's
    (without it MXNet's draws depend on its decoding threads; here they come from ``seed``). Parameters MXNet does not know are
    ignored, as MXNet ignores them; MXNet's random augmentations beyond crop and mirror are refused.
    """

    def __init__(self, path_imgrec, data_shape, batch_size, path_imgidx="", label_width=1, shuffle=False,
                 round_batch=True, resize=-1, rand_crop=False, rand_mirror=False, mean_r=0.0, mean_g=0.0,
                 mean_b=0.0, std_r=1.0, std_g=1.0, std_b=1.0, scale=1.0, data_name="data",
                 label_name="softmax_label", dtype="float32", seed=0, mean_img="", seed_aug=None, **kwargs):
        super().__init__(batch_size)
        from .. import recordio
        from ..base import ShapeError
        self.data_shape = tuple(int(d) for d in data_shape)
        if len(self.data_shape) != 3 or self.data_shape[0] not in (1, 3):
            raise ShapeError(f"ImageRecordIter: data_shape must be (channels, height, width) with 1 or 3 channels, "
                             f"got {tuple(data_shape)}")
        # MXNet ignores parameters it does not know; those it knows and the runtime does not do are
        # refused rather than silently giving other batches than MXNet's
        unsupported = [f"{k}={v!r}" for k, v in sorted(kwargs.items())
                       if k in _IMAGE_RECORD_ITER_UNSUPPORTED and str(v) not in _IMAGE_RECORD_ITER_UNSUPPORTED[k]]
        if unsupported:
            raise NotImplementedError(f"ImageRecordIter: {', '.join(unsupported)} not supported by the runtime "
                                      "(the default augmenter's random rotation, scaling, shearing, aspect ratio and "
                                      "colour jitter, chunked shuffling and partitioning are not implemented)")
        self.label_width = int(label_width)
        self._names = (data_name, label_name)
        self._resize, self._rand_crop, self._rand_mirror = int(resize), bool(rand_crop), bool(rand_mirror)
        self._mean = np.array([mean_r, mean_g, mean_b], np.float32)[:self.data_shape[0]]
        self._std = np.array([std_r, std_g, std_b], np.float32)[:self.data_shape[0]]
        self._scale = np.float32(scale)
        self._dtype = np.dtype(dtype)
        self._seed = seed
        self._seed_aug = None if seed_aug is None else int(seed_aug)
        self._rng = np.random.RandomState(seed)
        if shuffle and not path_imgidx:
            raise ValueError("ImageRecordIter: shuffle needs path_imgidx (the .idx file of path_imgrec)")
        self._shuffle = bool(shuffle)
        if path_imgidx:
            self._rec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
            self._keys = list(self._rec.keys)
        else:
            self._rec = recordio.MXRecordIO(path_imgrec, "r")
            self._keys = None
        self._records = self._read_all(path_imgrec)
        self.round_batch = bool(round_batch)
        self._order = np.arange(len(self._records))
        self._pos = 0
        self._overflow = 0
        self._pad = 0
        self._batch = None
        self._last = None
        if self._shuffle:
            self._rng.shuffle(self._order)
        self._mean_img = None
        if mean_img:
            self._mean_img = self._load_or_create_mean(str(mean_img))

    def _load_or_create_mean(self, path):
        """MXNet's ``mean_img``: the ``(c, h, w)`` array saved under the key ``mean_img`` in ``path``
        (``nd.save``'s format); when the file does not exist, the mean of every record's image as the
        iterator gives it without the mean image (cropped, normalized by the mean and std values) is
        computed, in float32 as MXNet sums it, saved there, and used."""
        from .. import ndarray as nd
        if os.path.exists(path):
            try:
                loaded = nd.load(path)
            except Exception as e:
                raise DataFileError(path, f"cannot read the mean image: {e}") from None
            arr = loaded.get("mean_img") if isinstance(loaded, dict) else None
            if arr is None or tuple(arr.shape) != self.data_shape:
                raise DataFileError(path, f"invalid mean image file: expected the key 'mean_img' holding an array "
                                           f"of shape {self.data_shape}")
            return arr.asnumpy().astype(np.float32)
        total = None
        for i in range(len(self._records)):
            img = self._sample(i)[0]
            total = img.copy() if total is None else total + img
        mean = (total * np.float32(1.0 / len(self._records))).astype(np.float32)
        nd.save(path, {"mean_img": array(mean)})
        self._rng = np.random.RandomState(self._seed)      # MXNet starts over after computing the mean
        self._order = np.arange(len(self._records))
        if self._shuffle:
            self._rng.shuffle(self._order)
        return mean

    def _read_all(self, path):
        if self._keys is not None:
            return [self._rec.read_idx(k) for k in self._keys]
        out = []
        while (rec := self._rec.read()) is not None:
            out.append(rec)
        if not out:
            raise DataFileError(path, "no image records in the file")
        return out

    @property
    def provide_data(self):
        return [DataDesc(self._names[0], (self.batch_size,) + self.data_shape, self._dtype)]

    @property
    def provide_label(self):
        shape = (self.batch_size,) if self.label_width == 1 else (self.batch_size, self.label_width)
        return [DataDesc(self._names[1], shape, np.float32)]

    def _sample(self, i, aug_idx=None):
        """Record ``i`` decoded and augmented; ``aug_idx`` is the index MXNet's parser gives it (its
        place in the pass over the file plus the samples already in the batch when that pass
        began), which seeds its augmentation under ``seed_aug``."""
        from .. import image, recordio
        header, payload = recordio.unpack(self._records[i])
        c, h, w = self.data_shape
        img = image.imdecode(payload, flag=1 if c == 3 else 0)
        if self._resize > 0:
            img = image.resize_short(img, self._resize, interp=1)
        ih, iw = img.shape[:2]
        if ih < h or iw < w:
            raise ValueError(f"ImageRecordIter: image of {ih}x{iw} is smaller than data_shape {h}x{w} "
                             "(use resize)")
        if self._seed_aug is not None:
            # MXNet re-seeds its std::mt19937 per record (index + seed_aug + 111) and draws the crop's
            # row and column, then the mirror's coin: the same augmentation whatever the threads
            from .mnist import _mt19937
            engine = _mt19937(int(i if aug_idx is None else aug_idx) + self._seed_aug + 111)
            y0 = _std_uniform_int(engine, ih - h) if self._rand_crop else (ih - h) // 2
            x0 = _std_uniform_int(engine, iw - w) if self._rand_crop else (iw - w) // 2
            mirror = self._rand_mirror and _std_coin_flip(engine)
        else:
            if self._rand_crop:
                y0, x0 = self._rng.randint(0, ih - h + 1), self._rng.randint(0, iw - w + 1)
            else:
                y0, x0 = (ih - h) // 2, (iw - w) // 2
            mirror = self._rand_mirror and self._rng.rand() < 0.5
        arr = img.asnumpy()[y0:y0 + h, x0:x0 + w].astype(np.float32)
        if getattr(self, "_mean_img", None) is not None:   # subtracted where the pixel was, before the flip
            arr = (arr - self._mean_img.transpose(1, 2, 0)) / self._std * self._scale
        else:
            arr = (arr - self._mean) / self._std * self._scale
        if mirror:
            arr = arr[:, ::-1]
        label = np.atleast_1d(np.asarray(header.label, np.float32))[:self.label_width]
        return arr.transpose(2, 0, 1), label

    def reset(self):
        if not self.round_batch or self._overflow == 0:
            self._pos = 0
            self._pass_base = 0
            if self._shuffle:
                self._rng.shuffle(self._order)
        else:
            self._overflow = 0

    def iter_next(self):
        self._pad = 0
        if self._overflow != 0:
            return False
        n = len(self._records)
        base = getattr(self, "_pass_base", 0)
        samples = []
        while self._pos < n and len(samples) < self.batch_size:
            samples.append(self._sample(self._order[self._pos], base + self._pos))
            self._pos += 1
        if not samples:
            return False
        if len(samples) < self.batch_size:
            if self.round_batch:
                self._pos = 0
                self._pass_base = base = len(samples)   # MXNet's next pass numbers on from the batch
                while len(samples) < self.batch_size:
                    samples.append(self._sample(self._order[self._pos], base + self._pos))
                    self._pos += 1
                    self._overflow += 1
                self._pad = self._overflow
            else:  # the slots past the data keep the previous batch's samples, as MXNet's loader
                self._pad = self.batch_size - len(samples)
                samples += self._last[len(samples):] if self._last else [samples[-1]] * self._pad
        self._last = samples
        data = np.stack([s[0] for s in samples]).astype(self._dtype)
        label = np.stack([s[1] for s in samples])
        if self.label_width == 1:
            label = label.reshape(len(samples))
        self._batch = DataBatch([array(data, dtype=self._dtype)], [array(label)], pad=self._pad)
        return True

    def next(self):
        if self.iter_next():
            return self._batch
        raise StopIteration

    def getdata(self):
        return self._batch.data[0]

    def getlabel(self):
        return self._batch.label[0]

    def getpad(self):
        return self._pad
