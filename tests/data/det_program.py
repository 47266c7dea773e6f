"""One ``mx.image.ImageDetIter`` program, run on MXNet 1.9.1 by tools/record_image_det_iter_mxnet.py and
on the runtime by test_image_det_iter.py: ``run(mx, path_imgrec)`` gives two epochs of batches
(pixels to 3 decimals, labels to 5) for three augmenter lists of ``CreateDetAugmenter``: none, a
resize with mean and std, and the random ones (crop, pad, mirror) after seeding Python's and
numpy's generators."""
import random

import numpy as np

CASES = {
    "plain": {},
    "mean_std_resize": dict(resize=10, mean=True, std=True),
    "random": dict(rand_crop=0.5, rand_pad=0.5, rand_mirror=True, min_object_covered=0.1, area_range=(0.3, 3.0),
                   max_attempts=20, pad_val=(127, 127, 127)),
}


def run(mx, path_imgrec):
    out = {}
    for name, aug in CASES.items():
        random.seed(11)
        np.random.seed(11)
        augs = mx.image.CreateDetAugmenter((3, 8, 8), **aug)
        it = mx.image.ImageDetIter(batch_size=2, data_shape=(3, 8, 8), path_imgrec=path_imgrec, aug_list=augs)
        epochs = []
        for _ in range(2):
            it.reset()
            epochs.append([[b.data[0].asnumpy().round(3).tolist(), b.label[0].asnumpy().round(5).tolist(), b.pad]
                           for b in it])
        out[name] = {"epochs": epochs, "provide_label": [[d[0], list(d[1])] for d in it.provide_label]}
    return out
