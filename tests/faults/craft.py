"""Crafted results files: an edit a hostile user makes on purpose, with every checksum a reader
could hold against it recomputed (FORMAT.md): config_hash (FNV-1a of config_text),
task_table_crc32, and the row_crc32 of every row of /ws, /gen and /witness (the analysis
package's damage.row_crcs, which follows FORMAT.md "Row checksums"); HDF5 rewrites each chunk's
Fletcher-32 itself. Only the rules that compare values with each other can then tell the file
from one a run wrote.

    craft(src, dst, code)    # dst: a copy of src after `code` ran with `f` an h5py.File (r+)
"""
import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.abspath(os.path.join(HERE, "..", "..", "analysis"))
PY = "/usr/bin/python3"

REHASH = f"""
import sys, zlib
sys.path.insert(0, {ANALYSIS!r})
from wordsens_analysis.reading import damage, schema
text = f.attrs['config_text']
text = text if isinstance(text, bytes) else text.encode()
f.attrs['config_hash'] = np.bytes_(damage.fnv1a64(bytes(text)).encode())
crc = zlib.crc32(bytes(text))
for column, dtype in schema.TASK_CRC_COLUMNS.items():
    if column in f['tasks']:
        crc = zlib.crc32(f['tasks'][column][:].astype(dtype).tobytes(), crc)
if 'task_table_crc32' in f.attrs:
    f.attrs['task_table_crc32'] = np.int64(crc)
for group in schema.RECORD_TABLES:
    g = f[group]
    if schema.ROW_CRC32 not in g or not g['task_id'].shape[0]:
        continue
    sets = {{n: g[n] for n in schema.DATASETS[group] if n in g}}
    rows = np.arange(min(g[schema.ROW_CRC32].shape[0], g['task_id'].shape[0]))
    crcs = damage.row_crcs(sets, group, rows)
    stored = g[schema.ROW_CRC32][:]
    stored[rows[crcs >= 0]] = crcs[crcs >= 0].astype(np.uint32)
    g[schema.ROW_CRC32][:] = stored
"""


def craft(src, dst, code):
    """dst: a copy of src edited by `code` (Python lines, `f` the open h5py.File, `np` numpy),
    its checksums recomputed to match the edit."""
    shutil.copyfile(src, dst)
    script = f"import h5py, numpy as np\nwith h5py.File({str(dst)!r}, 'r+') as f:\n"
    script += "".join(f"    {line}\n" for line in (code + "\n" + REHASH).strip().splitlines())
    p = subprocess.run([PY, "-c", script], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise AssertionError(f"crafting {dst} failed: {p.stderr}")
    return dst
