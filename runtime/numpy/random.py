"""``mx.np.random``: samplers with NumPy's signatures (``size``, float32 by default), filled from the
np table (``runtime/_numpy_table.py``). Seeded by ``npx.random.seed`` / ``mx.random.seed``; the numbers
are this runtime's generator's, not MXNet's (its generators cannot be reproduced with numpy)."""
from ..ops.tensor_random import seed  # noqa: F401
