"""A strict reader of the Prometheus text exposition format 0.0.4, and a plain HTTP GET (stdlib only).
Shared by Tests/metrics (check_metrics.py, http_checks.py, run.sh) and Tests/soak (soak.py).

  sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
  import expo  # noqa: E402
  fams = expo.parse(text)                   # raises expo.ExpoError with the line number
  expo.samples(fams, "castscope_device_up", id="...")   # [Sample], labels a subset
  expo.value(fams, "castscope_devices_visible")          # one sample's value, or None
  e = expo.exposition(text)                 # the same parse, as an Exposition:
  e.series(name), e.value(name, **labels)   #   labels exactly these; e.counters()
  status, headers, body = expo.http_get("192.0.2.2", 9150, "/metrics")

What parse() enforces (the format as Prometheus' own text parser reads it, plus the rules it
states that the parser leaves to the ingester):
- UTF-8; lines end in "\\n" (the last one too); no "\\r"; empty lines are allowed and ignored;
- `# HELP name text` (escapes in the text: \\\\ and \\n only) and `# TYPE name type`
  (counter, gauge, histogram, summary, untyped) at most once per family, before its samples;
  other `#` lines are comments;
- samples: name{label="value",...} value [timestamp]; names [a-zA-Z_:][a-zA-Z0-9_:]*, label
  names [a-zA-Z_][a-zA-Z0-9_]* not starting with __, no label twice; label values escape only
  \\\\, \\" and \\n; values are decimal floats, NaN, +Inf or -Inf; timestamps integers;
  tokens are separated by blanks and tabs only (no other control character in a sample line);
- one group per family (its lines are not interleaved with another family's), no series twice;
- counters: the sample name is the family's, the value >= 0 (not NaN);
- histograms: only name_bucket (with a float `le`), name_sum and name_count; per series:
  an le="+Inf" bucket, bucket counts non-decreasing with le, +Inf == _count, _sum and _count
  present; summaries: name (with `quantile`), name_sum, name_count.
Samples of a family with no TYPE line are `untyped`.

Run as a script, it checks itself against good and bad expositions (`expo.py selftest`, or
`python3 Tests/lib/expo.py` with no argument), printing `ok ...` / `FAIL ...` lines.
"""
import math
import re
import socket
import sys
from collections import namedtuple

METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|NaN|[+-]Inf")
TIMESTAMP = re.compile(r"-?[0-9]+")
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")
BLANK = " \t"


class ExpoError(ValueError):
    pass



class Sample(namedtuple("Sample", "name labels value timestamp line")):
    __slots__ = ()

    def key(self):
        """(sample name, sorted label items): the series."""
        return (self.name, tuple(sorted(self.labels.items())))


class Family:
    def __init__(self, name):
        self.name, self.type, self.help, self.samples = name, None, None, []

    @property
    def kind(self):
        return self.type or "untyped"


def parse_float(text):
    if not FLOAT.fullmatch(text):
        raise ValueError(f"not a number: {text!r}")
    return float(text.replace("Inf", "inf").replace("NaN", "nan"))


