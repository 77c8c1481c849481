"""DNS wire format for the hand-built mDNS tools in captures/tools (stdlib only).

Shared by hand_responder.py, rfc_browser.py, legacy_query.py, query_storm.py
and naive_repeater.py.  generate.sh runs those tools as scripts
(`python3 captures/tools/<tool>.py`), so this directory is sys.path[0] and a
plain `import dnswire` finds this module.

Building: encode_name, header, question, rr, message, query, txt_rdata,
srv_rdata.  Parsing: read_name, unpack_header, is_response, read_questions,
skip_questions, iter_records, decode_rdata.  Transport: open_mdns_socket,
leave_group.

The parsers raise IndexError or struct.error on a truncated or malformed
message; the tools catch both.
"""
import socket
import struct
from collections import namedtuple

MDNS_GROUP = "224.0.0.251"
MDNS_PORT = 5353

T_A, T_PTR, T_TXT, T_AAAA, T_SRV, T_NSEC, T_ANY = 1, 12, 16, 28, 33, 47, 255
TYPES = {T_A: "A", T_PTR: "PTR", T_TXT: "TXT", T_AAAA: "AAAA", T_SRV: "SRV", T_NSEC: "NSEC", T_ANY: "ANY"}

CLASS_IN = 0x0001
CACHE_FLUSH = 0x8000       # top bit of a record's class (RFC 6762 §10.2)
UNICAST_RESPONSE = 0x8000  # top bit of a question's class: "QU" (RFC 6762 §5.4)
FLAG_QR = 0x8000           # header flags: this message is a response
FLAGS_RESPONSE = 0x8400    # QR + AA, what mDNS responders send (RFC 6762 §18.4)

HEADER = struct.Struct("!6H")      # id, flags, QDCOUNT, ANCOUNT, NSCOUNT, ARCOUNT
RR_FIXED = struct.Struct("!HHIH")  # type, class, TTL, RDLENGTH (after the owner name)

ResourceRecord = namedtuple("ResourceRecord", "section name rtype rclass ttl rdata rdata_offset")
ResourceRecord.__doc__ = """One parsed resource record.

section is "AN", "NS" or "AR"; rdata is the raw RDATA (a slice of the
message) and rdata_offset where it starts in the message, which names
inside RDATA (PTR, SRV) need because they may be compressed pointers."""


def type_name(rtype):
    """Mnemonic of a record/question type ("PTR"), or the number itself if unknown."""
    return TYPES.get(rtype, rtype)


# --- building -----------------------------------------------------------------

def encode_name(name):
    """A domain name as uncompressed wire labels: 'a.local' -> b'\\x01a\\x05local\\x00'.

    A trailing dot is ignored; labels are UTF-8 encoded."""
    out = b""
    for label in name.rstrip(".").split("."):
        raw = label.encode()
        out += bytes([len(raw)]) + raw
    return out + b"\x00"


def header(qid, flags, qdcount, ancount, nscount, arcount):
    """The 12-byte DNS header."""
    return HEADER.pack(qid, flags, qdcount, ancount, nscount, arcount)


def question(name, qtype, qclass=CLASS_IN):
    """One question entry: name, type, class (OR UNICAST_RESPONSE into qclass for QU)."""
    return encode_name(name) + struct.pack("!HH", qtype, qclass)


def rr(name, rtype, rclass, ttl, rdata):
    """One resource record with an uncompressed owner name (OR CACHE_FLUSH into rclass)."""
    return encode_name(name) + RR_FIXED.pack(rtype, rclass, ttl, len(rdata)) + rdata


def message(qid=0, flags=0, questions=(), answers=(), authorities=(), additionals=()):
    """A whole message from encoded sections (lists of question()/rr() bytes).

    The header counts are the lengths of the lists."""
    return (header(qid, flags, len(questions), len(answers), len(authorities), len(additionals))
            + b"".join(questions) + b"".join(answers) + b"".join(authorities) + b"".join(additionals))


def query(name, qtype, qid=0):
    """A query with one class-IN question and nothing else (flags 0)."""
    return message(qid, 0, questions=[question(name, qtype)])


def txt_rdata(pairs):
    """TXT RDATA from (key, value) pairs: one length-prefixed "key=value" string each."""
    return b"".join(bytes([len(s)]) + s for s in (f"{k}={v}".encode() for k, v in pairs))


