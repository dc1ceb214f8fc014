"""Build the optional C speedups of `agent.parse`; everything else is configured in pyproject.toml.

`optional=True`: without a compiler the install still succeeds and `agent.parse` runs its
pure-Python code (set GODOT_RAG_PURE_PYTHON_PARSE=1 to force that path where the module is built).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("agent.parse._speedups", ["agent/parse/_speedups.c"], optional=True),
    ]
)
