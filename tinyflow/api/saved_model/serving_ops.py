"""Importer rules for the ops TF 1.15 puts into serving graphs (the parsing receiver's ParseExample, a
classification head's AsString, ...), registered in tf_files/ops_table.py's CONVERTERS table."""
