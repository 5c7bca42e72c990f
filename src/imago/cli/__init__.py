"""The ``imago`` command line. Each command lives in its own module with a ``register(app)``."""
