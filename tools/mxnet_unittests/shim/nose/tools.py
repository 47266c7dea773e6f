"""``nose.tools`` names used by MXNet 1.9.1's unit tests, implemented on unittest/pytest."""
import functools
import unittest

import pytest

_case = unittest.TestCase()
_case.maxDiff = None
assert_raises = _case.assertRaises
assert_equal = _case.assertEqual
assert_not_equal = _case.assertNotEqual
assert_true = _case.assertTrue
assert_false = _case.assertFalse
assert_almost_equal = _case.assertAlmostEqual
assert_in = _case.assertIn
assert_is = _case.assertIs
assert_is_none = _case.assertIsNone
assert_is_not_none = _case.assertIsNotNone
assert_greater = _case.assertGreater
assert_less = _case.assertLess


def ok_(expr, msg=None):
    assert expr, msg


def eq_(a, b, msg=None):
    assert a == b, msg or f"{a!r} != {b!r}"


def make_decorator(func):
    """Copies ``func``'s name and docstring onto the decorated test, as nose's does."""
    def decorate(newfunc):
        return functools.wraps(func)(newfunc)
    return decorate


def raises(*exceptions):
    """The decorated test passes only if it raises one of ``exceptions``."""
    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with pytest.raises(exceptions):
                func(*args, **kwargs)
        return wrapper
    return decorate
