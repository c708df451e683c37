"""One module per measure family: its declaration and its polars expression.

Importing this package imports every module in it, and each registers its families in
:data:`polars_rankeval._registry.REGISTRY` (in table order: ``Family.order``).  Adding a
measure is adding a module here (plus its SQL twin in ``sql/`` and its tests).
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