def srv_rdata(port, target, priority=0, weight=0):
    """SRV RDATA: priority, weight, port and the (uncompressed) target host name."""
    return struct.pack("!HHH", priority, weight, port) + encode_name(target)


# --- parsing ------------------------------------------------------------------

def read_name(buf, off):
    """Decode the (possibly compressed) name at buf[off:].

    Returns (name, offset of whatever follows the name at off: after its
    first compression pointer if it has one, else after its root label).
    Follows at most 128 labels or pointers, so a pointer loop ends instead of
    hanging."""
    labels, jumped, end = [], False, off
    for _ in range(128):
        ln = buf[off]
        if ln & 0xC0 == 0xC0:
            if not jumped:
                end = off + 2
            off = ((ln & 0x3F) << 8) | buf[off + 1]
            jumped = True
            continue
        off += 1
        if ln == 0:
            break
        labels.append(buf[off:off + ln].decode(errors="replace"))
        off += ln
    return ".".join(labels), (end if jumped else off)


def unpack_header(buf):
    """(id, flags, qdcount, ancount, nscount, arcount) of a message of at least 12 bytes."""
    return HEADER.unpack(buf[:12])


def is_response(buf):
    """True if buf is long enough for a DNS header and has the QR (response) bit set."""
    return len(buf) >= 12 and bool(struct.unpack("!H", buf[2:4])[0] & FLAG_QR)


def read_questions(buf, off, count):
    """Decode count questions from off: ([(name, qtype, qclass)], offset after them)."""
    questions = []
    for _ in range(count):
        name, off = read_name(buf, off)
        qtype, qclass = struct.unpack("!HH", buf[off:off + 4])
        off += 4
        questions.append((name, qtype, qclass))
    return questions, off


def skip_questions(buf, off, count):
    """Offset after count questions from off, reading only their names."""
    for _ in range(count):
        _, off = read_name(buf, off)
        off += 4
    return off


def iter_records(buf, off, ancount, nscount=0, arcount=0):
    """Yield the resource records that start at off: ancount answers, then
    nscount authority and arcount additional records, as ResourceRecord.

    Records are decoded one at a time as the caller iterates, so a malformed
    record raises only when it is reached.  RDATA is not interpreted (see
    decode_rdata)."""
    for section, count in (("AN", ancount), ("NS", nscount), ("AR", arcount)):
        for _ in range(count):
            name, off = read_name(buf, off)
            rtype, rclass, ttl, rdlen = RR_FIXED.unpack(buf[off:off + 10])
            off += 10
            yield ResourceRecord(section, name, rtype, rclass, ttl, buf[off:off + rdlen], off)
            off += rdlen


def decode_rdata(buf, record):
    """The value of an A, PTR, SRV or TXT record; None for any other type.

    A -> "192.0.2.21", PTR -> target name, SRV -> (target, port),
    TXT -> the raw RDATA bytes."""
    rd, off = record.rdata, record.rdata_offset
    if record.rtype == T_PTR:
        return read_name(buf, off)[0]
    if record.rtype == T_SRV:
        _prio, _weight, port = struct.unpack("!HHH", rd[:6])
        return (read_name(buf, off + 6)[0], port)
    if record.rtype == T_A:
        return socket.inet_ntoa(rd)
    if record.rtype == T_TXT:
        return rd
    return None


# --- transport ----------------------------------------------------------------

def _membership(ip):
    return socket.inet_aton(MDNS_GROUP) + socket.inet_aton(ip)


def open_mdns_socket(ip, multicast_ttl=255, unicast_ttl=None, loop=False):
    """A UDP socket bound to port 5353 (SO_REUSEADDR), joined to 224.0.0.251 on
    the interface with IPv4 address ip, sending multicast from that interface.

    multicast_ttl, unicast_ttl (IP_TTL) and loop (IP_MULTICAST_LOOP) are set
    only when not None; otherwise the kernel defaults stay (multicast TTL 1,
    loop on).  RFC 6762 §11 wants TTL 255."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", MDNS_PORT))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, _membership(ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(ip))
    if multicast_ttl is not None:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, multicast_ttl)
    if unicast_ttl is not None:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, unicast_ttl)
    if loop is not None:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, int(loop))
    return s


def leave_group(s, ip):
    """Leave 224.0.0.251 on the interface with address ip (sends the IGMP leave now)."""
    s.setsockopt(socket.IPPROTO_IP, socket.IP_DROP_MEMBERSHIP, _membership(ip))
