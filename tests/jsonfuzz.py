"""Any JSON document, for the tests that feed a file or a request anything at all."""
from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

SCALARS = (st.none() | st.booleans() | st.integers(-5, 1000)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=6))


def json_documents(keys: Sequence[str], *, scalars: st.SearchStrategy = SCALARS,
                   list_size: int = 5, key_size: int = 4, max_leaves: int = 25
                   ) -> st.SearchStrategy:
    """Nested lists and objects of `scalars`; object keys mostly the format's own `keys`
    (so the documents get past the first checks), else short random text."""
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=list_size)
                        | st.dictionaries(st.sampled_from(list(keys)) | st.text(max_size=key_size),
                                          inner, max_size=5), max_leaves=max_leaves)
