"""The 1.8 -> 2.x API mapping table: data files, typed loader, signature indexes.

This package imports nothing else of the project: the upgrader (`refactors`) and the runtime shim
(`runtime_shim`) both read it.
"""
from api_mapping.schema import ApiEntry, ArgChange, ClassFacts, NoEquivalent, Param, Table, TableError
from api_mapping.loader import load_table

__all__ = ["ApiEntry", "ArgChange", "ClassFacts", "NoEquivalent", "Param", "Table", "TableError", "load_table"]
