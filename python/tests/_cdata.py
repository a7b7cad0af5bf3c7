"""Arrow C Data Interface structs made by hand with ctypes, holding any
field values at all, for the tests of what md5x refuses: a producer that
lies about lengths and offsets, a schema whose children point back to it.

Every buffer a struct names really exists (a ctypes array kept alive by
the producer object); only the fields around them are hostile.
"""

import ctypes

PyCapsule_New = ctypes.pythonapi.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class ArrowSchema(ctypes.Structure):
    pass


class ArrowArray(ctypes.Structure):
    pass


SchemaRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
ArrayRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))

ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", SchemaRelease),
    ("private_data", ctypes.c_void_p),
]
ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ArrayRelease),
    ("private_data", ctypes.c_void_p),
]


@SchemaRelease
def _release_schema(schema):
    schema.contents.release = SchemaRelease()


@ArrayRelease
def _release_array(array):
    array.contents.release = ArrayRelease()


def buffer(data):
    """A ctypes copy of `data` (bytes), kept alive by whoever holds it."""
    return ctypes.create_string_buffer(bytes(data), len(data))


class Producer:
    """An object with `__arrow_c_array__` whose structs hold the given
    fields. `buffers` are ctypes objects (or None for NULL); `schema` is an
    `ArrowSchema` (see `schema` and `cyclic_schema`)."""

    def __init__(self, schema, length, buffers, offset=0, null_count=0, keep=()):
        self.keep = [schema, buffers, keep]
        self.schema = schema
        pointers = (ctypes.c_void_p * len(buffers))(
            *[None if b is None else ctypes.addressof(b) for b in buffers]
        )
        self.keep.append(pointers)
        self.array = ArrowArray(
            length=length,
            null_count=null_count,
            offset=offset,
            n_buffers=len(buffers),
            n_children=0,
            buffers=pointers,
            release=_release_array,
        )

    def __arrow_c_array__(self, requested_schema=None):
        return (
            PyCapsule_New(ctypes.addressof(self.schema), b"arrow_schema", None),
            PyCapsule_New(ctypes.addressof(self.array), b"arrow_array", None),
        )


def schema(format):
    """A live schema of type `format` (bytes), no children."""
    return ArrowSchema(format=format, release=_release_schema)


def cyclic_schema(children=64):
    """A struct schema whose `children` children are all itself: a type
    that never ends, as a walk of its description sees it."""
    root = ArrowSchema(format=b"+s", name=b"loop", release=_release_schema)
    pointers = (ctypes.POINTER(ArrowSchema) * children)(*[ctypes.pointer(root)] * children)
    root.n_children = children
    root.children = pointers
    root._keep = pointers
    return root


def schema_capsule(schema):
    """A capsule of `schema` (the caller keeps `schema` alive)."""
    return PyCapsule_New(ctypes.addressof(schema), b"arrow_schema", None)
