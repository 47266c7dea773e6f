"""A stand-in for the ``nose`` package (unmaintained, does not import on Python >= 3.10): just the
names MXNet 1.9.1's unit tests import from ``nose`` / ``nose.tools``."""
