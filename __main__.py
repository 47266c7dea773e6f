"""``python -m hybridize``: the ``hybridize`` command (same as the installed console script)."""
from .cli import main

if __name__ == "__main__":
    main(prog_name="hybridize")
