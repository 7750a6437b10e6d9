"""Bad files: what stands where a file is expected, how large it is, how it is compressed
and what it is called. Every path-reading entry point (table, toc, info, attribute's
--trace and --kernel-families, golden reads) goes through the one checked read."""
import gzip
import os
import socket
import zlib

from badinput import Case

TRACE = '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"pid":1,"tid":1}]}'
XML = '<?xml version="1.0"?>\n<trace-query-result>\n</trace-query-result>\n'

# Each entry point: the argv that reads `{f}` as its input.
READERS = {
    "table": ["table", "{f}"],
    "toc": ["toc", "{f}"],
    "info": ["info", "{f}"],
    "trace": ["attribute", "--tokens", "1", "--trace", "e={f}"],
    "families": ["attribute", "--tokens", "1", "--trace", "e={t.json}", "--kernel-families", "{f}"],
}


def argv(reader, path):
    return [a.replace("{f}", path) for a in READERS[reader]]


def mkfifo(rel):
    return lambda d: os.mkfifo(os.path.join(d, rel))


def mkdir(rel):
    return lambda d: os.makedirs(os.path.join(d, rel))


def symlink(target, rel):
    return lambda d: os.symlink(target, os.path.join(d, rel))


def unix_socket(rel):
    def make(d):
        s = socket.socket(socket.AF_UNIX)
        s.bind(os.path.join(d, rel))
        s.close()
    return make


def write(rel, make_bytes):
    """Writes a file at setup time (large or slow inputs are not built at import)."""
    def go(d):
        with open(os.path.join(d, rel), "wb") as f:
            f.write(make_bytes())
    return go


def zeros_gzip(mib):
    """A gzip stream of `mib` MiB of zero bytes: about 1000 times smaller than it inflates."""
    c = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = b"\0" * (1 << 20)
    return b"".join([c.compress(chunk) for _ in range(mib)] + [c.flush()])


def stranger(kind, reader, make, rel, code="io.not_a_file", why="", **kw):
    files = {"t.json": TRACE} if reader == "families" else {}
    return Case(f"{kind}_{reader}", argv(reader, "{dir}/" + rel), files=files, setup=make, code=code, at="file",
                where=rel, why=why or f"{kind} given to {reader}", **kw)


CASES = []
# A directory, a FIFO (which would block in open), a socket, where a file is expected.
for reader in READERS:
    if reader != "trace":  # a directory is a recording there: cases_bundle.py
        CASES.append(stranger("directory", reader, mkdir("d.xml"), "d.xml", why="a directory where a file is expected"))
    CASES.append(stranger("fifo", reader, mkfifo("f.json"), "f.json", timeout=20,
                          why="a FIFO with no writer: open would block forever"))
