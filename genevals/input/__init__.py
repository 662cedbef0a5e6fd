"""The input room: what a run reads and how each row becomes a :class:`~genevals.types.Sample`.

    kinds.py     the row file kinds (suffix -> kind) that every reader, command and message reads
    readers.py   JSONL/CSV/Parquet/DataFrame/list -> raw rows -> Samples (the input file formats, read once)
    rows.py      one row: known fields and column aliases, RowValidator, located errors (InputError)
    fields.py    the field names seen: unknown fields, --map sources no row has
    mapping.py   the mapping language of --map, --map-file and column_map (contexts[].doc_id ...)
"""