def _unescape(text, allowed, lineno, what):
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            if i + 1 >= len(text) or text[i + 1] not in allowed:
                raise ExpoError(f"line {lineno}: invalid escape in {what}: {text[i:i + 2]!r}")
            out.append("\n" if text[i + 1] == "n" else text[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _labels(line, i, lineno):
    """Reads `{...}` from line[i] == "{": (dict, index after "}")."""
    labels = {}
    i += 1
    while True:
        while i < len(line) and line[i] in BLANK:
            i += 1
        if i < len(line) and line[i] == "}":
            return labels, i + 1
        m = LABEL_NAME.match(line, i)
        if not m:
            raise ExpoError(f"line {lineno}: bad label name at column {i + 1}: {line[i:i + 20]!r}")
        lname = m.group()
        if lname.startswith("__"):
            raise ExpoError(f"line {lineno}: reserved label name {lname}")
        if lname in labels:
            raise ExpoError(f"line {lineno}: label {lname} twice")
        i = m.end()
        while i < len(line) and line[i] in BLANK:
            i += 1
        if line[i:i + 2] != '="':
            raise ExpoError(f"line {lineno}: expected =\" after label {lname}")
        i += 2
        j, raw = i, []
        while True:
            if j >= len(line):
                raise ExpoError(f"line {lineno}: label value of {lname} not closed")
            c = line[j]
            if c == "\\":
                if j + 1 >= len(line) or line[j + 1] not in '\\"n':
                    raise ExpoError(f"line {lineno}: invalid escape in the value of {lname}: {line[j:j + 2]!r}")
                raw.append("\n" if line[j + 1] == "n" else line[j + 1])
                j += 2
            elif c == '"':
                break
            else:
                raw.append(c)
                j += 1
        labels[lname] = "".join(raw)
        i = j + 1
        while i < len(line) and line[i] in BLANK:
            i += 1
        if i < len(line) and line[i] == ",":
            i += 1
        elif i < len(line) and line[i] == "}":
            return labels, i + 1
        else:
            raise ExpoError(f"line {lineno}: expected , or }} after the value of {lname}")


def _family_of(name, families):
    """The family a sample name belongs to: itself, or name minus _bucket/_sum/_count for a
    histogram or summary declared by TYPE."""
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix):
            base = name[: -len(suffix)]
            f = families.get(base)
            if f is not None and f.type in ("histogram", "summary") and not (suffix == "_bucket" and f.type == "summary"):
                return base
    return name


def parse(text):
    """{family name: Family}, in the order of the exposition; raises ExpoError."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ExpoError(f"not UTF-8: {e}") from None
    if "\r" in text:
        raise ExpoError("carriage return in the exposition")
    if text and not text.endswith("\n"):
        raise ExpoError("the last line does not end in a line feed")
    families, order, closed, current = {}, [], set(), None
    seen_series = set()

    def family(name, lineno):
        nonlocal current
        if name != current:
            if name in closed:
                raise ExpoError(f"line {lineno}: family {name} appears in two groups")
            if current is not None:
                closed.add(current)
            current = name
        if name not in families:
            families[name] = Family(name)
            order.append(name)
        return families[name]

    for lineno, line in enumerate(text.split("\n")[:-1] if text else [], 1):
        if line.strip(BLANK) == "":
            continue
        if line.startswith("#"):
            parts = line[1:].lstrip(BLANK).split(None, 2) if line[1:2] in BLANK else []
            if len(parts) >= 2 and parts[0] in ("HELP", "TYPE"):
                rest = line[1:].lstrip(BLANK)[4:].lstrip(BLANK)
                m = METRIC_NAME.match(rest)
                if not m or (m.end() < len(rest) and rest[m.end()] not in BLANK):
                    raise ExpoError(f"line {lineno}: bad metric name in # {parts[0]}")
                name, arg = m.group(), rest[m.end():].lstrip(BLANK)
                f = family(name, lineno)
                if parts[0] == "HELP":
                    if f.help is not None:
                        raise ExpoError(f"line {lineno}: second HELP for {name}")
                    f.help = _unescape(arg, "\\n", lineno, "HELP")
                else:
                    if f.type is not None:
                        raise ExpoError(f"line {lineno}: second TYPE for {name}")
                    if f.samples:
                        raise ExpoError(f"line {lineno}: TYPE for {name} after its samples")
                    if arg.rstrip(BLANK) not in TYPES:
                        raise ExpoError(f"line {lineno}: unknown type {arg!r} for {name}")
                    f.type = arg.rstrip(BLANK)
            continue
        m = METRIC_NAME.match(line)
        if not m:
            raise ExpoError(f"line {lineno}: bad metric name: {line[:40]!r}")
        name, i, labels = m.group(), m.end(), {}
        j = i
        while j < len(line) and line[j] in BLANK:
            j += 1
        if j < len(line) and line[j] == "{":
            labels, i = _labels(line, j, lineno)
        rest = line[i:]
        if any(c not in BLANK and not c.isprintable() for c in rest):
            raise ExpoError(f"line {lineno}: control character in the sample line: {rest[:40]!r}")
        fields = re.split("[ \t]+", rest.strip(BLANK))
        if not rest or rest[0] not in BLANK or len(fields) not in (1, 2):
            raise ExpoError(f"line {lineno}: expected ' value [timestamp]' after the name and labels: {rest[:40]!r}")
        try:
            value = parse_float(fields[0])
        except ValueError as e:
            raise ExpoError(f"line {lineno}: {e}") from None
        ts = None
        if len(fields) == 2:
            if not TIMESTAMP.fullmatch(fields[1]):
                raise ExpoError(f"line {lineno}: bad timestamp {fields[1]!r}")
            ts = int(fields[1])
        fname = _family_of(name, families)
        f = family(fname, lineno)
        key = (name, tuple(sorted(labels.items())))
        if key in seen_series:
            raise ExpoError(f"line {lineno}: series {name}{labels} twice")
        seen_series.add(key)
        if f.kind in ("counter", "gauge", "untyped") and name != fname:
            raise ExpoError(f"line {lineno}: sample {name} in family {fname}")
        if f.kind == "counter" and (math.isnan(value) or value < 0):
            raise ExpoError(f"line {lineno}: counter {name} is {fields[0]}")
        if f.kind == "histogram":
            if name == fname:
                raise ExpoError(f"line {lineno}: histogram sample {name} without _bucket/_sum/_count")
            if name.endswith("_bucket"):
                if "le" not in labels:
                    raise ExpoError(f"line {lineno}: bucket without le")
                try:
                    parse_float(labels["le"])
                except ValueError:
                    raise ExpoError(f"line {lineno}: le={labels['le']!r} is not a number") from None
            elif "le" in labels:
                raise ExpoError(f"line {lineno}: le on {name}")
            if name.endswith(("_count", "_bucket")) and (math.isnan(value) or value < 0):
                raise ExpoError(f"line {lineno}: {name} is {fields[0]}")
        if f.kind == "summary" and name == fname and "quantile" not in labels:
            raise ExpoError(f"line {lineno}: summary sample {name} without quantile")
        f.samples.append(Sample(name, labels, value, ts, lineno))
    for f in families.values():
        if f.type == "histogram":
            _check_histogram(f)
    return {n: families[n] for n in order}


def _check_histogram(f):
    series = {}
    for s in f.samples:
        key = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
        series.setdefault(key, {"buckets": [], "sum": None, "count": None})
        if s.name.endswith("_bucket"):
            series[key]["buckets"].append((parse_float(s.labels["le"]), s.value, s.line))
        elif s.name.endswith("_sum"):
            series[key]["sum"] = s.value
        else:
            series[key]["count"] = s.value
    for key, h in series.items():
        where = f"histogram {f.name}{dict(key)}"
        if h["sum"] is None or h["count"] is None:
            raise ExpoError(f"{where}: no _sum or no _count")
        buckets = sorted(h["buckets"])
        if not buckets or buckets[-1][0] != math.inf:
            raise ExpoError(f"{where}: no le=\"+Inf\" bucket")
        if len({b[0] for b in buckets}) != len(buckets):
            raise ExpoError(f"{where}: the same le twice")
        for (le0, v0, _), (le1, v1, line) in zip(buckets, buckets[1:]):
            if v1 < v0:
                raise ExpoError(f"line {line}: {where}: bucket le={le1:g} ({v1:g}) < le={le0:g} ({v0:g}): not cumulative")
        if buckets[-1][1] != h["count"]:
            raise ExpoError(f"{where}: +Inf bucket {buckets[-1][1]:g} != _count {h['count']:g}")


def selector(text):
    """`name{a="b",...}` (the exposition's own escaping) -> (name, {labels})."""
    m = METRIC_NAME.match(text)
    if not m:
        raise ExpoError(f"bad selector {text!r}")
    if m.end() == len(text):
        return m.group(), {}
    labels, end = _labels(text, m.end(), 0) if text[m.end()] == "{" else (None, -1)
    if end != len(text):
        raise ExpoError(f"bad selector {text!r}")
    return m.group(), labels


def samples(families, name, **labels):
    """The samples called name whose labels include all of labels (family by sample name)."""
    out = []
    for f in families.values():
        for s in f.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                out.append(s)
    return out


def value(families, name, **labels):
    """The value of the one sample that matches, None if none; ExpoError if several."""
    found = samples(families, name, **labels)
    if len(found) > 1:
        raise ExpoError(f"{len(found)} samples match {name}{labels}")
    return found[0].value if found else None


class Exposition:
    """One parsed exposition, for checks that walk it (Tests/soak): .families is parse()'s dict."""

    def __init__(self, families):
        self.families = families

    def series(self, name):
        """Every sample whose sample name is `name` (a family, or `x_bucket` etc.)."""
        return samples(self.families, name)

    def value(self, name, **labels):
        """The value of the one sample `name` with exactly these labels (no more), or None."""
        for s in self.series(name):
            if s.labels == labels:
                return s.value
        return None

    def counters(self):
        """Sample.key() -> value of every sample that must never decrease: counters, and the
        _bucket/_sum/_count of histograms (whose observations are >= 0)."""
        out = {}
        for f in self.families.values():
            if f.type in ("counter", "histogram"):
                for s in f.samples:
                    out[s.key()] = s.value
        return out


def exposition(text):
    """parse(text) as an Exposition; raises ExpoError."""
    return Exposition(parse(text))


def http_get(host, port, path, method="GET", timeout=5.0, version="1.1"):
    """One request over a plain socket (no proxy, whatever the environment says):
    (status, {lower-case header: value}, body bytes). The connection is read to its end."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect((host, port))
        hosthdr = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"
        s.sendall(f"{method} {path} HTTP/{version}\r\nHost: {hosthdr}\r\nUser-Agent: castscope-tests\r\n"
                  "Connection: close\r\n\r\n".encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return split_response(data)


def split_response(data):
    """(status, headers, body) of a raw HTTP response; ExpoError if it is not one."""
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        raise ExpoError(f"no end of the response head in {data[:80]!r}")
    lines = head.decode("iso-8859-1").split("\r\n")
    m = re.fullmatch(r"HTTP/1\.[01] ([0-9]{3})(?: .*)?", lines[0])
    if not m:
        raise ExpoError(f"bad status line {lines[0]!r}")
    headers = {}
    for h in lines[1:]:
        k, colon, v = h.partition(":")
        if not colon:
            raise ExpoError(f"bad header line {h!r}")
        headers[k.strip().lower()] = v.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _dechunk(body)
    return int(m.group(1)), headers, body


def _dechunk(data):
    out, i = b"", 0
    while True:
        eol = data.find(b"\r\n", i)
        if eol < 0:
            raise ExpoError("chunked body cut short")
        size = int(data[i:eol].split(b";")[0], 16)
        if size == 0:
            return out
        out += data[eol + 2:eol + 2 + size]
        i = eol + 2 + size + 2


# --- self-test ---------------------------------------------------------------------------------
GOOD = [
    "",
    "# just a comment\n\nup 1\n",
    '# HELP a_total Help with \\\\ and \\n.\n# TYPE a_total counter\na_total{x="q\\"\\\\\\n",y="ü"} 3 1700000000000\n',
    "# TYPE g gauge\ng NaN\ng{a=\"1\",} -Inf\n",
    '# TYPE h histogram\nh_bucket{le="0.1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 0.3\nh_count 2\n'
    '# TYPE e histogram\n# HELP e No samples.\n',
    '# TYPE s summary\ns{quantile="0.5"} 1\ns_sum 2\ns_count 3\n',
]
# castscope's own families: escapes, a trailing comma, a histogram, a timestamp, NaN, -Inf
CASTSCOPE = """# HELP castscope_packets_read_total Frames captured.
# TYPE castscope_packets_read_total counter
castscope_packets_read_total 12
# TYPE castscope_device_up gauge
castscope_device_up{id="a\\\\b",name="Living \\"Room\\"\\nTV",model="",kind="video"} 1
castscope_device_up{id="c",name="x",model="y",kind="audio",} 0
# HELP castscope_first_answer_seconds First answer.\\nSecond line \\\\ backslash
# TYPE castscope_first_answer_seconds histogram
castscope_first_answer_seconds_bucket{id="a",le="0.005"} 0
castscope_first_answer_seconds_bucket{id="a",le="0.01"} 1
castscope_first_answer_seconds_bucket{id="a",le="+Inf"} 2
castscope_first_answer_seconds_sum{id="a"} 0.5
castscope_first_answer_seconds_count{id="a"} 2
# a comment

castscope_start_time_seconds 1.7e9 1700000000000
other_untyped NaN
other_inf -Inf
"""
GOOD.append(CASTSCOPE)
BAD = [
    ("up 1", "no final line feed"),
    ("up 1\r\n", "carriage return"),
    ("up\n", "no value"),
    ("up 1 2 3\n", "too many fields"),
    ("up 0x1p3\n", "hex float"),
    ("a 0x10\n", "hex value"),
    ("a one\n", "bad value"),
    ("up inf\n", "lower-case inf"),
    ("1up 1\n", "bad metric name"),
    ('up{a="1",a="2"} 1\n', "label twice"),
    ('up{__a="1"} 1\n', "reserved label"),
    ('up{a="\\t"} 1\n', "bad escape in a label value"),
    ('up{a="x} 1\n', "label value not closed"),
    ("a{l=x} 1\n", "unquoted label value"),
    ('up{a="1"} 1\nup{a="1"} 2\n', "series twice"),
    ("a 1\nb 1\na 2\n", "family in two groups"),
    ("a 1\nb 1\na{l=\"x\"} 2\n", "family in two groups, other labels"),
    ("# TYPE a counter\n# TYPE a counter\na 1\n", "second TYPE"),
    ("a 1\n# TYPE a counter\n", "TYPE after samples"),
    ("# HELP a x\n# HELP a y\na 1\n", "second HELP"),
    ("# HELP a x \\t\na 1\n", "bad escape in HELP"),
    ("# TYPE a counter\na -1\n", "negative counter"),
    ("# TYPE a counter\na NaN\n", "NaN counter"),
    ("# TYPE h histogram\nh 1\n", "histogram sample without a suffix"),
    ("# TYPE h histogram\nh 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n", "bare sample in a whole histogram"),
    ("# TYPE h histogram\nh_sum{le=\"1\"} 1\n", "le on _sum"),
    ("# TYPE h histogram\nh_bucket 1\nh_sum 1\nh_count 1\n", "bucket without le"),
    ("# TYPE a countr\na 1\n", "unknown type"),
    ('# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n', "not cumulative"),
    ('# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n', "no +Inf bucket"),
    ('# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n', "+Inf != count"),
    ('# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\n', "no count"),
    ('# TYPE h histogram\nh_bucket{le="x"} 2\n', "le not a number"),
    ("up 1 1.5\n", "fractional timestamp"),
    ('a{l="x"}1\n', "no blank before the value"),
    ("up 1\x0b2\n", "vertical tab between value and timestamp"),
    ("up\x0c1\n", "form feed before the value"),
    ("up 1 2\x1f\n", "control character after the timestamp"),
    (b"up{a=\"\xff\"} 1\n", "not UTF-8"),
]


def selftest():
    """The problems found (empty when good): every good exposition parses, castscope's reads to
    the right values, every bad one is refused."""
    problems = []
    for text in GOOD:
        try:
            parse(text)
        except ExpoError as e:
            problems.append(f"rejected a good exposition {text!r}: {e}")
    for text, why in BAD:
        try:
            parse(text)
            problems.append(f"accepted a bad exposition ({why}): {text!r}")
        except ExpoError:
            pass
    fams = parse(GOOD[2])
    if samples(fams, "a_total")[0].labels != {"x": 'q"\\\n', "y": "ü"} or fams["a_total"].help != "Help with \\ and \n.":
        problems.append(f"unescaping: {samples(fams, 'a_total')[0].labels} / {fams['a_total'].help!r}")
    e = exposition(CASTSCOPE)
    dev = e.series("castscope_device_up")
    if not (e.value("castscope_packets_read_total") == 12
            and e.families["castscope_packets_read_total"].type == "counter"
            and dev[0].labels == {"id": "a\\b", "name": 'Living "Room"\nTV', "model": "", "kind": "video"}
            and e.families["castscope_first_answer_seconds"].help == "First answer.\nSecond line \\ backslash"
            and e.value("castscope_first_answer_seconds_count", id="a") == 2
            and e.value("castscope_first_answer_seconds_count") is None
            and e.value("castscope_start_time_seconds") == 1.7e9
            and math.isnan(e.value("other_untyped"))
            and e.value("other_inf") == -math.inf
            and e.counters().get(("castscope_first_answer_seconds_bucket", (("id", "a"), ("le", "+Inf")))) == 2
            and len(e.counters()) == 6):
        problems.append("castscope's exposition (escapes, trailing comma, histogram, timestamp, NaN, -Inf) reads wrong")
    return problems


def summary():
    return f"the strict 0.0.4 parser takes {len(GOOD)} good expositions (castscope's reads right) and rejects {len(BAD)} bad ones"


if __name__ == "__main__":
    if sys.argv[1:] not in ([], ["selftest"]):
        sys.exit(__doc__)
    found = selftest()
    for p in found:
        print(f"FAIL expo.py selftest: {p}")
    if not found:
        print(f"ok expo.py selftest: {summary()}")
    sys.exit(1 if found else 0)