CASES += [
    Case("directory_golden", ["golden", "{dir}/g.json"], program="perfgate_read", setup=mkdir("g.json"),
         code="golden.read_failed", stderr_has=["found a directory"], at="file", where="g.json", why="a directory as a golden file"),
    Case("fifo_golden", ["golden", "{dir}/g.json"], program="perfgate_read", setup=mkfifo("g.json"),
         code="golden.read_failed", stderr_has=["found a FIFO"], at="file", where="g.json", timeout=20, why="a FIFO as a golden file"),
    stranger("socket", "table", unix_socket("s.xml"), "s.xml", why="a UNIX socket as an export"),
    stranger("socket", "toc", unix_socket("s.xml"), "s.xml", why="a UNIX socket as a TOC"),
    # Devices: /dev/zero and /dev/urandom never end, /dev/null is empty but no file.
    Case("dev_zero_table", ["table", "/dev/zero"], code="io.not_a_file", at="file", where="/dev/zero",
         why="an endless device would grow the buffer until bad_alloc"),
    Case("dev_urandom_toc", ["toc", "/dev/urandom"], code="io.not_a_file", at="file", where="/dev/urandom",
         why="an endless random device"),
    Case("dev_null_info", ["info", "/dev/null"], code="io.not_a_file", at="file", where="/dev/null",
         why="a character device that reads empty"),
    Case("dev_zero_trace", ["attribute", "--tokens", "1", "--trace", "e=/dev/zero"], code="io.not_a_file",
         at="file", where="/dev/zero", why="a device as a trial"),
    Case("dev_zero_golden", ["golden", "/dev/zero"], program="perfgate_read", code="golden.read_failed", at="file",
         stderr_has=["found a device"], where="/dev/zero", why="a device as a golden"),
    Case("link_to_device_families",
         ["attribute", "--tokens", "1", "--trace", "e={t.json}", "--kernel-families", "{dir}/fam.json"],
         files={"t.json": TRACE}, setup=symlink("/dev/zero", "fam.json"), code="io.not_a_file", at="file",
         where="fam.json", why="a symbolic link to /dev/zero: the read checks the file it opened"),
    # Links that lead nowhere.
    Case("symlink_loop_table", ["table", "{dir}/loop.xml"], setup=symlink("loop.xml", "loop.xml"),
         code="io.symlink_loop", at="file", where="loop.xml", why="a link to itself (ELOOP)"),
    Case("symlink_loop_golden", ["golden", "{dir}/loop.json"], program="perfgate_read",
         setup=symlink("loop.json", "loop.json"), code="golden.read_failed",
         stderr_has=["Too many levels of symbolic links"], at="file", where="loop.json",
         why="a golden that is a link to itself"),
    Case("symlink_cycle_trace", ["attribute", "--tokens", "1", "--trace", "e={dir}/a.json"],
         setup=lambda d: (os.symlink("b.json", d + "/a.json"), os.symlink("a.json", d + "/b.json")),
         code="io.symlink_loop", at="file", where="a.json", why="two links that point at each other"),
    Case("dangling_link_toc", ["toc", "{dir}/gone.xml"], setup=symlink("nowhere.xml", "gone.xml"),
         code="io.not_found", at="file", where="gone.xml", why="a link to a file that does not exist"),
    Case("missing_table", ["table", "{dir}/absent.xml"], code="io.not_found", at="file", where="absent.xml",
         why="no such file"),
    Case("missing_families", ["attribute", "--tokens", "1", "--trace", "e={t.json}", "--kernel-families",
                              "{dir}/absent.json"], files={"t.json": TRACE}, code="io.not_found", at="file",
         where="absent.json", why="a kernel-family table that does not exist"),
    Case("file_as_directory_info", ["info", "{a.xml}/b.xml"], files={"a.xml": XML}, code="io.bad_path",
         at="file", where="a.xml/b.xml", why="a path through a regular file (ENOTDIR)"),
    Case("name_too_long_table", ["table", "{dir}/" + "n" * 300 + ".xml"], code="io.bad_path", at="file",
         where="n" * 300 + ".xml", why="a file name longer than NAME_MAX"),
    # Size limits.
    Case("too_large_table", ["table", "--max-input-bytes", "64", "{big.xml}"], files={"big.xml": XML * 2},
         code="io.too_large", at="file", why="a file over --max-input-bytes"),
    Case("too_large_trace", ["attribute", "--max-input-bytes", "32", "--tokens", "1", "--trace", "e={t.json}"],
         files={"t.json": TRACE}, code="io.too_large", at="file", why="a trial over --max-input-bytes"),
    Case("too_large_families", ["attribute", "--max-input-bytes", "1K", "--tokens", "1", "--trace", "e={t.json}",
                                "--kernel-families", "{fam.json}"],
         files={"t.json": TRACE, "fam.json": '{"rules": []}' + " " * 2048}, code="io.too_large", at="file",
         where="fam.json", why="a kernel-family table over the limit"),
    # Gzip: bombs, truncations, concatenations, corruption.
    Case("gzip_bomb_table", ["table", "{dir}/bomb.xml.gz"], setup=write("bomb.xml.gz", lambda: zeros_gzip(80)),
         code="io.gzip_bomb", at="file", where="bomb.xml.gz", timeout=30,
         why="80 KB that inflate to 80 MiB: past 100 times the compressed size and the 64 MiB floor"),
    Case("gzip_bomb_toc", ["toc", "{dir}/bomb.xml"], setup=write("bomb.xml", lambda: zeros_gzip(80)),
         code="io.gzip_bomb", at="file", where="bomb.xml", timeout=30,
         why="a bomb named .xml: gzip is found by its magic bytes"),
    Case("gzip_bomb_trace", ["attribute", "--tokens", "1", "--trace", "e={dir}/bomb.json.gz"],
         setup=write("bomb.json.gz", lambda: zeros_gzip(80)), code="io.gzip_bomb", at="file",
         where="bomb.json.gz", timeout=30, why="a trace-event trial that is a gzip bomb"),
    Case("gzip_bomb_golden", ["golden", "{dir}/g.json.gz"], program="perfgate_read",
         setup=write("g.json.gz", lambda: zeros_gzip(80)), code="golden.read_failed",
         stderr_has=["inflate past"], at="file", where="g.json.gz",
         timeout=30, why="a golden that is a gzip bomb"),
    Case("gzip_over_input_limit", ["table", "--max-input-bytes", "1M", "{dir}/x.xml.gz"],
         setup=write("x.xml.gz", lambda: gzip.compress(bytes(b"acgt"[b & 3] for b in os.urandom(2 << 20)))),
         code="io.gzip_bomb", at="file", where="x.xml.gz",
         why="2 MiB of text that compresses only 4:1 but inflates past --max-input-bytes 1M"),
    Case("gzip_truncated_table", ["table", "{x.xml.gz}"], files={"x.xml.gz": gzip.compress(XML.encode() * 50)[:40]},
         code="io.bad_gzip", at="file", why="a gzip stream cut off"),
    Case("gzip_header_only_toc", ["toc", "{x.xml.gz}"], files={"x.xml.gz": b"\x1f\x8b"},
         code="io.bad_gzip", at="file", why="the two magic bytes and nothing more"),
    Case("gzip_bad_crc_info", ["info", "{x.xml.gz}"],
         files={"x.xml.gz": (lambda g: g[:-8] + bytes([g[-8] ^ 0xff]) + g[-7:])(gzip.compress(XML.encode()))},
         code="io.bad_gzip", at="file", why="a gzip member whose CRC does not match"),
    Case("gzip_trailing_garbage_table", ["table", "{x.xml.gz}"], files={"x.xml.gz": gzip.compress(XML.encode()) + b"junk!"},
         code="io.bad_gzip", at="file", why="bytes after the last gzip member that are no member"),
    Case("gzip_second_member_cut_trace", ["attribute", "--tokens", "1", "--trace", "e={t.json.gz}"],
         files={"t.json.gz": gzip.compress(TRACE.encode()) + gzip.compress(b" " * 500)[:20]},
         code="io.bad_gzip", at="file", why="a concatenation whose second member is truncated"),
    Case("gzip_truncated_golden", ["golden", "{g.json.gz}"], program="perfgate_read",
         files={"g.json.gz": gzip.compress(b'{"values": {}}' * 20)[:25]}, code="golden.read_failed",
         stderr_has=["corrupt or truncated gzip data"], at="file",
         why="a truncated gzip golden"),
    # Names that would fake a location if printed raw.
    Case("colon_newline_name", ["table", "{dir}/x:1:2\n.xml"], setup=mkdir("x:1:2\n.xml"), code="io.not_a_file",
         stderr_has=['"{dir}/x:1:2\\n.xml": error[io.not_a_file]'],
         why="a name holding ':1:2' and a newline prints quoted and escaped"),
    Case("non_utf8_name", ["toc", "{dir}/\udcff.xml"], setup=lambda d: os.mkdir(os.fsencode(d) + b"/\xff.xml"),
         code="io.not_a_file", stderr_has=['"{dir}/\\xff.xml": error[io.not_a_file]'],
         why="a byte that is not UTF-8 prints as \\xff"),
    Case("quote_tab_name", ["info", '{dir}/a"b\tc.xml'], setup=mkdir('a"b\tc.xml'), code="io.not_a_file",
         stderr_has=['"{dir}/a\\"b\\tc.xml": error[io.not_a_file]'], why="a quote and a tab in a name"),
    Case("escape_name", ["table", "{dir}/\x1b[2J.xml"], code="io.not_found",
         stderr_has=['"{dir}/\\x1b[2J.xml": error[io.not_found]'], why="a terminal escape sequence in a name"),
]
# With the ratio raised, the input limit still caps what a gzip stream may inflate to.
CASES.append(Case("gzip_ratio_option_raises", ["table", "--max-gzip-ratio", "2000", "--max-input-bytes", "70M",
                                               "{dir}/bomb.xml.gz"],
                  setup=write("bomb.xml.gz", lambda: zeros_gzip(80)), code="io.gzip_bomb", at="file",
                  where="bomb.xml.gz", stderr_has=["the input limit"], timeout=30,
                  why="with the ratio raised, the 70M input limit still stops the bomb"))
